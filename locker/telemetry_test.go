package locker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

func TestTelemetryAcquireAndRelease(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	m := telMutex(t, memlocker.New(), "report", r.tel)

	l, err := m.TryLock(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, r.value(t, "distlock.locks.held"), "a live hold is counted")
	require.NoError(t, l.Unlock(ctx))

	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions", result("acquired")))
	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions"), "one call, one acquisition counted")
	assert.EqualValues(t, 1, r.value(t, "distlock.wait.duration", result("acquired")))
	assert.EqualValues(t, 1, r.value(t, "distlock.hold.duration", result("released")))
	assert.EqualValues(t, 0, r.value(t, "distlock.locks.held"), "the hold ended")
	assert.EqualValues(t, 0, r.value(t, "distlock.leases.lost"))
	assert.EqualValues(t, 1, r.value(t, "distlock.store.duration", operation("trylock"), result("ok")))
	assert.EqualValues(t, 1, r.value(t, "distlock.store.duration", operation("unlock"), result("ok")))
	assert.Empty(t, r.points(t, "distlock.acquisitions", attribute.String("distlock.lock.name", "report")),
		"no lock name unless asked for")

	calls := r.span("distlock.trylock")
	require.Len(t, calls, 1)
	assert.Equal(t, "acquired", attrOf(calls[0], "distlock.result"))
	assert.Equal(t, codes.Unset, calls[0].Status.Code)
	stores := r.span("distlock.store.trylock")
	require.Len(t, stores, 1)
	assert.Equal(t, calls[0].SpanContext.SpanID(), stores[0].Parent.SpanID(), "the store call is a child of the call")
	assert.Equal(t, trace.SpanKindClient, stores[0].SpanKind)
	assert.Equal(t, "trylock", attrOf(stores[0], "distlock.operation"))
	assert.Empty(t, r.logs.String(), "nothing to log when all goes well")
}

func TestTelemetryContention(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	c := memlocker.New()
	holder := telMutex(t, c, "report", r.tel)
	other := telMutex(t, c, "report", r.tel)

	l, err := holder.TryLock(ctx)
	require.NoError(t, err)
	_, err = other.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired)
	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions", result("not_acquired")))
	assert.EqualValues(t, 1, r.value(t, "distlock.store.duration", operation("trylock"), result("not_acquired")))
	refused := r.span("distlock.trylock")[1]
	assert.Equal(t, "not_acquired", attrOf(refused, "distlock.result"))
	assert.Equal(t, codes.Error, refused.Status.Code)
	assert.NotContains(t, refused.Status.Description, "report", "no lock name in spans unless asked for")
	assert.Equal(t, codes.Unset, r.span("distlock.store.trylock")[1].Status.Code, "a refusal is the store's answer, not a failed call")

	// A waiter is counted while it waits, and takes the lock when it is
	// released.
	got := make(chan error, 1)
	go func() {
		l, err := other.Lock(ctx, locker.WithWait(5*time.Second), locker.WithLease(time.Second))
		if err == nil {
			err = l.Unlock(ctx)
		}
		got <- err
	}()
	r.eventually(t, 1, "distlock.waiters")
	require.NoError(t, l.Unlock(ctx))
	require.NoError(t, <-got)
	assert.EqualValues(t, 0, r.value(t, "distlock.waiters"))
	assert.EqualValues(t, 2, r.value(t, "distlock.acquisitions", result("acquired")))
	require.Len(t, r.span("distlock.lock"), 1)
	assert.Equal(t, "acquired", attrOf(r.span("distlock.lock")[0], "distlock.result"))
}

