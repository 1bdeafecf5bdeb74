package quorum

import (
	"fmt"
	"reflect"

	"github.com/distlock/distlock/driver"
)

// Endpointer is driver.Endpointer: the combinators use it to refuse two
// clients of the same server as members.
type Endpointer = driver.Endpointer

// target is one member call's destination: a key on a backend.
type target struct {
	b     driver.Backend
	key   string
	label string // names the member in errors
	// fencer reports whether b is a driver.Fencer (found once, when the
	// combinator is made).
	fencer bool
	// rtt is the member's observed round trip, shared by every target of
	// the same member.
	rtt *rtt
}

// nested is implemented by the combinators built on this package, through
// their embedded *Backend: it lets the engine see their members.
type nested interface {
	quorumBackend() *Backend
}

// capability is an optional member capability.
type capability int

const (
	capWatch capability = iota
	capInspect
	capForceUnlock
	capFence
)

var capabilityNames = [...]string{
	capWatch:       "release notification (driver.Notifier)",
	capInspect:     "inspection (driver.Inspector)",
	capForceUnlock: "force unlock (driver.ForceUnlocker)",
	capFence:       "fencing (driver.Fencer)",
}

// has reports whether b offers c. A combinator built on this package has
// every method, so its members decide.
func has(b driver.Backend, c capability) bool {
	if n, ok := b.(nested); ok {
		return n.quorumBackend().has(c)
	}
	var ok bool
	switch c {
	case capWatch:
		_, ok = b.(driver.Notifier)
	case capInspect:
		_, ok = b.(driver.Inspector)
	case capForceUnlock:
		_, ok = b.(driver.ForceUnlocker)
	case capFence:
		_, ok = b.(driver.Fencer)
	}
	return ok
}

// describe names b for errors: its endpoint, or its type.
func describe(b driver.Backend) string {
	if n, ok := b.(nested); ok {
		return n.quorumBackend().String()
	}
	if e, ok := b.(Endpointer); ok && e.Endpoint() != "" {
		return e.Endpoint()
	}
	return fmt.Sprintf("%T", b)
}

// identities returns what makes b a store of its own: the backend value
// itself and its endpoint, or for a combinator those of all its members.
func identities(b driver.Backend) []any {
	if n, ok := b.(nested); ok {
		var ids []any
		for _, m := range n.quorumBackend().members {
			ids = append(ids, identities(m)...)
		}
		return ids
	}
	var ids []any
	if hashable(b) {
		ids = append(ids, b)
	}
	if e, ok := b.(Endpointer); ok && e.Endpoint() != "" {
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
