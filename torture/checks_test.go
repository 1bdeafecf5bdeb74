package torture

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// The checks must be able to fail: these tests run the torture harness on
// deliberately broken locks and expect it to catch them.

// grantAll is a broken lock that grants every attempt, held or not, with
// rising tokens.
type grantAll struct{ next *atomic.Uint64 }

func (g grantAll) TryLock(context.Context, driver.Request) (driver.Grant, error) {
	return driver.Grant{Acquired: true, Holds: 1, Token: g.next.Add(1)}, nil
}
func (grantAll) Unlock(context.Context, string, string) error                { return nil }
func (grantAll) Expire(context.Context, string, string, time.Duration) error { return nil }
func (grantAll) Close() error                                                { return nil }

// notifying is a lock with release notification.
type notifying interface {
	driver.Backend
	driver.Notifier
}

// retokened is a lock that excludes as the lock it wraps does but gives
// its grants the token that token makes of theirs. It passes on the
// wrapped lock's Backend methods and release notification, and no other
// capability (it names each method, where embedding the lock would pass
// them all).
type retokened struct {
	lock  notifying
	token func(uint64) uint64
}

var _ notifying = retokened{}

func (r retokened) TryLock(ctx context.Context, req driver.Request) (driver.Grant, error) {
	g, err := r.lock.TryLock(ctx, req)
	if g.Acquired {
		g.Token = r.token(g.Token)
	}
	return g, err
}

func (r retokened) Unlock(ctx context.Context, key, owner string) error {
	return r.lock.Unlock(ctx, key, owner)
}

func (r retokened) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	return r.lock.Expire(ctx, key, owner, ttl)
}

func (r retokened) Close() error { return r.lock.Close() }

func (r retokened) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	return r.lock.Watch(ctx, key, fn)
}

var (
	brokenExclusion = &config{name: "broken-exclusion", deploy: func(*testing.T) *deployment {
		next := new(atomic.Uint64)
		return &deployment{lease: redisLease, newBackend: func(*testing.T, *links, int) driver.Backend {
			return grantAll{next: next}
		}}
	}}
	// brokenTokens excludes correctly but hands out one token to every
	// holder.
	brokenTokens = brokenMem("broken-tokens", func(c *memlocker.Client) driver.Backend {
		return retokened{lock: c, token: func(uint64) uint64 { return 7 }}
	})
)

// brokenMem is a configuration whose clients share one mem store, each
// through a client that broken wraps.
func brokenMem(name string, broken func(c *memlocker.Client) driver.Backend) *config {
	return &config{name: name, deploy: func(*testing.T) *deployment {
		store := memlocker.NewStore()
		return &deployment{lease: redisLease, newBackend: func(*testing.T, *links, int) driver.Backend {
			return broken(store.Client())
		}}
	}}
}

// TestChecksCatchOverlaps: a lock that grants everyone overlaps, and its
// history is not a mutex's; fencing with rising tokens still turns the
// stale writes away.
func TestChecksCatchOverlaps(t *testing.T) {
	s := scenario{config: brokenExclusion, fault: noFault, exclusive: true}
	res := execute(t, brokenExclusion.deploy(t), s)
	if res.audit.overlaps == 0 {
		t.Error("no overlaps found on a lock that grants everyone")
	}
	if res.linOK {
		t.Error("the history of a lock that grants everyone passed the linearizability check")
	}
	path, ok := strings.CutPrefix(res.linMsg, "not linearizable; visualisation: ")
	if !ok {
		t.Fatalf("no visualisation: %s", res.linMsg)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("visualisation %s not written: %v", path, err)
	}
	_ = os.Remove(path)
	if res.audit.rejected == 0 || res.audit.staleAccepted != 0 {
		t.Errorf("rising tokens: %d writes rejected, %d stale accepted; want some rejected, none accepted",
			res.audit.rejected, res.audit.staleAccepted)
	}
}

// TestChecksCatchBadTokens: a lock whose tokens do not rise lets a paused
// holder's late write through; the audit counts the stale write and the
// token order, and the linearizability check fails.
func TestChecksCatchBadTokens(t *testing.T) {
	s := scenario{config: brokenTokens, fault: pauseFault, exclusive: true}
	res := execute(t, brokenTokens.deploy(t), s)
	if res.audit.badTokens == 0 {
		t.Error("no token-order violations found with one token for every holder")
	}
	if res.audit.staleAccepted == 0 {
		t.Error("no stale write accepted, though paused holders write late with the same token")
	}
	notLinearizable(t, res, "a lock whose tokens do not rise")
}

// notLinearizable fails the test unless the run's history, of what lock
// describes, failed the linearizability check; it removes the
// visualisation that the failure wrote.
func notLinearizable(t *testing.T, res result, lock string) {
	t.Helper()
	if res.linOK {
		t.Errorf("the history of %s passed the linearizability check", lock)
	}
	if path, ok := strings.CutPrefix(res.linMsg, "not linearizable; visualisation: "); ok {
		_ = os.Remove(path)
	}
}