func TestTelemetryLostByRenewal(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	c := memlocker.New()
	m := telMutex(t, c, "report", r.tel, locker.WithWatchdogLease(300*time.Millisecond))
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	r.eventually(t, 1, "distlock.renewals", result("renewed"))
	_, err = m.ForceUnlock(ctx)
	require.NoError(t, err)
	select {
	case <-l.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the lease was not found lost")
	}
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)

	assert.EqualValues(t, 1, r.value(t, "distlock.leases.lost"))
	assert.EqualValues(t, 1, r.value(t, "distlock.renewals", result("lost")))
	assert.EqualValues(t, 1, r.value(t, "distlock.hold.duration", result("lost")))
	assert.EqualValues(t, 0, r.value(t, "distlock.hold.duration", result("released")), "a lost hold is not also released")
	assert.EqualValues(t, 0, r.value(t, "distlock.locks.held"))
	assert.GreaterOrEqual(t, r.value(t, "distlock.renewal.batches"), int64(2), "a round for the renewal that worked and one for the one that found the lock gone")
	assert.GreaterOrEqual(t, r.value(t, "distlock.store.duration", operation("expire_batch")), int64(2), "memlocker renews in batches")

	lost := r.span("distlock.lease.lost")
	require.Len(t, lost, 1)
	assert.Equal(t, codes.Error, lost[0].Status.Code)
	assert.Contains(t, lost[0].Status.Description, "renewal found the lock gone")
	require.Len(t, lost[0].Links, 1)
	assert.Equal(t, r.span("distlock.lock")[0].SpanContext.SpanID(), lost[0].Links[0].SpanContext.SpanID(),
		"the loss links to the call that took the lease")
	logs := r.logs.String()
	assert.Contains(t, logs, "level=WARN")
	assert.Contains(t, logs, "lease lost")
	assert.Contains(t, logs, "lock=report")
	assert.Contains(t, logs, "renewal found the lock gone")
}

func TestTelemetryFixedLeaseRunsOut(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	m := telMutex(t, memlocker.New(), "report", r.tel)
	l, err := m.TryLock(ctx, locker.WithLease(50*time.Millisecond))
	require.NoError(t, err)
	<-l.Done()
	assert.EqualValues(t, 1, r.value(t, "distlock.leases.lost"))
	assert.EqualValues(t, 0, r.value(t, "distlock.locks.held"))
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
	assert.EqualValues(t, 1, r.value(t, "distlock.hold.duration", result("lost")))
	assert.Len(t, r.span("distlock.lease.lost"), 1)
	assert.Contains(t, r.logs.String(), "the lease ran out")
}

func TestTelemetryFailingStore(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	c := memlocker.New()
	m := telMutex(t, c, "report", r.tel)

	c.FailNext(1, locker.ErrUnavailable)
	_, err := m.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrUnavailable)
	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions", result("unavailable")))
	assert.EqualValues(t, 1, r.value(t, "distlock.store.duration", operation("trylock"), result("unavailable")))

	c.TimeoutNext(1)
	_, err = m.TryLock(ctx)
	require.True(t, locker.IsUnknown(err), "%v", err)
	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions", result("unknown")))
	assert.EqualValues(t, 1, r.value(t, "distlock.store.duration", operation("trylock"), result("unknown")))
	assert.GreaterOrEqual(t, r.value(t, "distlock.store.duration", operation("unlock")), int64(1),
		"the hold an unknown attempt may have taken is given back")

	_, err = m.TryLock(ctx, locker.WithLease(time.Nanosecond))
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions", result("invalid")))
	assert.EqualValues(t, 3, r.value(t, "distlock.wait.duration"))

	var failed []string
	for _, s := range r.span("distlock.trylock") {
		assert.Equal(t, codes.Error, s.Status.Code)
		failed = append(failed, attrOf(s, "distlock.result"))
	}
	assert.Equal(t, []string{"unavailable", "unknown", "invalid"}, failed)
	assert.Contains(t, r.span("distlock.trylock")[1].Status.Description, "reply lost")
	assert.Equal(t, 2, strings.Count(r.logs.String(), "the stores could not decide"),
		"the undecided and the unknown attempts are logged, the invalid one is not")
}

