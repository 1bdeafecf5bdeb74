package quorum

import (
	"context"
	"fmt"
	"reflect"

	"github.com/distlock/distlock/driver"
)

// target is one member call's destination: a key on a backend, with the
// backend's optional capabilities, found by type assertion once, when the
// combinator is made. A nil capability is one the member lacks.
type target struct {
	b     driver.Backend
	key   string
	label string // names the member in errors

	notifier  driver.Notifier
	inspector driver.Inspector
	forcer    driver.ForceUnlocker
	queuer    driver.Queuer
	holder    driver.HoldUnlocker
	passer    driver.Passer
	// mode is the mode of a member's view of shared locks (see Share), 0
	// on a member's mutexes.
	mode driver.Mode
	// fencer raises the member's tokens: the member itself when it is a
	// driver.Fencer, or a nested combinator's own fence when some of its
	// members can fence.
	fencer driver.Fencer

	// rtt is the member's observed round trip, shared by every target of
	// the same member.
	rtt *rtt
}

// newTarget returns the target of key on b, labelled label.
func newTarget(b driver.Backend, key, label string) target {
	t := target{b: b, key: key, label: label, rtt: new(rtt)}
	t.notifier, _ = b.(driver.Notifier)
	t.inspector, _ = b.(driver.Inspector)
	t.forcer, _ = b.(driver.ForceUnlocker)
	t.queuer, _ = b.(driver.Queuer)
	t.holder, _ = b.(driver.HoldUnlocker)
	t.passer, _ = b.(driver.Passer)
	if n, ok := b.(nested); ok {
		if c := n.self(); c.fencers > 0 {
			t.fencer = nestedFencer{c}
		}
	} else {
		t.fencer, _ = b.(driver.Fencer)
	}
	return t
}

// nested is implemented by every value this package returns, through the
// embedded *combinator: the engine sees its own kind among the members, to
// reach a nested combinator's members and its fencing, which it does not
// offer as a driver capability.
type nested interface {
	self() *combinator
}

// nestedFencer fences a nested combinator that has fencing members.
type nestedFencer struct{ c *combinator }

// Fence raises owner's hold on key on the nested combinator's fencing
// members (see combinator.fenceKey).
func (f nestedFencer) Fence(ctx context.Context, key, owner string, token uint64) error {
	return f.c.fenceKey(ctx, key, owner, token)
}

// describe names b for errors: a nested combinator's String, else b's
// endpoint, or its type.
func describe(b driver.Backend) string {
	if n, ok := b.(nested); ok {
		return n.self().String()
	}
	if e, ok := b.(driver.Endpointer); ok && e.Endpoint() != "" {
		return e.Endpoint()
	}
	return fmt.Sprintf("%T", b)
}

// identities returns what makes b a store of its own: the backend value
// itself and its endpoint, or for a combinator those of all its members.
func identities(b driver.Backend) []any {
	if n, ok := b.(nested); ok {
		var ids []any
		for _, t := range n.self().template {
			ids = append(ids, identities(t.b)...)
		}
		return ids
	}
	var ids []any
	if hashable(b) {
		ids = append(ids, b)
	}
	if e, ok := b.(driver.Endpointer); ok && e.Endpoint() != "" {
		ids = append(ids, endpointID(e.Endpoint()))
	}
	return ids
}

type endpointID string

// hashable reports whether b can be a map key: its type is comparable and,
// for a struct holding interfaces, so are the values inside.
func hashable(b driver.Backend) (ok bool) {
	if !reflect.TypeOf(b).Comparable() {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_ = map[any]bool{b: true}
	return true
}

// isNil reports whether b is nil or a nil pointer in an interface.
func isNil(b driver.Backend) bool {
	if b == nil {
		return true
	}
	v := reflect.ValueOf(b)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// checkIndependent fails with ErrInvalid when two of the (backend, key)
// pairs reach the same lock: the same backend value, the same endpoint, or
// (for nested combinators) a shared member.
func checkIndependent(ts []target) error {
	type slot struct {
		id  any
		key string
	}
	seen := make(map[slot]int)
	for i, t := range ts {
		for _, id := range identities(t.b) {
			s := slot{id, t.key}
			if j, dup := seen[s]; dup && j != i {
				return fmt.Errorf("%w: %s and %s are the same store: members must be independent",
					driver.ErrInvalid, ts[j].label, t.label)
			}
			seen[s] = i
		}
	}
	return nil
}
