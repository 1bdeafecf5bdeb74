package locker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

// A RedLock's failing members show in the telemetry: one down still
// acquires; a majority down is an unavailable acquisition, logged with the
// members and why.
func TestTelemetryFailingMember(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	cs := []*memlocker.Client{memlocker.New(), memlocker.New(), memlocker.New()}
	rl, err := redlock.New([]driver.Backend{cs[0], cs[1], cs[2]}, combine.WithRestartGuard(0))
	require.NoError(t, err)
	m := telMutex(t, rl, "report", r.tel)

	cs[2].Partition()
	l, err := m.TryLock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err, "two of three members are a majority")
	require.NoError(t, l.Unlock(ctx))
	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions", result("acquired")))

	cs[1].Partition()
	_, err = m.TryLock(ctx, locker.WithLease(time.Minute))
	require.ErrorIs(t, err, locker.ErrUnavailable)
	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions", result("unavailable")))
	logs := r.logs.String()
	assert.Contains(t, logs, "the stores could not decide")
	assert.Contains(t, logs, "member 2", "the log names the members that failed")
	assert.Contains(t, logs, "partitioned", "and why")
}
