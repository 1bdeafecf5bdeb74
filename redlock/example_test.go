package redlock_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

func ExampleNew() {
	ctx := context.Background()
	var stores []*memlocker.Store
	var members []driver.Backend
	for range 5 {
		s := memlocker.NewStore() // five independent stores, e.g. five Redis masters
		stores = append(stores, s)
		members = append(members, s.Client())
	}
	rl, err := redlock.New(members)
	if err != nil {
		panic(err)
	}
	store := locker.NewStore(rl)
	defer store.Close() // closes the RedLock, and the five members
	m, _ := store.Mutex("orders/42")

	// occupy makes n stores refuse, as if someone else held the key there.
	occupy := func(n int) (release func()) {
		var cs []*memlocker.Client
		for _, s := range stores[:n] {
			c := s.Client()
			c.TryLock(ctx, driver.Request{Key: "orders/42", Owner: "someone-else", TTL: time.Minute})
			cs = append(cs, c)
		}
		return func() {
			for _, c := range cs {
				c.Unlock(ctx, "orders/42", "someone-else")
			}
		}
	}

	release := occupy(2)
	lease, err := m.TryLock(ctx)
	fmt.Println("2 of 5 refuse:", err)
	lease.Unlock(ctx)
	release()

	release = occupy(3)
	_, err = m.TryLock(ctx)
	fmt.Println("3 of 5 refuse, not acquired:", errors.Is(err, locker.ErrNotAcquired))
	release()
	// Output:
	// 2 of 5 refuse: <nil>
	// 3 of 5 refuse, not acquired: true
}
