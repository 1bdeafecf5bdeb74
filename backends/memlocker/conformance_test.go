package memlocker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
)

// harness serves clients of one store; it can partition any of them.
type harness struct {
	store *memlocker.Store
}

func (h *harness) NewBackend(context.Context) (driver.Backend, error) {
	return h.store.Client(), nil
}

func (h *harness) Granularity() time.Duration { return time.Millisecond }

func (h *harness) Close() {}

func (h *harness) Partition(b driver.Backend) error {
	c, ok := b.(*memlocker.Client)
	if !ok {
		return fmt.Errorf("not a memlocker client: %T", b)
	}
	c.Partition()
	return nil
}

func (h *harness) Heal(b driver.Backend) error {
	b.(*memlocker.Client).Heal()
	return nil
}

func TestConformance(t *testing.T) {
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return &harness{store: memlocker.NewStore()}, nil
	})
}

// Stall gives b's calls a latency no call outlives; they end with their
// contexts.
func (h *harness) Stall(b driver.Backend) error {
	b.(*memlocker.Client).Stall()
	return nil
}

func (h *harness) Resume(b driver.Backend) error {
	b.(*memlocker.Client).Resume()
	return nil
}
