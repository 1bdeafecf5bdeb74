package pglocker

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/distlock/distlock/driver"
)

// DefaultCallTimeout bounds each call of the backend unless WithCallTimeout
// sets another: a server that stopped answering would otherwise hold a call
// whose context has no deadline for as long as the connection lasts.
const DefaultCallTimeout = 5 * time.Second

// Backend is a driver.Backend over a pgx pool: leases in a table of a
// PostgreSQL database. It is safe for concurrent use.
type Backend struct {
	pool        *pgxpool.Pool
	ownPool     bool
	cut         func() error // closes an owned pool's connections (see dialer)
	table       table
	sql         statements
	callTimeout time.Duration

	// created is set once the table is known to exist (see run).
	createMu sync.Mutex
	created  bool

	// guard turns calls away after Close and lets Close wait for the calls
	// in flight; their contexts are bound to it, and pgx ends a query
	// whose context ends, so Close does not wait out a stalled server.
	guard driver.Guard

	listen *listener
}

var (
	_ driver.Backend       = (*Backend)(nil)
	_ driver.Notifier      = (*Backend)(nil)
	_ driver.Inspector     = (*Backend)(nil)
	_ driver.ForceUnlocker = (*Backend)(nil)
	_ driver.BatchExpirer  = (*Backend)(nil)
	_ driver.Endpointer    = (*Backend)(nil)
	_ driver.HoldUnlocker  = (*Backend)(nil)
)

// Option configures a Backend.
type Option func(*Backend) error

// WithTable keeps the leases in the named table ("name" or "schema.name",
// plain identifiers) instead of DefaultTable; its fencing tokens come from
// the sequence of the table's name and "_token". It fails with
// driver.ErrInvalid on a name that is not such an identifier.
func WithTable(name string) Option {
	return func(b *Backend) error {
		t, err := parseTable(name)
		if err != nil {
			return err
		}
		b.table = t
		return nil
	}
}

// WithCallTimeout bounds each call of the backend by d instead of
// DefaultCallTimeout. It fails with driver.ErrInvalid when d is not
// positive.
func WithCallTimeout(d time.Duration) Option {
	return func(b *Backend) error {
		if d <= 0 {
			return fmt.Errorf("pglocker: %w: non-positive call timeout %v", driver.ErrInvalid, d)
		}
		b.callTimeout = d
		return nil
	}
}

// New returns a Backend over pool, the caller's: Close leaves it open. The
// table is made on first use if it is missing (see Schema). New fails with
// driver.ErrInvalid when pool is nil or an option is invalid.
func New(pool *pgxpool.Pool, opts ...Option) (*Backend, error) {
	if pool == nil {
		return nil, fmt.Errorf("pglocker: %w: nil pool", driver.ErrInvalid)
	}
	t, err := parseTable(DefaultTable)
	if err != nil {
		return nil, err
	}
	b := &Backend{pool: pool, table: t, callTimeout: DefaultCallTimeout}
	for _, opt := range opts {
		if err := opt(b); err != nil {
			return nil, err
		}
	}
	b.sql = newStatements(b.table)
	b.listen = newListener(b)
	return b, nil
}

// Pool returns the pool the backend uses.
func (b *Backend) Pool() *pgxpool.Pool { return b.pool }

// Table returns the name of the backend's table.
func (b *Backend) Table() string { return b.table.name }

// Close implements driver.Backend: it ends the calls in flight (their
// outcome is unknown) and waits for them, stops the listening connection
// and, if the backend was opened from a URL, closes its pool, cutting its
// connections first so that a server that stopped answering does not hold
// Close up. Later calls return driver.ErrClosed. Locks stay until their
// leases end. Over a caller's pool, a call cut short leaves pgx to cancel
// it on the server in the background, which pgx bounds by 15 s.
func (b *Backend) Close() error {
	return b.guard.Close(b.cut, func() error {
		b.listen.stop()
		if b.ownPool {
			b.pool.Close()
		}
		return nil
	})
}

// call starts a call once the close guard lets it in, bounded by the call
// timeout and by Close. When call returns nil, the caller must end the
// call with End.
func (b *Backend) call(ctx context.Context) (context.Context, driver.Call, error) {
	return b.guard.Start(ctx, b.callTimeout)
}

// keyLock is the second key of the advisory lock TryLock takes on key.
func keyLock(key string) int32 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int32(h.Sum32())
}
