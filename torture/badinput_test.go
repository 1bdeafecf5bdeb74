package torture

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/backends/etcdlocker"
	_ "github.com/distlock/distlock/backends/memcachelocker"
	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/lockconfig"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
	"github.com/distlock/distlock/redlock"
)

// secret is the password of the server started with requirepass; wrong is
// a password that is not it. Neither may appear in any error.
const (
	secret = "s3cret-Hunter2-pw"
	wrong  = "wr0ng-Guess-pw"
)

// badEnv is what the bad-input cases run against: a plain Redis, one that
// requires a password, and an etcd.
type badEnv struct {
	plain *redistest.Server
	auth  *redistest.Server
	etcd  *etcdtest.Cluster
}

// badCase is one bad input. run returns the error the API gave (nil for
// none). Unless ok is set, the error must wrap sentinel (when set) or be
// none of locker's sentinels (unknownState), contain every msg, and never
// show a password. Afterwards no lock may be left on any server, and
// untouched cases may have left no key at all under their prefix.
type badCase struct {
	name         string
	sentinel     error
	unknownState bool
	msg          []string
	ok           bool
	untouched    bool
	run          func(t *testing.T, e *badEnv, prefix string) error
}

// redisBackend returns a backend on srv whose keys live under prefix.
func (e *badEnv) redisBackend(t *testing.T, srv *redistest.Server, password, prefix string) *redislocker.Backend {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), Password: password, ContextTimeoutEnabled: true, MaxRetries: -1})
	b, err := redislocker.New(c, redislocker.WithOwnedClient(), redislocker.WithPrefix(prefix), redislocker.WithFenceLinger(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// etcdBackend returns a backend on the etcd whose keys live under prefix.
func (e *badEnv) etcdBackend(t *testing.T, prefix string) (*etcdlocker.Backend, error) {
	t.Helper()
	cli, err := clientv3.New(etcdtest.ClientConfig(e.etcd.Endpoints()...))
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cli.Close() })
	b, err := etcdlocker.New(cli, etcdlocker.WithPrefix(prefix+"/"))
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = b.Close() })
	return b, nil
}

