package redlock_test

import (
	"context"
	"testing"

	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/redlock"
)

// newRedLock combines members into a RedLock with the default settings.
func newRedLock(members []driver.Backend) (driver.Backend, error) {
	return redlock.New(members)
}

// TestConformance runs the backend contract on a RedLock of five in-memory
// stores.
func TestConformance(t *testing.T) {
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return quorumtest.NewHarness(quorumtest.NewMem(5), newRedLock), nil
	})
}
