package conformance

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// watcher is a WatchTurn, WatchTurns or Watch subscription that keeps what
// it hears: each turn (zero for a wake-up or a release; only its grant
// from WatchTurn). A nil *watcher is a subscription the backend cannot
// make: it hears nothing and expects nothing.
type watcher struct {
	calls chan driver.Turn
	stop  func()
}

// newWatcher subscribes through watch. The subscription stops at the end
// of the subtest if not before.
func newWatcher(t *testing.T, watch func(fn func(driver.Turn)) (func(), error)) *watcher {
	t.Helper()
	w := &watcher{calls: make(chan driver.Turn, 64)}
	stop, err := watch(func(turn driver.Turn) {
		select {
		case w.calls <- turn:
		default:
		}
	})
	require.NoError(t, err)
	w.stop = sync.OnceFunc(stop)
	t.Cleanup(w.stop)
	return w
}

// queueWatchers watch one key through one client: each waiter's turn, and,
// under "", the key's releases (nil when the backend has no release
// notification).
type queueWatchers map[string]*watcher

// watchQueue watches key's grants to each of owners, and its releases,
// through b. It then lets the calls a backend may make when a
// subscription becomes active go by, so that what expect hears afterwards
// is more likely the real thing.
func (s *suite) watchQueue(ctx context.Context, t *testing.T, b queueBackend, key string, owners ...string) queueWatchers {
	t.Helper()
	return s.watchTurns(ctx, t, b, key, owners, func(owner string, fn func(driver.Turn)) (func(), error) {
		return b.WatchTurn(ctx, key, owner, func(g driver.Grant) { fn(driver.Turn{Grant: g}) })
	})
}

// watchTurns is watchQueue with the turns of each owner watched through
// watchTurn.
func (s *suite) watchTurns(ctx context.Context, t *testing.T, b driver.Backend, key string, owners []string,
	watchTurn func(owner string, fn func(driver.Turn)) (func(), error)) queueWatchers {
	t.Helper()
	ws := queueWatchers{}
	if n, ok := b.(driver.Notifier); ok {
		ws[""] = newWatcher(t, func(fn func(driver.Turn)) (func(), error) {
			return n.Watch(ctx, key, func() { fn(driver.Turn{}) })
		})
	}
	for _, o := range owners {
		ws[o] = newWatcher(t, func(fn func(driver.Turn)) (func(), error) { return watchTurn(o, fn) })
	}
	settled := time.Now().Add(s.unit / 2)
	for _, w := range ws {
		select {
		case <-w.calls:
		case <-time.After(time.Until(settled)):
		}
	}
	for _, w := range ws {
		w.drain()
	}
	return ws
}

// expect waits for owner's turn watcher to be called, or, when owner is "",
// for the release watcher (if any), and returns what it heard: for a turn,
// the grant, or a zero Grant from a store that only wakes its waiters.
func (ws queueWatchers) expect(t *testing.T, owner, why string) driver.Grant {
	t.Helper()
	w, ok := ws[owner]
	require.True(t, ok || owner == "", "owner %q's turn is not watched", owner)
	return w.expect(t, why)
}

// expect waits for the watcher to be called, and returns the grant with
// the highest token among the calls heard by then.
func (w *watcher) expect(t *testing.T, why string) driver.Grant {
	t.Helper()
	if w == nil {
		return driver.Grant{}
	}
	var g driver.Grant
	select {
	case turn := <-w.calls:
		g = turn.Grant
	case <-time.After(notifyLimit):
		t.Fatalf("%s: the watcher was not called within %v", why, notifyLimit)
	}
	for {
		select {
		case more := <-w.calls:
			if more.Grant.Token > g.Token {
				g = more.Grant
			}
		default:
			return g
		}
	}
}

// drain forgets the calls heard so far.
func (w *watcher) drain() {
	for {
		select {
		case <-w.calls:
		default:
			return
		}
	}
}