func (e *badEnv) url(srv *redistest.Server, prefix string) string {
	return fmt.Sprintf("redis://%s/0?prefix=%s", srv.Addr(), prefix)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// redisStore returns a Store over a backend on srv whose keys live under
// prefix.
func (e *badEnv) redisStore(t *testing.T, srv *redistest.Server, password, prefix string) *locker.Store {
	t.Helper()
	return store(t, e.redisBackend(t, srv, password, prefix))
}

// store returns a Store over b, closed (and b with it) when the test ends.
func store(t *testing.T, b driver.Backend) *locker.Store {
	t.Helper()
	s := locker.NewStore(b)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// mutex returns a Mutex for the lock name from s.
func mutex(t *testing.T, s *locker.Store, name string) *locker.Mutex {
	t.Helper()
	m, err := s.Mutex(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var badCases = []badCase{
	// The Mutex API.
	{name: "empty lock name", sentinel: locker.ErrInvalid, msg: []string{"empty lock name"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := e.redisStore(t, e.plain, "", p).Mutex("")
			return err
		}},
	{name: "nil driver", sentinel: locker.ErrInvalid, msg: []string{"nil driver"}, untouched: true,
		run: func(*testing.T, *badEnv, string) error {
			_, err := locker.NewStore(nil).Mutex("k")
			return err
		}},
	{name: "key without a store", sentinel: locker.ErrInvalid, msg: []string{"no store"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := locker.Keys([]locker.Key{{Store: e.redisStore(t, e.plain, "", p), Name: "a"}, {Name: "b"}})
			return err
		}},
	{name: "empty owner", sentinel: locker.ErrInvalid, msg: []string{"empty owner"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := e.redisStore(t, e.plain, "", p).Mutex("k", locker.WithOwner(""))
			return err
		}},
	{name: "zero watchdog lease", sentinel: locker.ErrInvalid, msg: []string{"non-positive watchdog lease"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := e.redisStore(t, e.plain, "", p).Mutex("k", locker.WithWatchdogLease(0))
			return err
		}},
	{name: "zero lease", sentinel: locker.ErrInvalid, msg: []string{"non-positive lease 0s"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := mutex(t, e.redisStore(t, e.plain, "", p), "k").Lock(testCtx(t), locker.WithLease(0))
			return err
		}},
	{name: "negative lease", sentinel: locker.ErrInvalid, msg: []string{"non-positive lease -1s"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := mutex(t, e.redisStore(t, e.plain, "", p), "k").TryLock(testCtx(t), locker.WithLease(-time.Second))
			return err
		}},
	{name: "negative wait", sentinel: locker.ErrInvalid, msg: []string{"negative wait"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := mutex(t, e.redisStore(t, e.plain, "", p), "k").TryLock(testCtx(t), locker.WithWait(-time.Millisecond))
			return err
		}},
	{name: "context already cancelled", sentinel: locker.ErrUnavailable, msg: []string{"context canceled"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := mutex(t, e.redisStore(t, e.plain, "", p), "k").Lock(ctx)
			if !errors.Is(err, context.Canceled) {
				return fmt.Errorf("want context.Canceled inside: %w", err)
			}
			return err
		}},
	{name: "non-positive extension", sentinel: locker.ErrInvalid, msg: []string{"non-positive lease 0s"},
		run: func(t *testing.T, e *badEnv, p string) error {
			m := mutex(t, e.redisStore(t, e.plain, "", p), "k")
			l, err := m.Lock(testCtx(t))
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			xerr := l.Extend(testCtx(t), 0)
			if held, err := m.HoldCount(testCtx(t)); err != nil || held != 1 {
				return fmt.Errorf("the rejected extension changed the lock: hold count %d, %v", held, err)
			}
			if err := l.Unlock(testCtx(t)); err != nil {
				return fmt.Errorf("unlock: %w", err)
			}
			return xerr
		}},
	{name: "unlock twice", sentinel: locker.ErrNotHeld, msg: []string{"unlock", "lock not held"},
		run: func(t *testing.T, e *badEnv, p string) error {
			l, err := mutex(t, e.redisStore(t, e.plain, "", p), "k").Lock(testCtx(t))
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			if err := l.Unlock(testCtx(t)); err != nil {
				return fmt.Errorf("first unlock: %w", err)
			}
			return l.Unlock(testCtx(t))
		}},
	{name: "extend after unlock", sentinel: locker.ErrNotHeld, msg: []string{"extend"},
		run: func(t *testing.T, e *badEnv, p string) error {
			l, err := mutex(t, e.redisStore(t, e.plain, "", p), "k").Lock(testCtx(t))
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			if err := l.Unlock(testCtx(t)); err != nil {
				return fmt.Errorf("unlock: %w", err)
			}
			return l.Extend(testCtx(t), time.Second)
		}},
	{name: "unlock after the lock was lost", sentinel: locker.ErrLost, msg: []string{"lock lost"},
		run: func(t *testing.T, e *badEnv, p string) error {
			s := e.redisStore(t, e.plain, "", p)
			m := mutex(t, s, "k")
			l, err := m.Lock(testCtx(t), locker.WithLease(200*time.Millisecond))
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			<-l.Done() // the fixed lease runs out
			other, err := mutex(t, s, "k").Lock(testCtx(t))
			if err != nil {
				return fmt.Errorf("another owner taking the lock: %w", err)
			}
			// The other hold is broken below; its Unlock stops its watchdog.
			defer func() { _ = other.Unlock(testCtx(t)) }()
			if _, err := m.ForceUnlock(testCtx(t)); err != nil {
				return fmt.Errorf("cleanup: %w", err)
			}
			err = l.Unlock(testCtx(t))
			if !errors.Is(err, locker.ErrNotHeld) {
				return fmt.Errorf("want ErrNotHeld inside too: %w", err)
			}
			return err
		}},
	{name: "use after Close", sentinel: locker.ErrClosed, msg: []string{"store closed"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			s := e.redisStore(t, e.plain, "", p)
			m := mutex(t, s, "k")
			if err := s.Close(); err != nil {
				return fmt.Errorf("close: %w", err)
			}
			_, err := m.Lock(testCtx(t))
			return err
		}},
	{name: "second goroutine, one attempt", sentinel: locker.ErrNotAcquired, msg: []string{"held by another goroutine"},
		run: func(t *testing.T, e *badEnv, p string) error {
			m := mutex(t, e.redisStore(t, e.plain, "", p), "k")
			l, err := m.Lock(testCtx(t))
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			defer func() { _ = l.Unlock(testCtx(t)) }()
			_, err = m.TryLock(testCtx(t))
			return err
		}},
	{name: "huge name (1 MiB) on Redis", sentinel: locker.ErrInvalid, msg: []string{"longer than MaxNameLen"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := e.redisStore(t, e.plain, "", p).Mutex(strings.Repeat("n", 1<<20))
			if err != nil && len(err.Error()) > 1024 {
				return fmt.Errorf("an error of %d bytes quotes the whole name", len(err.Error()))
			}
			return err
		}},
	{name: "huge name (2 MiB) on etcd", sentinel: locker.ErrInvalid, msg: []string{"longer than MaxNameLen"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			b, err := e.etcdBackend(t, p)
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			_, err = store(t, b).Mutex(strings.Repeat("n", 2<<20))
			return err
		}},
	{name: "name of MaxNameLen on Redis is fine", ok: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			l, err := mutex(t, e.redisStore(t, e.plain, "", p), strings.Repeat("n", locker.MaxNameLen)).Lock(testCtx(t))
			if err != nil {
				return err
			}
			return l.Unlock(testCtx(t))
		}},
	{name: "name of MaxNameLen on etcd is fine", ok: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			b, err := e.etcdBackend(t, p)
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			l, err := mutex(t, store(t, b), strings.Repeat("n", locker.MaxNameLen)).Lock(testCtx(t))
			if err != nil {
				return err
			}
			return l.Unlock(testCtx(t))
		}},
	{name: "name one byte over MaxNameLen", sentinel: locker.ErrInvalid, msg: []string{"1025 bytes"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := e.redisStore(t, e.plain, "", p).Mutex(strings.Repeat("n", locker.MaxNameLen+1))
			return err
		}},
	{name: "owner longer than 256 bytes", sentinel: locker.ErrInvalid, msg: []string{"owner of 257 bytes"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := e.redisStore(t, e.plain, "", p).Mutex("k", locker.WithOwner(strings.Repeat("o", 257)))
			return err
		}},
	{name: "lease of 1ns (shorter than any reply)", sentinel: locker.ErrInvalid, msg: []string{"lease 1ns is shorter than 10ms"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := mutex(t, e.redisStore(t, e.plain, "", p), "k").Lock(testCtx(t), locker.WithLease(time.Nanosecond))
			return err
		}},
	{name: "watchdog lease of 1ms", sentinel: locker.ErrInvalid, msg: []string{"watchdog lease 1ms is shorter than 10ms"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := e.redisStore(t, e.plain, "", p).Mutex("k", locker.WithWatchdogLease(time.Millisecond))
			return err
		}},
	{name: "lease below memcached's granularity", sentinel: locker.ErrInvalid, msg: []string{"shorter than 1s"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			s, err := locker.Open(testCtx(t), "memcache://127.0.0.1:1")
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			t.Cleanup(func() { _ = s.Close() })
			_, err = mutex(t, s, "k").TryLock(testCtx(t), locker.WithLease(500*time.Millisecond))
			return err
		}},

	// Backends and combinators.
	{name: "empty owner on a backend", sentinel: locker.ErrInvalid, msg: []string{"empty owner"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := e.redisBackend(t, e.plain, "", p).TryLock(testCtx(t), driver.Request{Key: "k", Owner: "", TTL: time.Second})
			return err
		}},
	{name: "nil Redis client", sentinel: locker.ErrInvalid, msg: []string{"nil client"}, untouched: true,
		run: func(*testing.T, *badEnv, string) error {
			_, err := redislocker.New(nil)
			return err
		}},
	{name: "Redis prefix with a brace", sentinel: locker.ErrInvalid, msg: []string{"brace"}, untouched: true,
		run: func(*testing.T, *badEnv, string) error {
			c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
			defer c.Close()
			_, err := redislocker.New(c, redislocker.WithPrefix("a{b"))
			return err
		}},
	{name: "RedLock of no members", sentinel: locker.ErrInvalid, msg: []string{"no members"}, untouched: true,
		run: func(*testing.T, *badEnv, string) error {
			_, err := redlock.New(nil)
			return err
		}},
	{name: "RedLock of one member", sentinel: locker.ErrInvalid, msg: []string{"one member", "at least two"}, untouched: true,
		run: func(*testing.T, *badEnv, string) error {
			_, err := redlock.New([]driver.Backend{memlocker.New()})
			return err
		}},
	{name: "RedLock with a nil member", sentinel: locker.ErrInvalid, msg: []string{"member 2 is nil"}, untouched: true,
		run: func(*testing.T, *badEnv, string) error {
			_, err := redlock.New([]driver.Backend{memlocker.New(), nil, memlocker.New()})
			return err
		}},
	{name: "RedLock with the same member twice", sentinel: locker.ErrInvalid, msg: []string{"member"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			b := e.redisBackend(t, e.plain, "", p)
			_, err := redlock.New([]driver.Backend{b, e.redisBackend(t, e.plain, "", p+"x"), b})
			return err
		}},
	{name: "RedLock with two clients of one mem store", sentinel: locker.ErrInvalid, msg: []string{"mem:"}, untouched: true,
		run: func(*testing.T, *badEnv, string) error {
			s := memlocker.NewStore()
			_, err := redlock.New([]driver.Backend{s.Client(), memlocker.New(), s.Client()})
			return err
		}},
	{name: "MultiLock of no members", sentinel: locker.ErrInvalid, msg: []string{"no members"}, untouched: true,
		run: func(*testing.T, *badEnv, string) error {
			_, err := multilock.New([]driver.Backend{})
			return err
		}},
	{name: "RedLock settings out of range", sentinel: locker.ErrInvalid, msg: []string{"member timeout"}, untouched: true,
		run: func(*testing.T, *badEnv, string) error {
			ms := []driver.Backend{memlocker.New(), memlocker.New(), memlocker.New()}
			for _, opt := range []combine.Option{combine.WithDriftFactor(0.7), combine.WithRestartGuard(-time.Second), combine.WithClock(nil)} {
				if _, err := redlock.New(ms, opt); !errors.Is(err, locker.ErrInvalid) {
					return fmt.Errorf("want ErrInvalid for a bad setting, got %v", err)
				}
			}
			_, err := redlock.New(ms, combine.WithMemberTimeout(0))
			return err
		}},

	// URLs and configuration.
	{name: "unknown scheme", sentinel: locker.ErrInvalid, msg: []string{`unknown scheme "nosuch"`, "redis", "etcd", "memcache", "mem"}, untouched: true,
		run: func(t *testing.T, _ *badEnv, _ string) error {
			_, err := locker.Open(testCtx(t), "nosuch://u:"+secret+"@127.0.0.1:1/")
			return err
		}},
	{name: "malformed URL", sentinel: locker.ErrInvalid, msg: []string{"malformed URL"}, untouched: true,
		run: func(t *testing.T, _ *badEnv, _ string) error {
			_, err := locker.Open(testCtx(t), "redis://u:"+secret+"@[::1")
			return err
		}},
	{name: "unknown URL parameter", sentinel: locker.ErrInvalid, msg: []string{"unexpected option: colour"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := locker.Open(testCtx(t), "redis://u:"+secret+"@"+e.plain.Addr()+"/?prefix="+p+"&colour=red")
			return err
		}},
	{name: "password in a query parameter", sentinel: locker.ErrInvalid, msg: []string{`"password" is not accepted`}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := locker.Open(testCtx(t), e.url(e.plain, p)+"&password="+secret)
			return err
		}},
	{name: "memcache URL with a user", sentinel: locker.ErrInvalid, msg: []string{"no users"}, untouched: true,
		run: func(t *testing.T, _ *badEnv, _ string) error {
			_, err := locker.Open(testCtx(t), "memcache://u:"+secret+"@127.0.0.1:1")
			return err
		}},
	{name: "lockconfig: the same URL twice", sentinel: locker.ErrInvalid, msg: []string{"same store"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			u := "redis://u:" + secret + "@" + e.plain.Addr() + "/0?prefix=" + p
			_, err := lockconfig.OpenSpec(testCtx(t), "redlock: "+u+" "+e.url(e.auth, p)+" "+u)
			return err
		}},
	{name: "lockconfig: unknown mode", sentinel: locker.ErrInvalid, msg: []string{`unknown mode "quorum"`}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := lockconfig.OpenSpec(testCtx(t), "quorum: "+e.url(e.plain, p))
			return err
		}},
	{name: "lockconfig: several URLs without a mode", sentinel: locker.ErrInvalid, msg: []string{"need a mode"}, untouched: true,
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := lockconfig.OpenSpec(testCtx(t), e.url(e.plain, p)+" "+e.url(e.auth, p))
			return err
		}},

	// Servers that refuse the client.
	{name: "wrong password", sentinel: locker.ErrInvalid, msg: []string{"authentication failed", "WRONGPASS"},
		run: func(t *testing.T, e *badEnv, p string) error {
			s, err := locker.Open(testCtx(t), "redis://default:"+wrong+"@"+e.auth.Addr()+"/0?prefix="+p)
			if err != nil {
				return fmt.Errorf("open: %w", err)
			}
			defer s.Close()
			_, err = mutex(t, s, "k").Lock(testCtx(t))
			return err
		}},
	{name: "no password where one is required", sentinel: locker.ErrInvalid, msg: []string{"authentication failed", "requires a password"},
		run: func(t *testing.T, e *badEnv, p string) error {
			_, err := mutex(t, e.redisStore(t, e.auth, "", p), "k").Lock(testCtx(t))
			return err
		}},
	{name: "nothing listening (connection refused)", sentinel: locker.ErrUnavailable, msg: []string{"trylock"},
		run: func(t *testing.T, e *badEnv, p string) error {
			s, err := locker.Open(testCtx(t), "redis://127.0.0.1:1/0?prefix="+p)
			if err != nil {
				return fmt.Errorf("open: %w", err)
			}
			defer s.Close()
			_, err = mutex(t, s, "k").TryLock(testCtx(t))
			return err
		}},
	{name: "TLS against a plain server", sentinel: locker.ErrInvalid, msg: []string{"does not speak TLS"},
		run: func(t *testing.T, e *badEnv, p string) error {
			s, err := locker.Open(testCtx(t), "rediss://"+e.plain.Addr()+"/0?prefix="+p+"&dial_timeout=300ms")
			if err != nil {
				return fmt.Errorf("open: %w", err)
			}
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
			defer cancel()
			_, err = mutex(t, s, "k").Lock(ctx)
			if ctx.Err() != nil {
				return fmt.Errorf("the TLS failure took the whole wait: %w", err)
			}
			return err
		}},
}

