package redislocker

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/driver"
)

// tryLockAcked runs the trylock script with WAIT (see acked), releasing
// the hold through the unlock script.
func (b *Backend) tryLockAcked(ctx context.Context, key, owner string, k *keys, keyNames []any, args []any) (driver.Grant, error) {
	release := func(ctx context.Context) error { return b.unlockOnce(ctx, key, owner, 0) }
	return b.acked(ctx, k.lock, tryLockScript, keyNames, args, parseGrant, release)
}

// acked runs the acquiring script s and WAIT in one pipeline, so both go
// over the same connection: WAIT counts the replicas that have the writes
// of its own connection. On a Cluster the pipeline goes to the master of
// the slot of lock, one of the keys. parse reads the script's reply; a
// grant that too few replicas acknowledged is given back with release.
func (b *Backend) acked(ctx context.Context, lock string, s *script, keyNames []any, args []any,
	parse func(any) (driver.Grant, error), release func(context.Context) error) (driver.Grant, error) {
	var conn interface {
		Pipeline() redis.Pipeliner
	} = b.client
	if b.cluster != nil {
		master, err := b.cluster.MasterForKey(ctx, lock)
		if err != nil {
			return driver.Grant{}, b.failed(fmt.Errorf("finding the master of the lock's slot: %w", err))
		}
		conn = master
	}
	run := func(byHash bool) (onceCmd, *redis.IntCmd) {
		pipe := conn.Pipeline()
		cmd := s.command(ctx, byHash, keyNames, args...)
		_ = pipe.Process(ctx, cmd)
		wait := redis.NewIntCmd(ctx, "wait", b.cfg.replicas, millis(b.cfg.ackTimeout))
		_ = pipe.Process(ctx, wait)
		_, _ = pipe.Exec(ctx)
		return cmd, wait
	}
	cmd, wait := run(true)
	if isNoScript(cmd.Err()) {
		cmd, wait = run(false)
	}
	if err := cmd.Err(); err != nil {
		return driver.Grant{}, b.failed(err)
	}
	g, err := parse(cmd.Val())
	if err != nil {
		return driver.Grant{}, b.failed(err)
	}
	if !g.Acquired {
		return g, nil
	}
	acks, werr := wait.Result()
	if werr == nil && acks >= int64(b.cfg.replicas) {
		return g, nil
	}
	// The hold exists on the master but may not survive a failover: give
	// it back rather than hand out a lock that can vanish.
	var cause error
	if werr != nil {
		cause = fmt.Errorf("%w: WAIT failed: %w", ErrReplicaAck, werr)
	} else {
		cause = fmt.Errorf("%w: %d of %d replicas within %v", ErrReplicaAck, acks, b.cfg.replicas, b.cfg.ackTimeout)
	}
	if uerr := release(context.WithoutCancel(ctx)); uerr != nil {
		// uerr is left unclassified: a release that was not sent leaves
		// the hold in place, so the error must not read as ErrUnavailable.
		return driver.Grant{}, fmt.Errorf("%w; releasing it: %w", cause, uerr)
	}
	return driver.Grant{}, fmt.Errorf("%w (the hold was released)", cause)
}
