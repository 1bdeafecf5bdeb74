package quorum

import (
	"fmt"

	"github.com/distlock/distlock/driver"
)

// Share implements driver.Sharer, for every combinator New and NewKeys
// return: the view is the combinator of the same kind and settings over
// the members' views of s, so that a read hold of a RedLock is a read hold
// on a majority of its members, and nested combinators share through their
// own Share. A view is never a Sharer itself: its Share fails with an error
// wrapping errors.ErrUnsupported.
//
// Share fails with ErrInvalid for a malformed s (driver.CheckShare); with
// an error wrapping errors.ErrUnsupported, naming the member, when a
// member is no driver.Sharer or cannot keep that kind of shared lock; with
// an error wrapping both ErrInvalid and errors.ErrUnsupported for a
// semaphore whose holders the quorum would not bound (see checkBound): a
// misconfiguration, and a kind of shared lock the combinator cannot keep;
// and with ErrClosed after Close. It contacts no member.
//
// Every call with the same s returns the same view. Views hold nothing of
// their own beyond their calls in flight and background releases, which
// the combinator's Close ends: a view's Close is the combinator's, and
// closes its members, and with them their views.
func (c *combinator) Share(s driver.Share) (driver.Backend, error) {
	if c.parent != nil {
		return nil, c.labelled(driver.Unsupported("shared locks of its own: it is a view of shared locks"))
	}
	if err := c.guard.Enter(); err != nil {
		return nil, c.labelled(err)
	}
	defer c.guard.Exit()
	if err := driver.CheckShare(s); err != nil {
		return nil, c.labelled(err)
	}
	c.viewsMu.Lock()
	defer c.viewsMu.Unlock()
	if v, ok := c.views[s]; ok {
		return v, nil
	}
	ts := make([]target, len(c.template))
	for i, t := range c.template {
		sharer, ok := t.b.(driver.Sharer)
		if !ok {
			return nil, fmt.Errorf("%s: %s: %w", c.kind.name, t.label, driver.Unsupported("shared locks"))
		}
		m, err := sharer.Share(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", c.kind.name, t.label, err)
		}
		ts[i] = newTarget(m, t.key, t.label)
		ts[i].mode = s.Mode
		// The same store: what the combinator learnt of its round trips
		// holds for the view.
		ts[i].rtt = t.rtt
	}
	// After the members, which may not keep semaphores at all: the views
	// they made hold nothing to give back.
	if err := c.checkBound(s); err != nil {
		return nil, c.labelled(err)
	}
	view := &combinator{engine: newEngine(c.kind, c.s, ts, s), template: ts, keyed: c.keyed,
		name: c.name + "[" + shareName(s) + "]", parent: c}
	v := view.withCapabilities()
	if c.views == nil {
		c.views = make(map[driver.Share]driver.Backend)
	}
	c.views[s] = v
	return v, nil
}

// closeViews closes the views Share made, once the combinator is closed:
// each waits for its calls in flight and stops its background releases.
func (c *combinator) closeViews() {
	c.viewsMu.Lock()
	views := c.views
	c.views = nil
	c.viewsMu.Unlock()
	for _, v := range views {
		view := v.(nested).self()
		_ = view.guard.Close(nil, func() error {
			view.bg.close()
			return nil
		})
	}
}

// shareName names a view in its combinator's String.
func shareName(s driver.Share) string {
	if s.Mode == driver.Permits {
		return fmt.Sprintf("%d of %d permits", s.Permits, s.Limit)
	}
	return s.Mode.String()
}
