package multilock_test

import (
	"context"
	"testing"

	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/multilock"
)

// newMultiLock combines members into a MultiLock with the default settings.
func newMultiLock(members []driver.Backend) (driver.Backend, error) {
	return multilock.New(members)
}

// TestConformance runs the backend contract on a MultiLock of three
// in-memory stores.
func TestConformance(t *testing.T) {
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return quorumtest.NewHarness(quorumtest.NewMem(3), newMultiLock), nil
	})
}
