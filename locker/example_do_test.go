package locker_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/locker"
)

func ExampleMutex_Do() {
	ctx := context.Background()
	m, err := locker.NewStore(memlocker.New()).Mutex("reports/daily", locker.WithLabel("report-builder"))
	if err != nil {
		panic(err)
	}
	// Lock, run, unlock: the function's context ends if the lock is lost.
	err = m.Do(ctx, func(ctx context.Context) error {
		st, _ := m.Inspect(ctx)
		fmt.Println("held by:", st.Label)
		return nil
	})
	fmt.Println("error:", err)
	// Output:
	// held by: report-builder
	// error: <nil>
}

func ExampleLease_Context() {
	ctx := context.Background()
	m, err := locker.NewStore(memlocker.New()).Mutex("jobs/import")
	if err != nil {
		panic(err)
	}
	lease, err := m.Lock(ctx, locker.WithLease(50*time.Millisecond))
	if err != nil {
		panic(err)
	}
	work, cancel := lease.Context(ctx)
	defer cancel()
	<-work.Done() // the fixed lease runs out
	fmt.Println("lost:", errors.Is(context.Cause(work), locker.ErrLost))
	fmt.Println("unlock:", errors.Is(lease.Unlock(ctx), locker.ErrLost))
	// Output:
	// lost: true
	// unlock: true
}