// TestBadInput runs every bad input against the API, the URL openers and
// the configuration: each gets a clear error and leaves nothing behind.
func TestBadInput(t *testing.T) {
	e := &badEnv{plain: redistest.Start(t), auth: redistest.Start(t), etcd: etcdtest.Start(t)}
	// redistest waits for PING, which a server started with requirepass
	// answers with NOAUTH: set the password once it runs.
	if _, err := e.auth.Do("CONFIG", "SET", "requirepass", secret); err != nil {
		t.Fatal(err)
	}
	for i, c := range badCases {
		t.Run(c.name, func(t *testing.T) {
			prefix := fmt.Sprintf("bad%d", i)
			err := c.run(t, e, prefix)
			switch {
			case c.ok:
				if err != nil {
					t.Errorf("valid input failed: %v", err)
				}
			case err == nil:
				t.Errorf("no error")
			default:
				t.Logf("error: %s", shorten(err.Error()))
				checkBadError(t, c, err)
			}
			checkNothingLeft(t, e, prefix, c.untouched)
		})
	}
}

// shorten cuts a long message (errors quote the lock's name, whole) for
// the log.
func shorten(s string) string {
	const limit = 400
	if len(s) <= limit {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:limit], len(s))
}

func checkBadError(t *testing.T, c badCase, err error) {
	t.Helper()
	if c.sentinel != nil && !errors.Is(err, c.sentinel) {
		t.Errorf("error does not wrap %v: %v", c.sentinel, err)
	}
	if c.unknownState && !locker.IsUnknown(err) {
		t.Errorf("error wraps a sentinel, but the outcome is unknown: %s", shorten(err.Error()))
	}
	for _, m := range c.msg {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error does not say %q: %s", m, shorten(err.Error()))
		}
	}
	for _, pw := range []string{secret, wrong} {
		if strings.Contains(err.Error(), pw) {
			t.Errorf("error shows a password: %s", shorten(err.Error()))
		}
	}
}

