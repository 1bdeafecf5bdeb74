package locker_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/locker"
)

func ExampleRWMutex() {
	ctx := context.Background()
	store := locker.NewStore(memlocker.New()) // or locker.Open(ctx, "redis://...")
	defer store.Close()
	rw, err := store.RWMutex("catalog")
	if err != nil {
		panic(err)
	}

	// The writer publishes version 1 of the catalog, then keeps reading it.
	write, err := rw.Lock(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("writing, token:", write.Token())
	read, err := rw.Downgrade(ctx, write)
	if err != nil {
		panic(err)
	}

	// Other readers join; a writer waits for all of them.
	other, err := rw.RLock(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("two readers of version:", read.Token(), other.Token())
	_, err = rw.TryLock(ctx)
	fmt.Println("a writer now:", errors.Is(err, locker.ErrNotAcquired))
	read.Unlock(ctx)
	other.Unlock(ctx)
	// Output:
	// writing, token: 1
	// two readers of version: 1 1
	// a writer now: true
}

func ExampleSemaphore() {
	ctx := context.Background()
	store := locker.NewStore(memlocker.New())
	defer store.Close()
	encoders, err := store.Semaphore("encoders", 3)
	if err != nil {
		panic(err)
	}

	big, err := encoders.Acquire(ctx, 2) // a job that needs two slots
	if err != nil {
		panic(err)
	}
	small, err := encoders.Acquire(ctx, 1)
	if err != nil {
		panic(err)
	}
	_, err = encoders.TryAcquire(ctx, 1)
	fmt.Println("a fourth slot:", errors.Is(err, locker.ErrNotAcquired))

	st, _ := encoders.Inspect(ctx)
	fmt.Println("holders:", len(st.Holders), "of", st.Limit, "permits")
	big.Unlock(ctx)
	small.Unlock(ctx)
	// Output:
	// a fourth slot: true
	// holders: 2 of 3 permits
}
