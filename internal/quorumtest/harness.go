package quorumtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
)

// Stores is a set of independent member stores.
type Stores interface {
	// Len returns the number of stores.
	Len() int
	// Client returns a new client of store i, with connections of its own.
	Client(ctx context.Context, i int) (driver.Backend, error)
	// Granularity is the coarsest store's lease granularity.
	Granularity() time.Duration
	// Partition cuts a client the set made off its store; Heal restores it.
	Partition(b driver.Backend) error
	Heal(b driver.Backend) error
	// Stall makes a client's calls hang, as a store that stopped answering
	// does, until their context ends or Resume.
	Stall(b driver.Backend) error
	Resume(b driver.Backend) error
	// Unreachable returns a client of store i's kind whose store is at
	// addr, a loopback host:port where nothing listens: its calls fail
	// without running (see conformance.Unreachable).
	Unreachable(ctx context.Context, i int, addr string) (driver.Backend, error)
}

// Combine builds a combinator over members.
type Combine func(members []driver.Backend) (driver.Backend, error)

// Harness is a conformance.Harness, conformance.Partitioner,
// conformance.Staller and conformance.Unreachable: each backend it makes is
// a combinator over new clients of every store, and partitioning or
// stalling it partitions or stalls every one of those clients.
type Harness struct {
	stores  Stores
	combine Combine

	mu      sync.Mutex
	members map[driver.Backend][]driver.Backend
}

var (
	_ conformance.Harness     = (*Harness)(nil)
	_ conformance.Partitioner = (*Harness)(nil)
	_ conformance.Staller     = (*Harness)(nil)
	_ conformance.Unreachable = (*Harness)(nil)
)

// NewHarness returns a harness of combinators made by combine over stores.
func NewHarness(stores Stores, combine Combine) *Harness {
	return &Harness{stores: stores, combine: combine, members: make(map[driver.Backend][]driver.Backend)}
}

// NewBackend implements conformance.Harness.
func (h *Harness) NewBackend(ctx context.Context) (driver.Backend, error) {
	members := make([]driver.Backend, h.stores.Len())
	for i := range members {
		m, err := h.stores.Client(ctx, i)
		if err != nil {
			closeAll(members)
			return nil, fmt.Errorf("client of store %d: %w", i, err)
		}
		members[i] = m
	}
	return h.combined(members)
}

// combined returns the combinator over members, which it closes on failure.
func (h *Harness) combined(members []driver.Backend) (driver.Backend, error) {
	b, err := h.combine(members)
	if err != nil {
		closeAll(members)
		return nil, err
	}
	h.mu.Lock()
	h.members[b] = members
	h.mu.Unlock()
	return b, nil
}

// Granularity implements conformance.Harness.
func (h *Harness) Granularity() time.Duration { return h.stores.Granularity() }

// Partition implements conformance.Partitioner: it partitions every member
// client of b.
func (h *Harness) Partition(b driver.Backend) error {
	return h.each(b, h.stores.Partition)
}

// Heal implements conformance.Partitioner.
func (h *Harness) Heal(b driver.Backend) error {
	return h.each(b, h.stores.Heal)
}

// Stall implements conformance.Staller: it stalls every member client of
// b.
func (h *Harness) Stall(b driver.Backend) error {
	return h.each(b, h.stores.Stall)
}

// Resume implements conformance.Staller.
func (h *Harness) Resume(b driver.Backend) error {
	return h.each(b, h.stores.Resume)
}

func (h *Harness) each(b driver.Backend, f func(driver.Backend) error) error {
	h.mu.Lock()
	members, ok := h.members[b]
	h.mu.Unlock()
	if !ok {
		return fmt.Errorf("not a backend of this harness: %T", b)
	}
	var errs []error
	for _, m := range members {
		errs = append(errs, f(m))
	}
	return errors.Join(errs...)
}

// Close implements conformance.Harness: it closes every combinator made.
func (h *Harness) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for b := range h.members {
		_ = b.Close()
	}
	h.members = make(map[driver.Backend][]driver.Backend)
}

func closeAll(bs []driver.Backend) {
	for _, b := range bs {
		if b != nil {
			_ = b.Close()
		}
	}
}
