package locker

import (
	"context"
	"testing"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// grantAll is a Backend that grants every lock and renewal. Its TryLock
// takes a millisecond, as a round trip to a store would.
type grantAll struct{}

func (grantAll) TryLock(context.Context, driver.Request) (driver.Grant, error) {
	time.Sleep(time.Millisecond)
	return driver.Grant{Acquired: true, Holds: 1, Token: 1}, nil
}
func (grantAll) Unlock(context.Context, string, string) error                { return nil }
func (grantAll) Expire(context.Context, string, string, time.Duration) error { return nil }
func (grantAll) Close() error                                                { return nil }

// running reports whether s's watchdog goroutine runs.
func running(s *Store) bool {
	s.dog.mu.Lock()
	defer s.dog.mu.Unlock()
	return s.dog.running
}

func TestWatchdogKeepsItsGoroutineBetweenLeases(t *testing.T) {
	ctx := context.Background()
	s := NewStore(&grantAll{})
	defer s.Close()
	m, err := s.Mutex("k")
	if err != nil {
		t.Fatal(err)
	}
	before := schedulerStarts.Load()
	const cycles = 200
	for range cycles {
		l, err := m.Lock(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// One start, plus one after each pause of the loop longer than
	// idleLinger (a busy machine can stall a goroutine that long).
	if n := schedulerStarts.Load() - before; n > cycles/10 {
		t.Errorf("%d watchdog leases taken and released in a row started the scheduler %d times; it should stay up between them", cycles, n)
	}
}

func TestWatchdogGoroutineExitsWhenIdle(t *testing.T) {
	ctx := context.Background()
	s := NewStore(&grantAll{})
	defer s.Close()
	m, err := s.Mutex("k")
	if err != nil {
		t.Fatal(err)
	}
	l, err := m.Lock(ctx) // the default 30 s lease: the next renewal is 10 s away
	if err != nil {
		t.Fatal(err)
	}
	if !running(s) {
		t.Fatal("no scheduler for a watchdog lease")
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the scheduler to exit after its last lease was released", func() bool { return !running(s) })
}

// A watchdog whose last lease is released just before its renewal falls
// due exits by the system clock, even when the store's fake clock has
// stopped: it must not wait for a renewal timer that the clock will never
// reach (a test that stops its clock would leak the goroutine).
func TestWatchdogExitsOnAStoppedFakeClock(t *testing.T) {
	ctx := context.Background()
	clock := memlocker.NewManualClock(time.Unix(1e9, 0))
	s := NewStore(memlocker.NewStore(memlocker.WithClock(clock)).Client())
	defer s.Close()
	m, err := s.Mutex("k")
	if err != nil {
		t.Fatal(err)
	}
	l, err := m.Lock(ctx) // with the watchdog, which renews a third into the lease
	if err != nil {
		t.Fatal(err)
	}
	renewal := clock.Now().Add(DefaultWatchdogLease / 3)
	waitFor(t, "the scheduler to wait for the renewal", func() bool {
		s.dog.mu.Lock()
		defer s.dog.mu.Unlock()
		return s.dog.wakeAt.Equal(renewal)
	})
	clock.Advance(DefaultWatchdogLease/3 - 10*time.Millisecond)
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the scheduler to exit, on a clock stopped 10ms before the renewal", func() bool { return !running(s) })
}

// waitFor waits up to 5 s for cond, checking it every few milliseconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
