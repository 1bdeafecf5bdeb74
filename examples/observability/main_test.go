package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The demo's output holds only what is the same at every run: which
// metrics, how many measurements, which spans and how they nest.
func TestObservabilityPrintsWhatTheLocksDid(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out))
	assert.Equal(t, want, out.String())
}

const want = `== log ==
level=WARN msg="distlock: lease lost" lock=nightly-report error="lock lost: the lease ran out"
== metrics ==
distlock.acquisitions{distlock.lock.name=nightly-report,distlock.result=acquired} = 2 {acquisition}
distlock.acquisitions{distlock.lock.name=nightly-report,distlock.result=not_acquired} = 1 {acquisition}
distlock.hold.duration{distlock.lock.name=nightly-report,distlock.result=lost}: 1 measured, in s
distlock.hold.duration{distlock.lock.name=nightly-report,distlock.result=released}: 1 measured, in s
distlock.leases.lost{distlock.lock.name=nightly-report} = 1 {lease}
distlock.locks.held{distlock.lock.name=nightly-report} = 0 {lock}
distlock.store.duration{distlock.lock.name=nightly-report,distlock.operation=trylock,distlock.result=not_acquired}: 1 measured, in s
distlock.store.duration{distlock.lock.name=nightly-report,distlock.operation=trylock,distlock.result=ok}: 2 measured, in s
distlock.store.duration{distlock.lock.name=nightly-report,distlock.operation=unlock,distlock.result=not_held}: 1 measured, in s
distlock.store.duration{distlock.lock.name=nightly-report,distlock.operation=unlock,distlock.result=ok}: 1 measured, in s
distlock.wait.duration{distlock.lock.name=nightly-report,distlock.result=acquired}: 2 measured, in s
distlock.wait.duration{distlock.lock.name=nightly-report,distlock.result=not_acquired}: 1 measured, in s
== spans ==
  distlock.store.trylock (in distlock.trylock) {distlock.lock.name=nightly-report,distlock.operation=trylock,distlock.result=ok}
distlock.trylock {distlock.lock.name=nightly-report,distlock.result=acquired}
  distlock.store.trylock (in distlock.trylock) {distlock.lock.name=nightly-report,distlock.operation=trylock,distlock.result=not_acquired}
distlock.trylock {distlock.lock.name=nightly-report,distlock.result=not_acquired} status=Error "lock not acquired"
  distlock.store.trylock (in distlock.trylock) {distlock.lock.name=nightly-report,distlock.operation=trylock,distlock.result=ok}
distlock.trylock {distlock.lock.name=nightly-report,distlock.result=acquired}
distlock.lease.lost (linked to distlock.trylock) {distlock.lock.name=nightly-report,distlock.result=lost} status=Error "lock lost: the lease ran out"
`
