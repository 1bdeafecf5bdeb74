package conformance

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// rwMutexCases are what a Store's RWMutex needs of the driver's read-write
// locks, in the order they run.
var rwMutexCases = []testCase{
	{"ReadersAndWriters", testRWMutexReadersAndWriters},
	{"WriterWokenByReadRelease", testRWMutexWriterWoken},
	{"Downgrade", testRWMutexDowngrade},
	{"LostLeaseClosesDone", testRWMutexLostLease},
}

// rwMutex returns an RWMutex on key from st.
func rwMutex(t *testing.T, st *locker.Store, key string, opts ...locker.MutexOption) *locker.RWMutex {
	t.Helper()
	rw, err := st.RWMutex(key, opts...)
	require.NoError(t, err)
	return rw
}

// rwResource is what a read-write lock protects. It counts the writers and
// readers inside it, and checks the tokens: each write's must exceed the
// last write's, and a read's must be at least the last write's, so that a
// reader never takes an older version for the one it reads. (A single
// store gives the read exactly the last write's token, which the driver
// cases check; through a combinator it may be higher, when a write attempt
// that took some members and then failed raised their counters.)
type rwResource struct {
	mu                sync.Mutex
	readers, writers  int
	mostReaders       int
	overlaps          int // a writer beside another writer or a reader
	lastWrite         uint64
	staleWrites, torn int // torn: a read whose token is older than the last write's
}

func (r *rwResource) write(token uint64, hold time.Duration) {
	r.mu.Lock()
	r.writers++
	if r.writers > 1 || r.readers > 0 {
		r.overlaps++
	}
	if token <= r.lastWrite {
		r.staleWrites++
	} else {
		r.lastWrite = token
	}
	r.mu.Unlock()
	time.Sleep(hold)
	r.mu.Lock()
	r.writers--
	r.mu.Unlock()
}

func (r *rwResource) read(token uint64, hold time.Duration) {
	r.mu.Lock()
	r.readers++
	r.mostReaders = max(r.mostReaders, r.readers)
	if r.writers > 0 {
		r.overlaps++
	}
	if token < r.lastWrite {
		r.torn++
	}
	r.mu.Unlock()
	time.Sleep(hold)
	r.mu.Lock()
	r.readers--
	r.mu.Unlock()
}

