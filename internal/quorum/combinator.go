package quorum

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// combinator is what every value New and NewKeys return is made of: the
// engine, its members' targets and its close guard. Its methods are the
// driver.Backend methods and the capabilities every combinator has
// (driver.BatchExpirer, driver.Granular); the capabilities that depend on
// the members are added by the types of capabilities.go.
type combinator struct {
	engine
	// template is the members' targets: with the key unset when the
	// combinator is over one key, with each member's own key when it is
	// over several (keyed).
	template []target
	keyed    bool
	// name is what errors and String call the combinator.
	name string
	// owned: Close closes the members.
	owned bool
	guard driver.Guard
	// parent is the combinator a view was made of, nil for others: the
	// view's Close is the parent's.
	parent *combinator
	// views are the views Share made, one per driver.Share, which Close
	// closes.
	viewsMu sync.Mutex
	views   map[driver.Share]driver.Backend
}

// New returns the combinator of kind over members, which it owns (Close
// closes them), with settings s: key k on it is key k on every member. It
// fails with ErrInvalid when there are no members, a member is nil, or two
// members are the same store (the same backend value, equal endpoints, or
// a member shared by two nested combinators). See capabilities.go for the
// optional capabilities of what it returns.
func New(kind Kind, members []driver.Backend, s Settings) (driver.Backend, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("%s: %w: no members", kind.name, driver.ErrInvalid)
	}
	ts := make([]target, len(members))
	names := make([]string, len(members))
	for i, m := range members {
		if isNil(m) {
			return nil, fmt.Errorf("%s: %w: member %d is nil", kind.name, driver.ErrInvalid, i+1)
		}
		names[i] = describe(m)
		ts[i] = newTarget(m, "", fmt.Sprintf("member %d (%s)", i+1, names[i]))
	}
	return build(kind, s, ts, false, kind.name+"("+strings.Join(names, ", ")+")")
}

// Member is one lock of a multi-key combinator: Key on Backend.
type Member struct {
	Backend driver.Backend
	Key     string
}

// NewKeys returns the combinator of kind over members, each a key on a
// backend (for example account:A and account:B, for a transfer), with
// settings s. Every call on it ignores the key it is given and uses each
// member's own key; the lock is held when the needed members are. It does
// not own the backends: its Close closes nothing of theirs. It is named
// "kind(k1, k2, ...)" (String). It fails with ErrInvalid when there are no
// members, a backend is nil, a key is empty, or two members are the same
// key on the same store.
func NewKeys(kind Kind, members []Member, s Settings) (driver.Backend, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("%s: %w: no locks", kind.name, driver.ErrInvalid)
	}
	ts := make([]target, len(members))
	keys := make([]string, len(members))
	for i, m := range members {
		if isNil(m.Backend) {
			return nil, fmt.Errorf("%s: %w: lock %d has no store", kind.name, driver.ErrInvalid, i+1)
		}
		if err := driver.CheckKey(m.Key); err != nil {
			return nil, fmt.Errorf("%s: lock %d: %w", kind.name, i+1, err)
		}
		keys[i] = m.Key
		ts[i] = newTarget(m.Backend, m.Key, fmt.Sprintf("lock %d (%q on %s)", i+1, m.Key, describe(m.Backend)))
	}
	return build(kind, s, ts, true, kind.name+"("+strings.Join(keys, ", ")+")")
}

// build checks that the targets are independent and returns the
// combinator over them, with the capabilities they allow.
func build(kind Kind, s Settings, ts []target, keyed bool, name string) (driver.Backend, error) {
	if err := checkIndependent(ts); err != nil {
		return nil, fmt.Errorf("%s: %w", kind.name, err)
	}
	c := &combinator{engine: newEngine(kind, s, ts, driver.Share{}), template: ts, keyed: keyed, name: name, owned: !keyed}
	return c.withCapabilities(), nil
}

// Build is New with kind's default settings changed by opts: the options
// of package combine.
func Build[O ~func(*Settings) error](kind Kind, members []driver.Backend, opts []O) (driver.Backend, error) {
	s, err := Apply(kind, opts)
	if err != nil {
		return nil, err
	}
	return New(kind, members, s)
}

func (c *combinator) self() *combinator { return c }

// String names the combinator: its kind and its members (New), or its
// keys (NewKeys).
func (c *combinator) String() string { return c.name }

// enter starts a call on key: it fails on a closed combinator, and as
// enterKey does. On success the call must end with c.guard.Exit.
func (c *combinator) enter(key string) ([]target, string, error) {
	if err := c.guard.Enter(); err != nil {
		return nil, "", c.labelled(err)
	}
	ts, key, err := c.enterKey(key)
	if err != nil {
		c.guard.Exit()
		return nil, "", c.labelled(err)
	}
	return ts, key, nil
}

// enterOwner is enter for a call on owner's hold: it fails, too, as
// driver.CheckOwner does. On success the call must end with c.guard.Exit.
func (c *combinator) enterOwner(key, owner string) ([]target, error) {
	ts, key, err := c.enter(key)
	if err != nil {
		return nil, err
	}
	if err := driver.CheckOwner(key, owner); err != nil {
		c.guard.Exit()
		return nil, c.labelled(err)
	}
	return ts, nil
}

// enterKey returns the targets of key, and the key the argument checks
// see: key itself, which must not be empty, or a multi-key combinator's
// name, as it ignores key.
func (c *combinator) enterKey(key string) ([]target, string, error) {
	if c.keyed {
		return c.template, c.name, nil
	}
	if err := driver.CheckKey(key); err != nil {
		return nil, "", err
	}
	ts := slices.Clone(c.template)
	for i := range ts {
		ts[i].key = key
	}
	return ts, key, nil
}

// labelled labels an error found before any member was called.
func (c *combinator) labelled(err error) error {
	return fmt.Errorf("%s: %w", c.kind.name, err)
}

// Granularity implements driver.Granular: the coarsest member's. Leases are
// rounded up to it before they go to the members, so every member holds
// the same lease.
func (c *combinator) Granularity() time.Duration { return c.gran }

// Close implements driver.Backend: it waits for the calls in flight, closes
// the views Share made (waiting for their calls), stops the releases that
// failed attempts left running in the background (the members' leases end
// them anyway), and closes every member if the combinator owns them (New),
// once, returning their errors joined. A view's Close is its parent's.
func (c *combinator) Close() error {
	if c.parent != nil {
		return c.parent.Close()
	}
	return c.guard.Close(nil, func() error {
		c.closeViews()
		c.bg.close() // the members are about to be closed: their releases would fail
		if !c.owned {
			return nil
		}
		errs := make([]error, len(c.template))
		for i, t := range c.template {
			if err := t.b.Close(); err != nil {
				errs[i] = fmt.Errorf("%s: %w", t.label, err)
			}
		}
		return errors.Join(errs...)
	})
}
