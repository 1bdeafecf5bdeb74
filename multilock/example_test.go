package multilock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
)

func ExampleNew() {
	ctx := context.Background()
	east, west := memlocker.NewStore(), memlocker.NewStore()
	ml, err := multilock.New([]driver.Backend{east.Client(), west.Client()})
	if err != nil {
		panic(err)
	}
	defer ml.Close() // closes both members
	m, _ := locker.New(ml, "orders/42")

	// Someone else holds the key on one of the two stores.
	other := west.Client()
	other.TryLock(ctx, driver.Request{Key: "orders/42", Owner: "someone-else", TTL: time.Minute})
	_, err = m.TryLock(ctx)
	fmt.Println("one store refuses:", errors.Is(err, locker.ErrNotAcquired))

	other.Unlock(ctx, "orders/42", "someone-else")
	lease, err := m.TryLock(ctx)
	fmt.Println("both agree:", err)
	lease.Unlock(ctx)
	// Output:
	// one store refuses: true
	// both agree: <nil>
}

func ExampleKeys() {
	ctx := context.Background()
	accounts := memlocker.NewStore()
	pair := func(first, second string) *locker.Mutex {
		c := accounts.Client() // one client per "process"
		a, _ := locker.Key(c, first)
		b, _ := locker.Key(c, second)
		both, err := multilock.Keys([]*locker.KeyLock{a, b})
		if err != nil {
			panic(err)
		}
		m, _ := locker.NewMutex(both)
		return m
	}
	toBob := pair("account:alice", "account:bob")
	toAlice := pair("account:bob", "account:alice") // the other order: no deadlock

	lease, _ := toBob.Lock(ctx)
	fmt.Println(toBob.Name())
	_, err := toAlice.TryLock(ctx)
	fmt.Println("the other transfer waits:", errors.Is(err, locker.ErrNotAcquired))
	lease.Unlock(ctx)
	lease, err = toAlice.TryLock(ctx)
	fmt.Println("then runs:", err)
	lease.Unlock(ctx)
	// Output:
	// multilock(account:alice, account:bob)
	// the other transfer waits: true
	// then runs: <nil>
}
