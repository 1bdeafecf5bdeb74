package quorumtest

import (
	"context"
	"fmt"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// Mem is a set of in-memory stores.
type Mem struct {
	stores []*memlocker.Store
}

var _ Stores = (*Mem)(nil)

// NewMem returns n new in-memory stores made with opts.
func NewMem(n int, opts ...memlocker.StoreOption) *Mem {
	m := &Mem{stores: make([]*memlocker.Store, n)}
	for i := range m.stores {
		m.stores[i] = memlocker.NewStore(opts...)
	}
	return m
}

// Store returns store i.
func (m *Mem) Store(i int) *memlocker.Store { return m.stores[i] }

// Clients returns a new client of every store.
func (m *Mem) Clients() []*memlocker.Client {
	cs := make([]*memlocker.Client, len(m.stores))
	for i, s := range m.stores {
		cs[i] = s.Client()
	}
	return cs
}

// Len implements Stores.
func (m *Mem) Len() int { return len(m.stores) }

// Client implements Stores.
func (m *Mem) Client(_ context.Context, i int) (driver.Backend, error) {
	return m.stores[i].Client(), nil
}

// Granularity implements Stores.
func (m *Mem) Granularity() time.Duration {
	return driver.Granularity(m.stores[0].Client())
}

// Partition implements Stores.
func (m *Mem) Partition(b driver.Backend) error { return m.with(b, (*memlocker.Client).Partition) }

// Heal implements Stores.
func (m *Mem) Heal(b driver.Backend) error { return m.with(b, (*memlocker.Client).Heal) }

// Stall implements Stores.
func (m *Mem) Stall(b driver.Backend) error { return m.with(b, (*memlocker.Client).Stall) }

// Resume implements Stores.
func (m *Mem) Resume(b driver.Backend) error { return m.with(b, (*memlocker.Client).Resume) }

// Unreachable implements Stores: an in-memory store has no address, so
// the client is one of store i, partitioned from it for good.
func (m *Mem) Unreachable(_ context.Context, i int, _ string) (driver.Backend, error) {
	c := m.stores[i].Client()
	c.Partition()
	return c, nil
}

func (m *Mem) with(b driver.Backend, f func(*memlocker.Client)) error {
	c, ok := b.(*memlocker.Client)
	if !ok {
		return fmt.Errorf("not a memlocker client: %T", b)
	}
	f(c)
	return nil
}
