package storetest

import (
	"context"
	"sync"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// Releases is a mem client that records how each of its releases, and its
// views', named its hold: by token (UnlockHold), or by owner alone
// (Unlock, recorded as 0).
type Releases struct {
	*memlocker.Client
	mu     sync.Mutex
	tokens []uint64
}

// NewReleases records the releases of c.
func NewReleases(c *memlocker.Client) *Releases { return &Releases{Client: c} }

func (r *Releases) record(token uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tokens = append(r.tokens, token)
}

// Unlock implements driver.Backend, recording 0.
func (r *Releases) Unlock(ctx context.Context, key, owner string) error {
	r.record(0)
	return r.Client.Unlock(ctx, key, owner)
}

// UnlockHold implements driver.HoldUnlocker, recording token.
func (r *Releases) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	r.record(token)
	return r.Client.UnlockHold(ctx, key, owner, token)
}

// Seen returns the tokens the releases named so far, in order.
func (r *Releases) Seen() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]uint64(nil), r.tokens...)
}

// memView is what a mem client's view implements.
type memView interface {
	driver.Backend
	driver.Notifier
	driver.Dequeuer
	driver.Inspector
	driver.ForceUnlocker
	driver.BatchExpirer
	driver.Fencer
	driver.HoldUnlocker
	driver.Granular
	driver.Endpointer
	driver.Clocked
}

// releasesView is a view of a Releases, recording its releases there.
type releasesView struct {
	memView
	r *Releases
}

// Share implements driver.Sharer: the client's view, whose releases are
// recorded with the client's.
func (r *Releases) Share(sh driver.Share) (driver.Backend, error) {
	v, err := r.Client.Share(sh)
	if err != nil {
		return nil, err
	}
	return releasesView{memView: v.(memView), r: r}, nil
}

func (v releasesView) Unlock(ctx context.Context, key, owner string) error {
	v.r.record(0)
	return v.memView.Unlock(ctx, key, owner)
}

func (v releasesView) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	v.r.record(token)
	return v.memView.UnlockHold(ctx, key, owner, token)
}