func testRWMutexReadersAndWriters(ctx context.Context, t *testing.T, s *suite) {
	const writers, readers, rounds = 2, 4, 5
	key := s.key(t, "")
	var r rwResource

	// Readers of two Stores share the lock.
	a, err := rwMutex(t, s.store(ctx, t), key).RLock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	b, err := rwMutex(t, s.store(ctx, t), key).RLock(ctx, locker.WithLease(s.long))
	require.NoError(t, err, "a second reader beside the first")
	assert.Equal(t, a.Token(), b.Token(), "readers of one version carry one token")
	require.NoError(t, a.Unlock(ctx))
	require.NoError(t, b.Unlock(ctx))

	var acquired atomic.Int32
	var wg sync.WaitGroup
	for i := range writers + readers {
		rw := rwMutex(t, s.store(ctx, t), key)
		wg.Go(func() {
			for range rounds {
				lock, use := rw.RLock, r.read
				if i < writers {
					lock, use = rw.Lock, r.write
				}
				l, err := lock(ctx, locker.WithLease(s.long))
				if !assert.NoError(t, err) {
					return
				}
				acquired.Add(1)
				use(l.Token(), time.Millisecond)
				assert.NoError(t, l.Unlock(ctx))
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, (writers+readers)*rounds, acquired.Load(), "acquisitions")
	assert.Zero(t, r.overlaps, "a writer was inside beside another holder")
	assert.Zero(t, r.staleWrites, "write tokens did not rise from writer to writer")
	assert.Zero(t, r.torn, "a read carried a token older than the last write's")
}

func testRWMutexWriterWoken(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	reader := rwMutex(t, s.store(ctx, t), key)
	writer := rwMutex(t, s.store(ctx, t), key)
	probe := rwMutex(t, s.store(ctx, t), key)

	held, err := reader.RLock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	w := startWaiter(t, "the waiting writer", func() (*locker.Lease, error) {
		return writer.Lock(ctx, locker.WithLease(s.long))
	})
	// The waiting writer holds off new readers.
	eventually(ctx, t, caseTimeout/3, "a new reader held off by the waiting writer", func() bool {
		l, err := probe.TryRLock(ctx, locker.WithLease(s.long))
		if err == nil {
			require.NoError(t, l.Unlock(ctx))
			return false
		}
		require.ErrorIs(t, err, driver.ErrNotAcquired)
		return true
	})
	_, err = reader.TryRLock(ctx, locker.WithLease(s.long))
	assert.ErrorIs(t, err, driver.ErrNotAcquired, "without WithOwner, the reader's RWMutex reads as a new owner: held off too")
	w.release()
	require.NoError(t, held.Unlock(ctx))
	// The reader's lease is s.long: a writer that only retries when it
	// would end fails this.
	l := w.acquired(t, "the waiting writer", s.long/4)
	assert.Greater(t, l.Token(), held.Token(), "the write token rises")
	require.NoError(t, l.Unlock(ctx))
}

func testRWMutexDowngrade(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	rw := rwMutex(t, s.store(ctx, t), key)
	other := rwMutex(t, s.store(ctx, t), key)

	w, err := rw.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	r, err := rw.Downgrade(ctx, w, locker.WithLease(s.long))
	require.NoError(t, err)
	select {
	case <-w.Done():
		assert.ErrorIs(t, w.Err(), locker.ErrReleased, "the write hold is released")
	default:
		t.Fatal("the write lease is still open after Downgrade")
	}
	assert.Equal(t, w.Token(), r.Token(), "the read hold carries the write's token")
	_, err = other.TryLock(ctx)
	assert.ErrorIs(t, err, driver.ErrNotAcquired, "the read hold keeps writers out")
	joined, err := other.TryRLock(ctx, locker.WithLease(s.long))
	require.NoError(t, err, "another reader joins the downgraded one")
	assert.Equal(t, w.Token(), joined.Token())
	require.NoError(t, joined.Unlock(ctx))
	require.NoError(t, r.Unlock(ctx))

	// A writer waiting through the Downgrade gets in only after the read
	// release: there was no moment the lock was free.
	w, err = rw.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	waiting := startWaiter(t, "a writer waiting through the Downgrade", func() (*locker.Lease, error) {
		return other.Lock(ctx, locker.WithLease(s.long))
	})
	time.Sleep(2 * s.unit)
	r, err = rw.Downgrade(ctx, w, locker.WithLease(s.long))
	require.NoError(t, err)
	time.Sleep(2 * s.unit)
	waiting.release()
	require.NoError(t, r.Unlock(ctx))
	require.NoError(t, waiting.acquired(t, "a writer waiting through the Downgrade", s.long/4).Unlock(ctx))
}

func testRWMutexLostLease(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	st := s.store(ctx, t)
	rw := rwMutex(t, st, key)
	r, err := rw.RLock(ctx, locker.WithLease(2*s.unit))
	require.NoError(t, err)
	select {
	case <-r.Done():
		assert.ErrorIs(t, r.Err(), locker.ErrLost)
	case <-time.After(s.expiryLimit(2 * s.unit)):
		t.Fatal("a read lease's Done did not close when it ran out")
	}
	assert.ErrorIs(t, r.Unlock(ctx), locker.ErrLost, "Unlock after the loss")

	// A read hold renewed by the watchdog, force-unlocked: the watchdog
	// finds it gone and says so.
	lease := 3 * s.unit
	watched := rwMutex(t, st, key, locker.WithWatchdogLease(lease))
	r, err = watched.RLock(ctx)
	require.NoError(t, err)
	held, err := rwMutex(t, s.store(ctx, t), key).ForceUnlock(ctx)
	if errors.Is(err, errors.ErrUnsupported) {
		require.NoError(t, r.Unlock(ctx))
		t.Skipf("the store cannot force-unlock: %v", err)
	}
	require.NoError(t, err)
	assert.True(t, held)
	select {
	case <-r.Done():
		assert.ErrorIs(t, r.Err(), locker.ErrLost)
	case <-time.After(s.expiryLimit(lease)):
		t.Fatal("a read lease's Done did not close after the lock was force-unlocked")
	}
	w, err := rw.TryLock(ctx, locker.WithLease(s.long))
	require.NoError(t, err, "the lock is free after the loss")
	require.NoError(t, w.Unlock(ctx))
}
