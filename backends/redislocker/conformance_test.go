package redislocker_test

import (
	"context"
	"testing"

	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/internal/redistest"
)

func TestConformanceStandalone(t *testing.T) {
	srv := redistest.Start(t)
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return newHarness(standaloneClient(srv.Addr())), nil
	})
}

func TestConformanceCluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return newHarness(clusterClient(cluster.Addrs())), nil
	})
}
