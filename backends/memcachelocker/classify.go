package memcachelocker

import (
	"errors"
	"fmt"
	"net"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/driver"
)

// unsent classifies the error of one memcached command: a failed dial
// (refused, unreachable, timed out connecting) means the command was never
// sent, and wraps driver.ErrUnavailable; any other error is returned as it
// is. Only the commands of a call that come before its first write may use
// it: after a write, the call as a whole has done something, and its
// outcome is unknown however the next command fails.
func unsent(err error) error {
	var timeout *memcache.ConnectTimeoutError
	var op *net.OpError
	if errors.As(err, &timeout) || (errors.As(err, &op) && op.Op == "dial") {
		return fmt.Errorf("%w: cannot reach memcached, nothing was sent: %w", driver.ErrUnavailable, err)
	}
	return err
}
