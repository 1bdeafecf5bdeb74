package locker_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/locker"
)

func ExampleMutex_Lock() {
	ctx := context.Background()
	store := locker.NewStore(memlocker.New()) // or locker.Open(ctx, "redis://...")
	defer store.Close()
	m, err := store.Mutex("orders/42")
	if err != nil {
		panic(err)
	}

	// No lease given: a watchdog renews the lease until Unlock.
	lease, err := m.Lock(ctx)
	if err != nil {
		panic(err)
	}
	held, _ := m.IsLocked(ctx)
	fmt.Println("held:", held, "token:", lease.Token())

	if err := lease.Unlock(ctx); err != nil {
		panic(err)
	}
	held, _ = m.IsLocked(ctx)
	fmt.Println("held:", held)
	// Output:
	// held: true token: 1
	// held: false
}

func ExampleMutex_TryLock() {
	ctx := context.Background()
	shared := memlocker.NewStore()
	// Two Stores on two clients of one mem store, as two processes would have.
	first, _ := locker.NewStore(shared.Client()).Mutex("report")
	second, _ := locker.NewStore(shared.Client()).Mutex("report")

	lease, err := first.TryLock(ctx)
	fmt.Println("first:", err)
	_, err = second.TryLock(ctx)
	fmt.Println("second:", errors.Is(err, locker.ErrNotAcquired))

	// A bounded wait: the first holder lets go after 20ms.
	go func() {
		time.Sleep(20 * time.Millisecond)
		lease.Unlock(ctx)
	}()
	next, err := second.TryLock(ctx, locker.WithWait(5*time.Second))
	fmt.Println("second after waiting:", err, "token:", next.Token())
	next.Unlock(ctx)
	// Output:
	// first: <nil>
	// second: true
	// second after waiting: <nil> token: 2
}

func ExampleWithOwner() {
	ctx := context.Background()
	store := locker.NewStore(memlocker.New())
	defer store.Close()
	owner := locker.NewOwner()
	outer, _ := store.Mutex("tree", locker.WithOwner(owner))
	inner, _ := store.Mutex("tree", locker.WithOwner(owner))

	l1, _ := outer.Lock(ctx)
	l2, err := inner.Lock(ctx) // same owner: re-enters
	fmt.Println("re-entered:", err == nil, "holds:", l2.Holds(), "same token:", l1.Token() == l2.Token())

	l2.Unlock(ctx)
	n, _ := outer.HoldCount(ctx)
	fmt.Println("holds after one unlock:", n)
	l1.Unlock(ctx)
	n, _ = outer.HoldCount(ctx)
	fmt.Println("holds after both:", n)
	// Output:
	// re-entered: true holds: 2 same token: true
	// holds after one unlock: 1
	// holds after both: 0
}

func ExampleLease_Done() {
	ctx := context.Background()
	m, _ := locker.NewStore(memlocker.New()).Mutex("batch")

	// A fixed lease is not renewed: Done closes when it runs out.
	lease, err := m.Lock(ctx, locker.WithLease(30*time.Millisecond))
	if err != nil {
		panic(err)
	}
	select {
	case <-lease.Done():
		fmt.Println("stop working:", lease.Err())
	case <-time.After(10 * time.Second):
		fmt.Println("still held")
	}
	fmt.Println(errors.Is(lease.Err(), locker.ErrLost))
	lease.Unlock(ctx) // frees the Mutex for this process's other goroutines
	// Output:
	// stop working: lock lost: the lease ran out
	// true
}

func ExampleLease_Token() {
	ctx := context.Background()
	clock := memlocker.NewManualClock(time.Now())
	shared := memlocker.NewStore(memlocker.WithClock(clock))

	// A resource that refuses writes with a token lower than one it has
	// accepted: a holder whose lease passed cannot overwrite a newer one.
	var highest uint64
	write := func(who string, token uint64) {
		if token < highest {
			fmt.Printf("%s (token %d): refused\n", who, token)
			return
		}
		highest = token
		fmt.Printf("%s (token %d): written\n", who, token)
	}

	slow, _ := locker.NewStore(shared.Client()).Mutex("file")
	stale, _ := slow.Lock(ctx, locker.WithLease(time.Minute))
	clock.Advance(2 * time.Minute) // the slow holder pauses past its lease

	fast, _ := locker.NewStore(shared.Client()).Mutex("file")
	fresh, _ := fast.Lock(ctx, locker.WithLease(time.Minute))
	write("fast", fresh.Token())
	write("slow", stale.Token()) // wakes up and writes anyway

	fresh.Unlock(ctx)
	stale.Unlock(ctx)
	// Output:
	// fast (token 2): written
	// slow (token 1): refused
}

func ExampleMutex_ForceUnlock() {
	ctx := context.Background()
	shared := memlocker.NewStore()
	holder, _ := locker.NewStore(shared.Client()).Mutex("stuck", locker.WithWatchdogLease(300*time.Millisecond))
	lease, _ := holder.Lock(ctx)

	admin, _ := locker.NewStore(shared.Client()).Mutex("stuck")
	broke, err := admin.ForceUnlock(ctx)
	fmt.Println("broke:", broke, err)

	// The holder's watchdog finds the lock gone at its next renewal.
	<-lease.Done()
	fmt.Println("holder:", lease.Err())
	lease.Unlock(ctx)
	// Output:
	// broke: true <nil>
	// holder: lock lost: renewal found the lock gone
}

func ExampleMutex_Inspect() {
	ctx := context.Background()
	m, _ := locker.NewStore(memlocker.New()).Mutex("jobs/7")
	lease, _ := m.Lock(ctx, locker.WithLease(time.Minute))

	st, err := m.Inspect(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("held:", st.Held, "by me:", st.Owner == m.Owner(), "holds:", st.Holds, "token:", st.Token)
	fmt.Println("remaining within a minute:", st.Remaining > 0 && st.Remaining <= time.Minute)
	lease.Unlock(ctx)
	// Output:
	// held: true by me: true holds: 1 token: 1
	// remaining within a minute: true
}

func ExampleOpen() {
	ctx := context.Background()
	// Importing a backend package registers its scheme; here "mem". Each
	// Open makes a Store with a client of its own.
	a, err := locker.Open(ctx, "mem://example-open")
	if err != nil {
		panic(err)
	}
	defer a.Close()
	b, _ := locker.Open(ctx, "mem://example-open") // the same store
	defer b.Close()

	ma, _ := a.Mutex("cron")
	mb, _ := b.Mutex("cron")
	lease, _ := ma.TryLock(ctx)
	_, err = mb.TryLock(ctx)
	fmt.Println(errors.Is(err, locker.ErrNotAcquired))
	lease.Unlock(ctx)

	_, err = locker.Open(ctx, "nosuch://host")
	fmt.Println(errors.Is(err, locker.ErrInvalid))
	// Output:
	// true
	// true
}
