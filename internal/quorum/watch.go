package quorum

import (
	"context"
	"fmt"
)

// watch watches every target that can notify, at once, and calls fn on any
// of their releases. A holder's Unlock releases every member, so one
// watched member hears of it: the watch holds when at least one member is
// watched, and the members that cannot notify, or whose watch failed, are
// just not watched. A waiter thus wakes on a release at once as long as one
// member can tell it, and only a release that the watched members do not
// see (a lease that ran out on an unwatched member, or a holder that held
// no watched member) waits for the waiter's safety-net re-check (see
// locker's waiting rules). stop stops every member's watch, and fn is not
// called after it returns. Only a combinator with a notifying member
// watches (see capabilities.go).
func (e *engine) watch(ctx context.Context, ts []target, fn func()) (func(), error) {
	var watchable []target
	for _, t := range ts {
		if t.notifier != nil {
			watchable = append(watchable, t)
		}
	}
	stops, errs := fanout(ctx, watchable, e.s.plain, func(ctx context.Context, i int) (func(), error) {
		return watchable[i].notifier.Watch(ctx, watchable[i].key, fn)
	}, func(_ int, stop func(), err error) {
		if err == nil && stop != nil {
			stop() // a watch that came too late: nobody else will stop it
		}
	})
	stopAll := func() {
		for _, stop := range stops {
			if stop != nil {
				stop()
			}
		}
	}
	watched := 0
	for i := range watchable {
		if errs[i] == nil && stops[i] != nil {
			watched++
		}
	}
	if err := firstInvalid(watchable, errs); err != nil || watched == 0 {
		stopAll()
		if err == nil {
			err = fmt.Errorf("no member of %d could be watched (%s)", len(ts), memberErrors(watchable, errs))
		}
		return nil, fmt.Errorf("%s: %w", e.kind.name, err)
	}
	return stopAll, nil
}
