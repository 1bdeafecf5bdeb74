package etcdlocker

import (
	"context"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// revokeQueue bounds the leases waiting for the background revoker; when it
// is full, the caller revokes on its own path.
const revokeQueue = 1024

// background runs the backend's work off its callers' paths: granting
// shared leases ahead, retiring them, and revoking leases that no key uses
// any more. Its goroutines start with the first work and stop on Close.
type background struct {
	mu      sync.Mutex
	started bool
	stopped bool
	revokes chan clientv3.LeaseID
	wake    chan struct{} // the lease pool changed
	stop    chan struct{} // closed by Close
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// startLocked starts the goroutines unless they run or the backend closed.
// It reports whether they run. bg.mu must be held.
func (b *Backend) startLocked() bool {
	bg := &b.bg
	if bg.stopped {
		return false
	}
	if !bg.started {
		bg.started = true
		bg.revokes = make(chan clientv3.LeaseID, revokeQueue)
		bg.wake = make(chan struct{}, 1)
		bg.stop = make(chan struct{})
		bg.ctx, bg.cancel = context.WithCancel(context.Background())
		bg.wg.Go(b.revoker)
		bg.wg.Go(b.stocker)
	}
	return true
}

// poke asks the stocker to look at the lease pool.
func (b *Backend) poke() {
	bg := &b.bg
	bg.mu.Lock()
	defer bg.mu.Unlock()
	if b.startLocked() {
		select {
		case bg.wake <- struct{}{}:
		default:
		}
	}
}

// revokeLater revokes leases that no key uses in the background; when the
// queue is full or the backend closed it revokes them on ctx at once. A
// failed revocation only leaves a lease to run out.
func (b *Backend) revokeLater(ctx context.Context, ids ...clientv3.LeaseID) {
	for _, id := range ids {
		if id == clientv3.NoLease {
			continue
		}
		bg := &b.bg
		bg.mu.Lock()
		queued := false
		if b.startLocked() {
			select {
			case bg.revokes <- id:
				queued = true
			default:
			}
		}
		bg.mu.Unlock()
		if !queued {
			_, _ = b.cli.Revoke(ctx, id)
		}
	}
}

// unbound handles lease id after the key holding v was deleted or moved
// off it: a lease of the key's own is revoked, a shared one once the
// backend that granted it sees no key left on it.
func (b *Backend) unbound(ctx context.Context, v lockValue, id clientv3.LeaseID) {
	if v.shared {
		b.revokeLater(ctx, b.pool.unbind(id)...)
		return
	}
	b.revokeLater(ctx, id)
}

// unboundKV is unbound for kv, a lock's key as it was before a write of
// this backend deleted it or moved it to another lease.
func (b *Backend) unboundKV(ctx context.Context, kv *mvccpb.KeyValue) {
	if v, err := decodeValue(kv.Value); err == nil {
		b.unbound(ctx, v, clientv3.LeaseID(kv.Lease))
	}
}

// revoker revokes the queued leases until Close, then those still queued.
func (b *Backend) revoker() {
	bg := &b.bg
	for {
		select {
		case id := <-bg.revokes:
			b.revoke(id)
		case <-bg.stop:
			// Nothing is queued after stop closed (both happen under bg.mu).
			for {
				select {
				case id := <-bg.revokes:
					b.revoke(id)
				default:
					return
				}
			}
		}
	}
}

func (b *Backend) revoke(id clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(b.bg.ctx, b.callTimeout)
	defer cancel()
	_, _ = b.cli.Revoke(ctx, id)
}

// grantedLease is a lease just granted.
type grantedLease struct {
	id  clientv3.LeaseID
	ttl int64 // seconds, as granted
	// granted is the local time at the start of the grant call: the lease
	// lasts at least until granted plus ttl.
	granted time.Time
}

// grant grants a lease of asked seconds, noting the time the call started.
func (b *Backend) grant(ctx context.Context, asked int64) (grantedLease, error) {
	start := b.clock()
	resp, err := b.cli.Grant(ctx, asked)
	if err != nil {
		return grantedLease{}, err
	}
	b.noteGranted(asked, resp.TTL)
	return grantedLease{id: resp.ID, ttl: resp.TTL, granted: start}, nil
}

// stocker grants shared leases ahead for the lease lengths in demand,
// retires them when their window passes, and revokes those left idle,
// until Close.
func (b *Backend) stocker() {
	bg := &b.bg
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		revoke, next := b.pool.sweep(b.clock())
		if len(revoke) > 0 {
			ctx, cancel := context.WithTimeout(bg.ctx, b.callTimeout)
			b.revokeLater(ctx, revoke...)
			cancel()
		}
		wait := time.Duration(-1)
		if !next.IsZero() {
			wait = max(next.Sub(b.clock()), time.Millisecond)
		}
		for {
			asked, ok := b.pool.wanted(b.clock())
			if !ok {
				break
			}
			if !b.stockOne(asked) {
				// Try again a little later, or at the next attempt.
				if wait < 0 || wait > stockRetry {
					wait = stockRetry
				}
				break
			}
			wait = 0 // sweep again: the new lease has a window to watch
		}
		var wake <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			wake = timer.C
		}
		select {
		case <-bg.stop:
			return
		case <-bg.wake:
		case <-wake:
		}
	}
}

// stockOne grants a shared lease of asked seconds ahead. It reports
// whether the grant succeeded.
func (b *Backend) stockOne(asked int64) bool {
	ctx, cancel := context.WithTimeout(b.bg.ctx, b.callTimeout)
	defer cancel()
	gl, err := b.grant(ctx, asked)
	if err != nil {
		return false
	}
	kept, revoke := b.pool.add(asked, gl)
	if !kept {
		revoke = append(revoke, gl.id)
	}
	b.revokeLater(ctx, revoke...)
	return true
}

// stopBackground stops the goroutines, lets the revoker finish the queue,
// and revokes the shared leases no key is bound to, all within the call
// timeout.
func (b *Backend) stopBackground() {
	bg := &b.bg
	bg.mu.Lock()
	bg.stopped = true
	started := bg.started
	bg.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), b.callTimeout)
	defer cancel()
	if started {
		close(bg.stop)
		// The revoker's last revocations end with Close's time.
		quit := context.AfterFunc(ctx, bg.cancel)
		bg.wg.Wait()
		quit()
		bg.cancel()
	}
	for _, id := range b.pool.close() {
		_, _ = b.cli.Revoke(ctx, id)
	}
}
