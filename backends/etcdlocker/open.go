package etcdlocker

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/distlock/distlock/driver"
)

// The URL schemes the package registers with locker.Open.
const (
	Scheme    = "etcd"
	SchemeTLS = "etcds"
)

// DefaultDialTimeout is how long a client opened from a URL waits for a
// connection, unless dial_timeout says otherwise.
const DefaultDialTimeout = 5 * time.Second

// defaultPort is etcd's client port, used when a host names none.
const defaultPort = "2379"

func init() {
	open := func(ctx context.Context, u *url.URL) (driver.Backend, error) {
		b, err := OpenURL(ctx, u)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	driver.Register(Scheme, open)
	driver.Register(SchemeTLS, open)
}

// OpenURL opens a Backend with a client of its own from a URL:
//
//	etcd://[user:password@]host[:port][,host[:port]...][/][?param=value&...]
//	etcds://... (TLS)
//
// Hosts default to port 2379. The user and password, if any, are etcd's
// authentication. Parameters:
//
//   - prefix: the prefix of lock keys (default DefaultPrefix; may be empty).
//   - dial_timeout: how long to wait for a connection (default 5s).
//   - ca_file, cert_file, key_file (etcds only): PEM files of the CA that
//     signs the servers' certificates (the system's roots otherwise), and of
//     a client certificate and its key (both or neither).
//
// Any other parameter, a path, or a host without a name is an error wrapping
// driver.ErrInvalid. Errors never contain the password. The backend owns
// its client and closes it on Close. The client connects lazily: an
// unreachable cluster shows at the first call.
func OpenURL(ctx context.Context, u *url.URL) (*Backend, error) {
	cfg, prefix, err := parseURL(u)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("etcdlocker: %w", err)
	}
	cli, err := clientv3.New(cfg)
	if refusedUser(err) {
		return nil, fmt.Errorf("etcdlocker: client for %v: %w: %s", cfg.Endpoints, driver.ErrInvalid, userAdvice(err))
	}
	if err != nil {
		return nil, fmt.Errorf("etcdlocker: client for %v: %w", cfg.Endpoints, err)
	}
	b, err := New(cli, WithPrefix(prefix))
	if err != nil {
		cli.Close()
		return nil, err
	}
	b.ownClient = true
	return b, nil
}

// urlParams are the query parameters OpenURL knows, and whether each needs
// TLS.
var urlParams = map[string]bool{
	"prefix":       false,
	"dial_timeout": false,
	"ca_file":      true,
	"cert_file":    true,
	"key_file":     true,
}

// parseURL turns a URL into a client configuration and a key prefix.
func parseURL(u *url.URL) (clientv3.Config, string, error) {
	bad := func(format string, args ...any) (clientv3.Config, string, error) {
		return clientv3.Config{}, "", fmt.Errorf("etcdlocker: %w: %s", driver.ErrInvalid, fmt.Sprintf(format, args...))
	}
	secure := false
	switch u.Scheme {
	case Scheme:
	case SchemeTLS:
		secure = true
	default:
		return bad("scheme %q is not %q or %q", u.Scheme, Scheme, SchemeTLS)
	}
	if u.Opaque != "" || (u.Path != "" && u.Path != "/") {
		return bad("an etcd URL has no path")
	}
	if u.Fragment != "" {
		return bad("an etcd URL has no fragment")
	}
	hosts, err := driver.Hosts(u, defaultPort)
	if err != nil {
		return clientv3.Config{}, "", fmt.Errorf("etcdlocker: %w", err)
	}
	httpScheme := "http"
	if secure {
		httpScheme = "https"
	}
	endpoints := make([]string, len(hosts))
	for i, h := range hosts {
		endpoints[i] = httpScheme + "://" + h
	}

	q := u.Query()
	var keys []string
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		needsTLS, known := urlParams[k]
		if !known {
			return bad("unknown parameter %q (known: %s)", k, knownParams())
		}
		if needsTLS && !secure {
			return bad("parameter %q needs the %q scheme", k, SchemeTLS)
		}
		if len(q[k]) != 1 {
			return bad("parameter %q given %d times", k, len(q[k]))
		}
	}

	cfg := clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: DefaultDialTimeout,
		Logger:      zap.NewNop(),
	}
	if u.User != nil {
		cfg.Username = u.User.Username()
		cfg.Password, _ = u.User.Password()
	}
	prefix := DefaultPrefix
	if q.Has("prefix") {
		prefix = q.Get("prefix")
	}
	if q.Has("dial_timeout") {
		d, err := time.ParseDuration(q.Get("dial_timeout"))
		if err != nil || d <= 0 {
			return bad("dial_timeout %q is not a positive duration", q.Get("dial_timeout"))
		}
		cfg.DialTimeout = d
	}
	if secure {
		tc, err := tlsConfig(q.Get("ca_file"), q.Get("cert_file"), q.Get("key_file"))
		if err != nil {
			return clientv3.Config{}, "", err
		}
		cfg.TLS = tc
	}
	return cfg, prefix, nil
}

// tlsConfig builds the client's TLS configuration from PEM files.
func tlsConfig(caFile, certFile, keyFile string) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("etcdlocker: %w: ca_file: %w", driver.ErrInvalid, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("etcdlocker: %w: ca_file %q holds no PEM certificate", driver.ErrInvalid, caFile)
		}
		tc.RootCAs = pool
	}
	if (certFile == "") != (keyFile == "") {
		return nil, fmt.Errorf("etcdlocker: %w: cert_file and key_file go together", driver.ErrInvalid)
	}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("etcdlocker: %w: client certificate: %w", driver.ErrInvalid, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

func knownParams() string {
	var names []string
	for k := range urlParams {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
