package memlocker_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

func ExampleNewStore() {
	ctx := context.Background()
	store := memlocker.NewStore()
	// Each client is one connection: two clients behave as two processes,
	// each with a locker.Store of its own.
	procA := locker.NewStore(store.Client())
	defer procA.Close()
	procB := locker.NewStore(store.Client())
	defer procB.Close()
	a, _ := procA.Mutex("invoice/9")
	b, _ := procB.Mutex("invoice/9")

	lease, _ := a.TryLock(ctx)
	_, err := b.TryLock(ctx)
	fmt.Println("b:", errors.Is(err, locker.ErrNotAcquired))
	lease.Unlock(ctx)
	lease, err = b.TryLock(ctx)
	fmt.Println("b after a:", err, "token:", lease.Token())
	lease.Unlock(ctx)
	// Output:
	// b: true
	// b after a: <nil> token: 2
}

func ExampleManualClock() {
	ctx := context.Background()
	clock := memlocker.NewManualClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	client := memlocker.New(memlocker.WithClock(clock))

	// Leases expire by the store's clock: no sleeping in tests.
	if _, err := client.TryLock(ctx, driver.Request{Key: "k", Owner: "alice", TTL: 10 * time.Second}); err != nil {
		panic(err)
	}
	g, _ := client.TryLock(ctx, driver.Request{Key: "k", Owner: "bob", TTL: 10 * time.Second})
	fmt.Println("bob before:", g.Acquired, "alice has", g.Remaining)

	clock.Advance(10 * time.Second)
	g, _ = client.TryLock(ctx, driver.Request{Key: "k", Owner: "bob", TTL: 10 * time.Second})
	fmt.Println("bob after:", g.Acquired, "token", g.Token)
	// Output:
	// bob before: false alice has 10s
	// bob after: true token 2
}

// A Mutex on a store with a ManualClock runs on that clock: its leases,
// renewals and waits move with Advance, so code built on distlock can be
// tested without sleeping.
func ExampleManualClock_mutex() {
	ctx := context.Background()
	clock := memlocker.NewManualClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	store := locker.NewStore(memlocker.New(memlocker.WithClock(clock)))
	defer store.Close()
	m, _ := store.Mutex("report")

	lease, _ := m.Lock(ctx, locker.WithLease(time.Minute))
	fmt.Println("deadline:", lease.Deadline().Format(time.TimeOnly))

	clock.Advance(time.Minute) // closes Done before it returns
	select {
	case <-lease.Done():
		fmt.Println("done:", lease.Err())
	default:
		fmt.Println("still held")
	}
	held, _ := m.IsLocked(ctx)
	fmt.Println("held by the store:", held)
	lease.Unlock(ctx)
	// Output:
	// deadline: 00:01:00
	// done: lock lost: the lease ran out
	// held by the store: false
}

func ExampleClient_TimeoutNext() {
	ctx := context.Background()
	client := memlocker.New()
	store := locker.NewStore(client)
	defer store.Close()
	m, _ := store.Mutex("k")

	// The next call runs on the store but its reply is lost: the Mutex
	// cannot know whether it holds the lock, so it reports an error that is
	// not ErrNotAcquired, and releases the lock in case it was taken.
	client.TimeoutNext(1)
	_, err := m.TryLock(ctx)
	fmt.Println(errors.Is(err, memlocker.ErrTimeout), errors.Is(err, locker.ErrNotAcquired))
	held, _ := m.IsLocked(ctx)
	fmt.Println("held:", held)
	// Output:
	// true false
	// held: false
}

func ExampleClient_FailNext() {
	ctx := context.Background()
	client := memlocker.New()
	client.FailNext(1, nil) // the next call fails without running
	_, err := client.TryLock(ctx, driver.Request{Key: "k", Owner: "alice", TTL: time.Second})
	fmt.Println(err)
	g, _ := client.TryLock(ctx, driver.Request{Key: "k", Owner: "alice", TTL: time.Second})
	fmt.Println("then:", g.Acquired, "calls:", client.Calls("trylock"))
	// Output:
	// memlocker: injected failure
	// then: true calls: 2
}

func Example_open() {
	ctx := context.Background()
	// "mem://NAME" names a store of this process: every Open of one NAME
	// reaches the same store.
	a, _ := locker.Open(ctx, "mem://example")
	defer a.Close()
	b, _ := locker.Open(ctx, "mem://example")
	defer b.Close()
	ma, _ := a.Mutex("job")
	mb, _ := b.Mutex("job")
	lease, _ := ma.TryLock(ctx)
	_, err := mb.TryLock(ctx)
	fmt.Println("b:", errors.Is(err, locker.ErrNotAcquired))
	lease.Unlock(ctx)

	_, err = locker.Open(ctx, "mem://example?ttl=1s")
	fmt.Println(errors.Is(err, locker.ErrInvalid))
	// Output:
	// b: true
	// true
}

func ExampleClient_WatchTurn() {
	ctx := context.Background()
	client := memlocker.New()
	for _, who := range []string{"bob", "carol"} {
		stop, _ := client.WatchTurn(ctx, "k", who, func(g driver.Grant) { fmt.Println("granted to", who, "with token", g.Token) })
		defer stop()
	}

	client.TryLock(ctx, driver.Request{Key: "k", Owner: "alice", TTL: time.Minute})
	// bob, then carol, wait in line for up to 30 seconds each.
	client.TryLock(ctx, driver.Request{Key: "k", Owner: "bob", TTL: time.Minute, Patience: 30 * time.Second})
	client.TryLock(ctx, driver.Request{Key: "k", Owner: "carol", TTL: time.Minute, Patience: 30 * time.Second})

	client.Unlock(ctx, "k", "alice") // the key passes to bob, first in line, who holds it now
	g, _ := client.TryLock(ctx, driver.Request{Key: "k", Owner: "carol", TTL: time.Minute})
	fmt.Println("carol:", g.Acquired)
	client.Unlock(ctx, "k", "bob")
	// Output:
	// granted to bob with token 2
	// carol: false
	// granted to carol with token 3
}
