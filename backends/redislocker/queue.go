package redislocker

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/distlock/distlock/driver"
)

// The wait queue (driver.Queuer): see queueLua in scripts.go for how it is
// kept on the server.

var _ driver.Queuer = (*Backend)(nil)

// Dequeue implements driver.Queuer.
func (b *Backend) Dequeue(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	if err := b.guard.Enter(); err != nil {
		return err
	}
	defer b.guard.Exit()
	k := b.keys(key)
	reply, err := dequeueScript.run(ctx, b.client, k.queued, b.releaseArg(owner, 0))
	if err != nil {
		return b.failed(err)
	}
	if _, err := replyInt(reply); err != nil {
		return b.failed(err)
	}
	return nil
}

// WatchTurn implements driver.Queuer. Each waiter has a channel of its
// own, on the backend's shared pub/sub connection, and a grant's message
// is its token; fn is also called, with a zero Grant, each time that
// subscription becomes active. With WithReplicaAck a grant is the lock
// only once replicas have it, so fn is only woken (a zero Grant): the
// waiter's TryLock claims the grant and waits for the replicas.
func (b *Backend) WatchTurn(ctx context.Context, key, owner string, fn func(driver.Grant)) (stop func(), err error) {
	if err := driver.CheckOwner(key, owner); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, driver.Invalid("nil callback")
	}
	w := driver.NewTurnCallback(fn)
	if b.cfg.replicas > 0 {
		w = driver.NewTurnCallback(func(driver.Grant) { fn(driver.Grant{}) })
	}
	k := b.keys(key)
	return b.watchChannel(ctx, k.turns+owner, k.slot, w)
}

// turnOf reads a message on a turn channel (see queueLua and
// turnFormat); anything else is a wake-up.
func turnOf(payload string) driver.Turn {
	if len(payload) == 16 { // shortTurnFormat
		var r [2]int64
		if !wholeDoubles(payload, r[:]) || r[0] <= 0 {
			return driver.Turn{}
		}
		return driver.Turn{Grant: driver.Grant{Acquired: true, Holds: 1, Token: uint64(r[0]), Uptime: uptime(r[1])}}
	}
	const numbers = 7
	if len(payload) < 8*numbers+4 {
		return driver.Turn{}
	}
	var r [numbers]int64
	if !wholeDoubles(payload[:8*numbers], r[:]) || r[0] == 0 || r[2] < 0 || r[4] < 0 || r[5] < 0 || r[6] < 0 {
		return driver.Turn{}
	}
	next := payload[8*numbers:]
	if int(binary.LittleEndian.Uint32([]byte(next[:4]))) != len(next)-4 {
		return driver.Turn{}
	}
	var t driver.Turn
	switch {
	case r[0] > 0:
		t = driver.Turn{
			Grant:  driver.Grant{Acquired: true, Holds: 1, Token: uint64(r[0]), Uptime: uptime(r[1])},
			Floor:  uint64(r[2]),
			Passed: r[3] == 1,
		}
	case next[4:] == "":
		return driver.Turn{} // a notice names its waiter
	default:
		t.Behind = uint64(-r[0]) // a notice: the hold's token, negated
	}
	if owner := next[4:]; owner != "" {
		t.Next = driver.Successor{Owner: owner, TTL: time.Duration(r[4]) * time.Millisecond,
			Patience: time.Duration(r[5]) * time.Millisecond, Floor: uint64(r[6])}
	}
	return t
}
