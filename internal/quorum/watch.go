package quorum

import (
	"context"
	"fmt"

	"github.com/distlock/distlock/locker"
)

// watch watches every target at once and calls fn on any member's release:
// a holder's Unlock releases every member, so a waiter hears of it from
// each member it watches. The watch holds when the needed members are
// watched, since a lock the watched members do not release cannot become
// free (the others are fewer than a quorum); the members whose watch failed
// are then just not watched. stop stops every member's watch, and fn is
// not called after it returns.
func (e *engine) watch(ctx context.Context, name string, ts []target, fn func()) (func(), error) {
	if fn == nil {
		return nil, fmt.Errorf("%s watch %q: %w: nil callback", e.kind.name, name, locker.ErrInvalid)
	}
	if err := unsupported(ts, capWatch); err != nil {
		return nil, fmt.Errorf("%s watch %q: %w", e.kind.name, name, err)
	}
	stops, errs := fanout(ctx, ts, e.s.plain, func(ctx context.Context, i int) (func(), error) {
		return ts[i].b.(locker.Notifier).Watch(ctx, ts[i].key, fn)
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
	for i := range ts {
		if errs[i] == nil && stops[i] != nil {
			watched++
		}
	}
	if err := firstInvalid(ts, errs); err != nil || watched < e.needed {
		stopAll()
		if err == nil {
			err = fmt.Errorf("%d of %d members watched, %d needed (%s)", watched, len(ts), e.needed, memberErrors(ts, errs))
		}
		return nil, fmt.Errorf("%s watch %q: %w", e.kind.name, name, err)
	}
	return stopAll, nil
}
