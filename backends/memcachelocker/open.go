package memcachelocker

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/driver"
)

// Scheme is the URL scheme the package registers with locker.Open.
const Scheme = "memcache"

// defaultPort is memcached's port, used when a host names none.
const defaultPort = "11211"

func init() {
	driver.Register(Scheme, func(ctx context.Context, u *url.URL) (driver.Backend, error) {
		b, err := OpenURL(ctx, u)
		if err != nil {
			return nil, err
		}
		return b, nil
	})
}

// urlConfig is what a memcache URL describes.
type urlConfig struct {
	servers      []string
	prefix       string
	timeout      time.Duration // 0: gomemcache's default
	maxIdleConns int           // 0: gomemcache's default
}

// OpenURL opens a Backend with a client of its own from a URL:
//
//	memcache://host[:port][,host[:port]...][/][?param=value&...]
//
// Hosts default to port 11211; with several, gomemcache spreads items over
// them by key. Parameters:
//
//   - prefix: the prefix of item keys (default DefaultPrefix).
//   - timeout: the client's timeout for each step (gomemcache's default,
//     500 ms, otherwise).
//   - max_idle_conns: idle connections kept per server (gomemcache's
//     default, 2, otherwise).
//
// Any other parameter, a path, user information or a host without a name is
// an error wrapping driver.ErrInvalid. The backend owns its client and
// closes it on Close. The client connects lazily: an unreachable server
// shows at the first call.
func OpenURL(ctx context.Context, u *url.URL) (*Backend, error) {
	cfg, err := parseURL(u)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memcachelocker: %w", err)
	}
	mc := memcache.New(cfg.servers...)
	mc.Timeout = cfg.timeout
	mc.MaxIdleConns = cfg.maxIdleConns
	b, err := New(mc, WithPrefix(cfg.prefix))
	if err != nil {
		return nil, err
	}
	b.ownClient = true
	return b, nil
}

// knownParams are the query parameters OpenURL knows.
var knownParams = []string{"max_idle_conns", "prefix", "timeout"}

func parseURL(u *url.URL) (urlConfig, error) {
	bad := func(format string, args ...any) (urlConfig, error) {
		return urlConfig{}, fmt.Errorf("memcachelocker: %w: %s", driver.ErrInvalid, fmt.Sprintf(format, args...))
	}
	if u.Scheme != Scheme {
		return bad("scheme %q is not %q", u.Scheme, Scheme)
	}
	if u.Opaque != "" || (u.Path != "" && u.Path != "/") {
		return bad("a memcache URL has no path")
	}
	if u.User != nil {
		return bad("memcached has no users; remove the user information")
	}
	if u.Fragment != "" {
		return bad("a memcache URL has no fragment")
	}
	servers, err := driver.Hosts(u, defaultPort)
	if err != nil {
		return urlConfig{}, fmt.Errorf("memcachelocker: %w", err)
	}
	cfg := urlConfig{prefix: DefaultPrefix, servers: servers}
	q := u.Query()
	for k, vs := range q {
		if !slices.Contains(knownParams, k) {
			return bad("unknown parameter %q (known: %s)", k, strings.Join(knownParams, ", "))
		}
		if len(vs) != 1 {
			return bad("parameter %q given %d times", k, len(vs))
		}
	}
	if q.Has("prefix") {
		cfg.prefix = q.Get("prefix")
		if err := validPrefix(cfg.prefix); err != nil {
			return urlConfig{}, err
		}
	}
	if q.Has("timeout") {
		d, err := time.ParseDuration(q.Get("timeout"))
		if err != nil || d <= 0 {
			return bad("timeout %q is not a positive duration", q.Get("timeout"))
		}
		cfg.timeout = d
	}
	if q.Has("max_idle_conns") {
		n, err := strconv.Atoi(q.Get("max_idle_conns"))
		if err != nil || n <= 0 {
			return bad("max_idle_conns %q is not a positive number", q.Get("max_idle_conns"))
		}
		cfg.maxIdleConns = n
	}
	return cfg, nil
}
