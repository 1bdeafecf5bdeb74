package pglocker

import (
	"context"
	"net"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/distlock/distlock/driver"
)

// dialer makes the connections of a pool the backend owns and can close
// them all at once. A pgx connection whose query was cancelled asks the
// server to cancel it over a new connection and closes its own
// gracefully, each bounded by 15 s, and pgxpool's Close waits for that: on
// a server that stopped answering, Close would wait as long. Closing the
// connections underneath ends all of it at once.
type dialer struct {
	dial pgconn.DialFunc

	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
	closed bool
}

func newDialer(dial pgconn.DialFunc) *dialer {
	return &dialer{dial: dial, conns: make(map[*trackedConn]struct{})}
}

// DialContext is a pgconn.DialFunc; it refuses to dial once closeAll ran.
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return nil, driver.ErrClosed
	}
	c, err := d.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	t := &trackedConn{Conn: c, d: d}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		_ = c.Close()
		return nil, driver.ErrClosed
	}
	d.conns[t] = struct{}{}
	return t, nil
}

// closeAll closes every connection made and refuses new ones.
func (d *dialer) closeAll() error {
	d.mu.Lock()
	d.closed = true
	conns := d.conns
	d.conns = make(map[*trackedConn]struct{})
	d.mu.Unlock()
	for c := range conns {
		_ = c.Conn.Close()
	}
	return nil
}

// trackedConn is a connection the dialer forgets when it is closed.
type trackedConn struct {
	net.Conn
	d *dialer
}

func (c *trackedConn) Close() error {
	c.d.mu.Lock()
	delete(c.d.conns, c)
	c.d.mu.Unlock()
	return c.Conn.Close()
}