func TestTelemetryRenewalsFailingThenLost(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	c := memlocker.New()
	m := telMutex(t, c, "report", r.tel, locker.WithWatchdogLease(300*time.Millisecond))
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	c.Partition()
	select {
	case <-l.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the lease did not end")
	}
	c.Heal()
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
	assert.GreaterOrEqual(t, r.value(t, "distlock.renewals", result("failed")), int64(1))
	// The lease ends by the Store's timer at its deadline, not by a renewal.
	assert.EqualValues(t, 1, r.value(t, "distlock.leases.lost"))
	logs := r.logs.String()
	assert.Contains(t, logs, "renewal failed; retrying")
	assert.Contains(t, logs, "the lease ran out before a renewal reached the store")
}

func TestTelemetryWaitRidesThroughAFailure(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	store := memlocker.NewStore()
	holder := newMutex(t, store.Client(), "report")
	wc := store.Client()
	waiter := telMutex(t, wc, "report", r.tel)

	l, err := holder.TryLock(ctx)
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		l, err := waiter.Lock(ctx, locker.WithWait(5*time.Second), locker.WithLease(time.Second))
		if err == nil {
			err = l.Unlock(ctx)
		}
		got <- err
	}()
	// Once refused (and subscribed), the waiter's next attempt fails.
	r.eventually(t, 1, "distlock.waiters")
	deadline := time.Now().Add(5 * time.Second)
	for r.value(t, "distlock.store.duration", operation("trylock"), result("not_acquired")) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	// The waiter misses the grant's message, and the attempt it makes
	// when its client heals fails.
	wc.Partition()
	require.NoError(t, l.Unlock(ctx))
	wc.FailNext(1, nil)
	wc.Heal()
	require.NoError(t, <-got)

	assert.EqualValues(t, 1, r.value(t, "distlock.store.duration", operation("trylock"), result("unknown")))
	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions", result("acquired")))
	wait := r.span("distlock.lock")
	require.Len(t, wait, 1)
	require.NotEmpty(t, wait[0].Events)
	assert.Equal(t, "distlock.store.retry", wait[0].Events[0].Name)
	assert.Contains(t, r.logs.String(), "a store call failed during a wait; trying again")
}

func TestTelemetryLockNameAttributeIsOptInAndCut(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, locker.WithLockNameAttribute())
	name := strings.Repeat("n", 300)
	m := telMutex(t, memlocker.New(), name, r.tel)
	l, err := m.TryLock(ctx)
	require.NoError(t, err)
	require.NoError(t, l.Unlock(ctx))

	cut := strings.Repeat("n", 200) + "…(300 bytes)"
	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions", attribute.String("distlock.lock.name", cut)))
	assert.Equal(t, cut, attrOf(r.span("distlock.trylock")[0], "distlock.lock.name"))
}

func TestTelemetryWithoutProvidersCostsNothing(t *testing.T) {
	ctx := context.Background()
	none, err := locker.NewTelemetry()
	require.NoError(t, err)
	allocs := func(opts ...locker.StoreOption) float64 {
		m, err := storetest.Of(t, memlocker.New(), opts...).Mutex("report")
		require.NoError(t, err)
		return testing.AllocsPerRun(100, func() {
			l, err := m.TryLock(ctx, locker.WithLease(time.Minute))
			if err == nil {
				err = l.Unlock(ctx)
			}
			require.NoError(t, err)
		})
	}
	base := allocs()
	assert.Equal(t, base, allocs(locker.WithTelemetry(none)), "a Telemetry without providers")
	assert.Equal(t, base, allocs(locker.WithTelemetry(nil)), "no Telemetry")
}

func TestTelemetryLogsACleanupLeftToTheBackground(t *testing.T) {
	r := newRig(t)
	c := memlocker.New()
	m := telMutex(t, c, "report", r.tel)
	// The store answers after the call's context, and its grace, are over:
	// the hold the attempt may have taken is given back in the background.
	c.SetLatency(500 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := m.TryLock(ctx)
	require.True(t, locker.IsUnknown(err), "%v", err)
	assert.Contains(t, r.logs.String(), "level=INFO")
	assert.Contains(t, r.logs.String(), "releasing in the background")
	assert.Contains(t, r.logs.String(), "holds=1")
	waitCleanups()
	assert.EqualValues(t, 1, r.value(t, "distlock.acquisitions", result("unknown")))
}
