package redislocker

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/driver"
)

// failed gives an error from the server or the connection the package's
// name, once (the Store names the operation and the lock), classified by
// what it says of the call:
//   - a closed client never sent the command: ErrClosed;
//   - a refused password, a missing permission checked before the command
//     ran, a Cluster node reached as a standalone server, a server refusing
//     the client (protected mode) or a TLS mismatch: ErrInvalid, since no
//     retry fixes them and the command did not run;
//   - no connection could be made, so nothing was sent: ErrUnavailable;
//   - anything else may have run on the server: the outcome is unknown, and
//     the error wraps none of the sentinels.
func (b *Backend) failed(err error) error {
	if errors.Is(err, redis.ErrClosed) {
		return fmt.Errorf("redislocker: %w (%v)", driver.ErrClosed, err)
	}
	if errors.Is(err, driver.ErrInvalid) || errors.Is(err, driver.ErrUnavailable) {
		return fmt.Errorf("redislocker: %w", err)
	}
	if why := b.misconfigured(err); why != "" {
		return fmt.Errorf("redislocker: %w: %s (server said: %v)", driver.ErrInvalid, why, err)
	}
	if notSent(err) {
		return fmt.Errorf("redislocker: %w: cannot reach the server, nothing was sent: %w", driver.ErrUnavailable, err)
	}
	return fmt.Errorf("redislocker: outcome unknown: %w", err)
}

// misconfigured returns what the user must fix when err is a server reply
// refusing the command before it ran, or "" when it is not one.
func (b *Backend) misconfigured(err error) string {
	var re redis.Error
	if !errors.As(err, &re) {
		return ""
	}
	msg := re.Error()
	switch {
	case redis.HasErrorPrefix(err, "WRONGPASS"):
		return "authentication failed: the server refused the user or password; set them in the URL's userinfo (redis://user:password@host) or the client's Username and Password"
	case redis.HasErrorPrefix(err, "NOAUTH"), strings.Contains(msg, "Protocol error: unauthenticated"):
		// Redis answers a long command from a client that has not
		// authenticated with the protocol error rather than NOAUTH.
		return "authentication failed: the server requires a password; set it in the URL's userinfo (redis://user:password@host) or the client's Password"
	case redis.HasErrorPrefix(err, "NOPERM"):
		return "the user lacks a permission the backend needs (see the package doc for the minimal ACL)"
	case redis.HasErrorPrefix(err, "DENIED"):
		return "the server refuses this client"
	case redis.HasErrorPrefix(err, "DISTLOCKLAYOUT"):
		return "the lock's key holds a lock of an older distlock layout: old and new versions must not share a lock; let the old holders release it (or force-unlock it with the old version) first"
	case b.cluster == nil && (redis.HasErrorPrefix(err, "MOVED") || redis.HasErrorPrefix(err, "ASK") || redis.HasErrorPrefix(err, "CROSSSLOT")):
		return "the server is a Redis Cluster node: use redis+cluster:// (or a redis.ClusterClient)"
	}
	return ""
}

// notSent reports whether err shows that no connection could be had, so
// the command was never written: a failed dial, or no free connection in
// the pool. (go-redis never retries the scripts on a new connection, so a
// dial error is not the second try of a command that ran.)
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, redis.ErrPoolTimeout)
}
