package driver

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Opener opens a Backend from a URL whose scheme it was registered for. It
// must reject query parameters it does not know, and must not put the URL's
// password into errors (use RedactURL).
type Opener func(ctx context.Context, u *url.URL) (Backend, error)

var openers = struct {
	sync.RWMutex
	byScheme map[string]Opener
}{byScheme: make(map[string]Opener)}

// Register makes a backend available to Open under scheme. Backend packages
// call it from init, so that importing one (for its side effect, as with
// database/sql drivers) makes its schemes available. It panics if scheme is empty, open is nil, or scheme is
// already registered.
func Register(scheme string, open Opener) {
	openers.Lock()
	defer openers.Unlock()
	if scheme == "" || open == nil {
		panic("distlock: Register needs a scheme and an opener")
	}
	if _, dup := openers.byScheme[scheme]; dup {
		panic("distlock: Register called twice for scheme " + scheme)
	}
	openers.byScheme[scheme] = open
}

// Schemes returns the registered URL schemes, sorted.
func Schemes() []string {
	openers.RLock()
	defer openers.RUnlock()
	schemes := make([]string, 0, len(openers.byScheme))
	for s := range openers.byScheme {
		schemes = append(schemes, s)
	}
	slices.Sort(schemes)
	return schemes
}

// Open returns the Backend a URL describes, through the opener registered
// for its scheme. An unknown scheme is an error that lists the known ones.
// Errors never contain the URL's password.
func Open(ctx context.Context, rawURL string) (Backend, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("distlock: open: %w: malformed URL: %v", ErrInvalid, redactParseError(err))
	}
	openers.RLock()
	open, ok := openers.byScheme[u.Scheme]
	openers.RUnlock()
	if !ok {
		return nil, fmt.Errorf("distlock: open %s: %w: unknown scheme %q (known: %s; forgotten import?)",
			RedactURL(u), ErrInvalid, u.Scheme, strings.Join(Schemes(), ", "))
	}
	if _, err := url.ParseQuery(u.RawQuery); err != nil {
		// Openers read u.Query(), which drops what it cannot parse.
		return nil, fmt.Errorf("distlock: open %s: %w: malformed query: %v", RedactURL(u), ErrInvalid, err)
	}
	b, err := open(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("distlock: open %s: %w", RedactURL(u), err)
	}
	return b, nil
}

// RedactURL returns u as text with its password masked, as url.URL.Redacted
// does, and the values of query parameters whose names mention a password
// masked too, for URLs that put one there by mistake. Openers and programs
// use it to name a URL in errors and logs.
func RedactURL(u *url.URL) string {
	q := u.Query()
	masked := false
	for name := range q {
		if strings.Contains(strings.ToLower(name), "password") {
			q[name] = []string{"xxxxx"}
			masked = true
		}
	}
	if !masked {
		return u.Redacted()
	}
	v := *u
	v.RawQuery = q.Encode()
	return v.Redacted()
}

// redactParseError drops the URL that url.Parse puts in its errors, since
// it may carry a password.
func redactParseError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// Hosts splits u's host, a comma-separated list ("a:2379,b:2379" or
// "a,b"), into host:port addresses, giving a host without a port
// defaultPort. It fails with ErrInvalid on an empty list, an empty entry,
// or an entry without a host name.
func Hosts(u *url.URL, defaultPort string) ([]string, error) {
	if u.Host == "" {
		return nil, Invalid("no host")
	}
	var hosts []string
	for h := range strings.SplitSeq(u.Host, ",") {
		if h == "" {
			return nil, Invalid(fmt.Sprintf("empty host in %q", u.Host))
		}
		host, port, err := net.SplitHostPort(h)
		if err != nil {
			host, port = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), defaultPort
		}
		if host == "" || port == "" {
			return nil, Invalid(fmt.Sprintf("host %q needs a name and a port", h))
		}
		hosts = append(hosts, net.JoinHostPort(host, port))
	}
	return hosts, nil
}