// checkNothingLeft checks that no server keeps a lock under prefix, and,
// for a case that never reached a server, no key at all.
func checkNothingLeft(t *testing.T, e *badEnv, prefix string, untouched bool) {
	t.Helper()
	for _, s := range []struct {
		srv      *redistest.Server
		password string
	}{{e.plain, ""}, {e.auth, secret}} {
		c := redis.NewClient(&redis.Options{Addr: s.srv.Addr(), Password: s.password})
		keys, err := c.Keys(context.Background(), prefix+":*").Result()
		if err != nil {
			t.Errorf("KEYS on %s: %v", s.srv.Addr(), err)
		}
		for _, k := range keys {
			typ, err := c.Type(context.Background(), k).Result()
			if err != nil {
				t.Errorf("TYPE %s: %v", k, err)
			}
			if untouched || typ == "hash" && heldMutex(t, s.srv.Addr(), s.password, prefix, k) {
				t.Errorf("left behind on %s: key %q (%s)", s.srv.Addr(), k, typ)
			}
		}
		_ = c.Close()
	}
}

// heldMutex reports whether the hash key is left held. A mutex's hash,
// "prefix:{name}", outlives its lease by the fencing counter's linger, so
// it is left behind only while held (the names of these cases need no
// escaping); any other hash (a shared lock's, a queue's) is left behind.
func heldMutex(t *testing.T, addr, password, prefix, key string) bool {
	t.Helper()
	name, tagged := strings.CutPrefix(key, prefix+":{")
	name, closed := strings.CutSuffix(name, "}")
	if !tagged || !closed || strings.ContainsAny(name, "{}") {
		return true
	}
	b, err := redislocker.New(redis.NewClient(&redis.Options{Addr: addr, Password: password}),
		redislocker.WithOwnedClient(), redislocker.WithPrefix(prefix))
	if err != nil {
		t.Errorf("a backend to inspect %q: %v", key, err)
		return true
	}
	defer b.Close()
	st, err := b.Inspect(context.Background(), name)
	if err != nil {
		t.Errorf("inspecting %q: %v", key, err)
		return true
	}
	return st.Held
}
