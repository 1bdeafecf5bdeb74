package redislocker

import (
	"fmt"
	"strings"
	"time"

	"github.com/distlock/distlock/driver"
)

// DefaultPrefix is the key prefix of a Backend made without WithPrefix.
const DefaultPrefix = "distlock"

// Option configures a Backend made by New.
type Option func(*config) error

type config struct {
	prefix      string
	replicas    int
	ackTimeout  time.Duration
	ownsClient  bool
	fenceLinger time.Duration
}

// WithPrefix puts the backend's keys and channels under prefix
// ("prefix:{name}"). Backends that share locks must use the same prefix.
// The prefix may be empty, but must not contain '{' or '}', which would
// break the hash tag that keeps a lock's keys in one Cluster slot; New then
// fails with ErrInvalid.
func WithPrefix(prefix string) Option {
	return func(c *config) error {
		if strings.ContainsAny(prefix, "{}") {
			return fmt.Errorf("%w: key prefix %q contains a brace", driver.ErrInvalid, prefix)
		}
		c.prefix = prefix
		return nil
	}
}

// WithReplicaAck makes every acquisition wait until at least n replicas
// have acknowledged it (Redis WAIT n timeout), so that a failover to one of
// those replicas keeps the lock. When fewer acknowledge within timeout,
// TryLock releases the hold it took and fails with an error wrapping
// ErrReplicaAck. timeout should be shorter than the client's ReadTimeout.
// New fails with ErrInvalid when n < 1 or timeout <= 0.
func WithReplicaAck(n int, timeout time.Duration) Option {
	return func(c *config) error {
		if n < 1 || timeout <= 0 {
			return fmt.Errorf("%w: replica acknowledgement needs n >= 1 and a positive timeout, not %d and %v",
				driver.ErrInvalid, n, timeout)
		}
		c.replicas, c.ackTimeout = n, timeout
		return nil
	}
}

// WithOwnedClient hands the client to the backend: Close closes it too.
// Without it Close leaves the client open for its owner.
func WithOwnedClient() Option {
	return func(c *config) error {
		c.ownsClient = true
		return nil
	}
}

// DefaultFenceLinger is how long a lock's fencing counter outlives the
// lock's last use, unless WithFenceLinger says otherwise.
const DefaultFenceLinger = 24 * time.Hour

// WithFenceLinger sets how long a lock's fencing counter is kept after the
// lock was last held (default DefaultFenceLinger). Inspect reports the last
// token for that long; after it the counter is gone, and the next token is
// taken from the server's clock, still above the earlier ones. New fails
// with ErrInvalid when d is shorter than a second.
func WithFenceLinger(d time.Duration) Option {
	return func(c *config) error {
		if d < time.Second {
			return fmt.Errorf("%w: fence linger %v is shorter than a second", driver.ErrInvalid, d)
		}
		c.fenceLinger = d
		return nil
	}
}
