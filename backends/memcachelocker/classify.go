package memcachelocker

import (
	"errors"
	"fmt"
	"net"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/driver"
)

// failed gives an error of a call the package's name, once: the Store
// names the operation and the lock. ErrNotHeld and ErrClosed, which say all
// there is to say, are returned as they are, as are the kit's argument
// checks, which never reach failed.
func failed(err error) error {
	if err == nil || err == driver.ErrNotHeld || err == driver.ErrClosed {
		return err
	}
	return fmt.Errorf("memcachelocker: %w", err)
}

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
