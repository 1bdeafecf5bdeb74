package locker

import (
	"context"
	"testing"
	"time"

	"github.com/distlock/distlock/driver"
)

// grantAll is a Backend that grants every lock and renewal. Its TryLock
// takes a millisecond, as a round trip to a store would.
type grantAll struct{}

func (grantAll) TryLock(context.Context, driver.Request) (driver.Grant, error) {
	time.Sleep(time.Millisecond)
	return Grant{Acquired: true, Holds: 1, Token: 1}, nil
}
func (grantAll) Unlock(context.Context, string, string) error                { return nil }
func (grantAll) Expire(context.Context, string, string, time.Duration) error { return nil }
func (grantAll) Close() error                                                { return nil }

func registered(b Backend) bool {
	watchdogs.Lock()
	defer watchdogs.Unlock()
	_, ok := watchdogs.byGroup[b]
	return ok
}

func TestWatchdogKeepsItsGoroutineBetweenLeases(t *testing.T) {
	ctx := context.Background()
	b := &grantAll{}
	m, err := New(b, "k")
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
	b := &grantAll{}
	m, err := New(b, "k")
	if err != nil {
		t.Fatal(err)
	}
	l, err := m.Lock(ctx) // the default 30 s lease: the next renewal is 10 s away
	if err != nil {
		t.Fatal(err)
	}
	if !registered(b) {
		t.Fatal("no scheduler for a watchdog lease")
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for registered(b) {
		if time.Now().After(deadline) {
			t.Fatalf("the scheduler still runs 5 s after its last lease was released (idle linger %v)", idleLinger)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
