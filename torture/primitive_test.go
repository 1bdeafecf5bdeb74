package torture

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// semaphorePermits is the number of permits of the semaphore the clients
// contend for; each hold takes one or two of them.
const semaphorePermits = 3

// primitive is a kind of lock the clients of a scenario contend for: the
// Store's Mutex, RWMutex or Semaphore. Every hold says what it takes as a
// driver.Share, which is what the checks judge it by: a mutex's hold is a
// write hold (a Write view is a mutex).
type primitive struct {
	name string
	// open returns a client's handle on the lock key, with no owner given
	// (WithOwner): the watchdog renews leases of the given length.
	open func(s *locker.Store, key string, lease time.Duration) (handle, error)
	// pick chooses what a hold takes. A hold that must write (a paused
	// one, which writes late with its token, and the next after a lost
	// write release) takes the write hold.
	pick func(write bool) driver.Share
}

// handle takes holds of one lock: sh is what the hold takes, as pick chose.
type handle interface {
	take(ctx context.Context, sh driver.Share, opts ...locker.LockOption) (*locker.Lease, error)
}

type mutexHandle struct{ *locker.Mutex }

func (m mutexHandle) take(ctx context.Context, _ driver.Share, opts ...locker.LockOption) (*locker.Lease, error) {
	return m.Lock(ctx, opts...)
}

type rwHandle struct{ *locker.RWMutex }

func (rw rwHandle) take(ctx context.Context, sh driver.Share, opts ...locker.LockOption) (*locker.Lease, error) {
	if sh.Mode == driver.Write {
		return rw.Lock(ctx, opts...)
	}
	return rw.RLock(ctx, opts...)
}

type semaphoreHandle struct{ *locker.Semaphore }

func (sm semaphoreHandle) take(ctx context.Context, sh driver.Share, opts ...locker.LockOption) (*locker.Lease, error) {
	return sm.Acquire(ctx, sh.Permits, opts...)
}

// Each open returns its error with a handle that nobody uses then.
var (
	mutexLock = &primitive{
		name: "mutex",
		open: func(s *locker.Store, key string, lease time.Duration) (handle, error) {
			m, err := s.Mutex(key, locker.WithWatchdogLease(lease))
			return mutexHandle{m}, err
		},
		pick: func(bool) driver.Share { return driver.Share{Mode: driver.Write} },
	}

	// rwLock: most holds read, one in four writes; the writes are
	// fenced, as a mutex's.
	rwLock = &primitive{
		name: "rw",
		open: func(s *locker.Store, key string, lease time.Duration) (handle, error) {
			rw, err := s.RWMutex(key, locker.WithWatchdogLease(lease))
			return rwHandle{rw}, err
		},
		pick: func(write bool) driver.Share {
			if write || rand.IntN(4) == 0 {
				return driver.Share{Mode: driver.Write}
			}
			return driver.Share{Mode: driver.Read}
		},
	}

	// semaphoreLock: every hold takes one or two of semaphorePermits.
	semaphoreLock = &primitive{
		name: "semaphore",
		open: func(s *locker.Store, key string, lease time.Duration) (handle, error) {
			sm, err := s.Semaphore(key, semaphorePermits, locker.WithWatchdogLease(lease))
			return semaphoreHandle{sm}, err
		},
		pick: func(bool) driver.Share {
			return driver.Share{Mode: driver.Permits, Limit: semaphorePermits, Permits: 1 + rand.IntN(2)}
		},
	}
)
