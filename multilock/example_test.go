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
	store := locker.NewStore(ml)
	defer store.Close() // closes the MultiLock, and both members
	m, _ := store.Mutex("orders/42")

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
