package pglocker

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/distlock/distlock/driver"
)

// Reconnection backoff of the listening connection.
const (
	relistenMin = 50 * time.Millisecond
	relistenMax = 2 * time.Second
)

// closeTimeout bounds the goodbye to a server on a connection being closed.
const closeTimeout = time.Second

// listener is the backend's one listening connection (LISTEN on the table's
// channel), shared by every Watch: it calls the watchers of a key when a
// notification names it, and every watcher after it had to reconnect,
// since a release may have been missed meanwhile. It starts with the first
// Watch and runs until Close.
type listener struct {
	b *Backend

	mu       sync.Mutex
	watchers map[string]map[*driver.Callback]struct{} // by the key in hex, as notifications name it
	started  bool
	stopped  bool
	up       chan struct{} // closed while LISTEN is in effect
	cancel   context.CancelFunc
	done     chan struct{} // closed when run returns
}

func newListener(b *Backend) *listener {
	return &listener{b: b, watchers: make(map[string]map[*driver.Callback]struct{}), up: make(chan struct{})}
}

// add registers c for key and starts the connection if it is not running;
// it returns the channel closed once LISTEN is in effect.
func (l *listener) add(key string, c *driver.Callback) (<-chan struct{}, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return nil, false
	}
	if l.watchers[key] == nil {
		l.watchers[key] = make(map[*driver.Callback]struct{})
	}
	l.watchers[key][c] = struct{}{}
	if !l.started {
		l.started = true
		ctx, cancel := context.WithCancel(context.Background())
		l.cancel, l.done = cancel, make(chan struct{})
		go l.run(ctx)
	}
	return l.up, true
}

// remove stops c and forgets it.
func (l *listener) remove(key string, c *driver.Callback) {
	c.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.watchers[key], c)
	if len(l.watchers[key]) == 0 {
		delete(l.watchers, key)
	}
}

// stop ends the connection and waits for it, once, at Close.
func (l *listener) stop() {
	l.mu.Lock()
	l.stopped = true
	started := l.started
	l.mu.Unlock()
	if started {
		l.cancel()
		<-l.done
	}
}

// call calls the watchers of key, or every watcher when all is set,
// outside the listener's lock.
func (l *listener) call(key string, all bool) {
	l.mu.Lock()
	var cs []*driver.Callback
	for k, ws := range l.watchers {
		if all || k == key {
			for c := range ws {
				cs = append(cs, c)
			}
		}
	}
	l.mu.Unlock()
	for _, c := range cs {
		c.Call()
	}
}

// setUp records whether LISTEN is in effect.
func (l *listener) setUp(up bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.up:
		if !up {
			l.up = make(chan struct{})
		}
	default:
		if up {
			close(l.up)
		}
	}
}

// run keeps a listening connection until ctx ends, reconnecting with a
// backoff when it is lost: also after a connection that was lost soon
// after it was made, so that a server that drops every connection at once
// is not dialled in a loop.
func (l *listener) run(ctx context.Context) {
	defer close(l.done)
	wait := relistenMin
	pause := func() {
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, relistenMax)
	}
	for first := true; ctx.Err() == nil; {
		conn, err := l.connect(ctx)
		if err != nil {
			pause()
			continue
		}
		up := time.Now()
		l.setUp(true)
		if !first {
			l.call("", true) // releases while it was down may have been missed
		}
		first = false
		l.receive(ctx, conn)
		l.setUp(false)
		cctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		_ = conn.Close(cctx)
		cancel()
		if time.Since(up) < relistenMax {
			pause()
		} else {
			wait = relistenMin
		}
	}
}

// connect opens a connection of the pool's configuration, outside the
// pool, and listens on the table's channel.
func (l *listener) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, l.b.pool.Config().ConnConfig)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{l.b.table.channel}.Sanitize()); err != nil {
		cctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		_ = conn.Close(cctx)
		cancel()
		return nil, err
	}
	return conn, nil
}

// receive calls the watchers of each notification until the connection
// fails or ctx ends.
func (l *listener) receive(ctx context.Context, conn *pgx.Conn) {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return
		}
		l.call(n.Payload, false)
	}
}
