package torture

import (
	"context"
	"testing"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// The checks of read-write locks and semaphores must be able to fail too:
// these tests run them on deliberately broken shared locks, each the mem
// store's with one rule broken, and expect them to catch it.

// brokenShares is a mem client whose shared-lock views pass through broken,
// which change the view sh describes: it returns the view it gets or one
// of its own.
type brokenShares struct {
	*memlocker.Client
	broken func(c *memlocker.Client, sh driver.Share) (driver.Backend, error)
}

func (b brokenShares) Share(sh driver.Share) (driver.Backend, error) { return b.broken(b.Client, sh) }

// brokenSharesOf is a configuration whose clients share one mem store
// through broken (see brokenShares).
func brokenSharesOf(name string, broken func(c *memlocker.Client, sh driver.Share) (driver.Backend, error)) *config {
	return brokenMem(name, func(c *memlocker.Client) driver.Backend { return brokenShares{Client: c, broken: broken} })
}

// readView passes a read-write lock's read view, made by c, to wrap, and
// any other view through unchanged.
func readView(c *memlocker.Client, sh driver.Share, wrap func(read driver.Backend) driver.Backend) (driver.Backend, error) {
	v, err := c.Share(sh)
	if err != nil || sh.Mode != driver.Read {
		return v, err
	}
	return wrap(v), nil
}

// blindReads is a broken read view: it takes its read holds on another
// lock, so readers never see the writers, but carries the lock's counter as
// a correct read does, so that only exclusion is broken.
type blindReads struct{ read driver.Backend }

// blind names the other lock the broken view takes read holds of.
func blind(key string) string { return key + "/blind" }

func (b blindReads) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	st, err := b.read.(driver.Inspector).Inspect(ctx, r.Key)
	if err != nil {
		return driver.Grant{}, err
	}
	r.Key = blind(r.Key)
	g, err := b.read.TryLock(ctx, r)
	if g.Acquired {
		g.Token = st.Token
	}
	return g, err
}

func (b blindReads) Unlock(ctx context.Context, key, owner string) error {
	return b.read.Unlock(ctx, blind(key), owner)
}

func (b blindReads) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	return b.read.Expire(ctx, blind(key), owner, ttl)
}

func (b blindReads) Close() error { return b.read.Close() }

var (
	// readersBesideWriters lets readers in beside writers (blindReads).
	readersBesideWriters = brokenSharesOf("broken-readers", func(c *memlocker.Client, sh driver.Share) (driver.Backend, error) {
		return readView(c, sh, func(read driver.Backend) driver.Backend { return blindReads{read} })
	})
	// versionlessReads excludes correctly but grants read holds with
	// token 0, as a store that lost its counter would: readers cannot tell
	// that they read an old version.
	versionlessReads = brokenSharesOf("broken-read-tokens", func(c *memlocker.Client, sh driver.Share) (driver.Backend, error) {
		return readView(c, sh, func(read driver.Backend) driver.Backend {
			return retokened{lock: read.(notifying), token: func(uint64) uint64 { return 0 }}
		})
	})
	// extraPermit keeps every semaphore with one permit more than it was
	// made with.
	extraPermit = brokenSharesOf("broken-permits", func(c *memlocker.Client, sh driver.Share) (driver.Backend, error) {
		if sh.Mode == driver.Permits {
			sh.Limit++
		}
		return c.Share(sh)
	})
)

// TestChecksCatchReadersBesideAWriter: readers let in beside a writer
// overlap it, and the history is not a read-write lock's.
func TestChecksCatchReadersBesideAWriter(t *testing.T) {
	res := executeBroken(t, readersBesideWriters, rwLock)
	if res.audit.overlaps == 0 {
		t.Error("no overlaps found on a read-write lock whose readers never see the writers")
	}
	notLinearizable(t, res, "a read-write lock whose readers never see the writers")
}

// TestChecksCatchStaleReads: read holds whose token is older than the last
// write before them are counted, and the history is not a read-write
// lock's.
func TestChecksCatchStaleReads(t *testing.T) {
	res := executeBroken(t, versionlessReads, rwLock)
	if res.audit.staleReads == 0 {
		t.Error("no stale reads found on a read-write lock whose reads carry token 0")
	}
	if res.audit.overlaps != 0 || res.audit.badTokens != 0 {
		t.Errorf("%d overlaps and %d bad write tokens on a lock that breaks only its read tokens",
			res.audit.overlaps, res.audit.badTokens)
	}
	notLinearizable(t, res, "a read-write lock whose reads carry token 0")
}

// TestChecksCatchAnExtraPermit: a semaphore that admits one permit more
// than it has overlaps, and its history is not a semaphore's.
func TestChecksCatchAnExtraPermit(t *testing.T) {
	res := executeBroken(t, extraPermit, semaphoreLock)
	if res.audit.overlaps == 0 {
		t.Errorf("no overlaps found on a semaphore of %d permits that admits %d", semaphorePermits, semaphorePermits+1)
	}
	notLinearizable(t, res, "a semaphore that admits a permit too many")
}

// executeBroken runs lock on the broken configuration c without a fault,
// as a scenario that promises exclusion.
func executeBroken(t *testing.T, c *config, lock *primitive) result {
	t.Helper()
	return execute(t, c.deploy(t), scenario{config: c, lock: lock, fault: noFault, exclusive: true})
}
