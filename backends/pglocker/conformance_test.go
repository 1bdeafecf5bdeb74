package pglocker_test

import (
	"context"
	"testing"

	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/internal/pgtest"
)

func TestConformance(t *testing.T) {
	srv := pgtest.Start(t)
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return newHarness(srv), nil
	})
}
