package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/distlock/distlock/driver"
)

// Harness makes clients of the store under test.
type Harness interface {
	// NewBackend returns a new, independent client of the store: its own
	// connections, seeing the same locks as every other client of the
	// harness. The suite calls it directly or makes a locker.Store of it,
	// and closes it (a Store closes its driver).
	NewBackend(ctx context.Context) (driver.Backend, error)

	// Granularity is the store's lease granularity: leases are rounded up to
	// a multiple of it. The suite sizes its leases from it.
	Granularity() time.Duration

	// Close releases what the harness holds (servers it started, clients).
	Close()
}

// Partitioner is an optional Harness capability: cutting one client off the
// store and healing it. The suite uses it to check that a lock whose
// renewals cannot get through is reported lost.
type Partitioner interface {
	// Partition cuts b off the store: its calls fail or time out.
	Partition(b driver.Backend) error
	// Heal restores b's connection.
	Heal(b driver.Backend) error
}

// NewHarness makes the harness for one run of the suite.
type NewHarness func(ctx context.Context, t *testing.T) (Harness, error)
