package redislocker

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/driver"
)

// The URL schemes this package registers with locker.Open.
var schemes = []string{"redis", "rediss", "redis+cluster", "rediss+cluster", "redis+sentinel", "rediss+sentinel"}

func init() {
	for _, s := range schemes {
		driver.Register(s, openURL)
	}
}

// defaultAckTimeout is the replica_ack_timeout of a URL that sets only
// replica_ack.
const defaultAckTimeout = 100 * time.Millisecond

// forbiddenParams are go-redis parameters a URL may not use: credentials
// belong in the userinfo (which locker.Open redacts), and the master name
// and sentinel addresses in the path and host list.
var forbiddenParams = map[string]string{
	"password":          "put the password in the URL's userinfo",
	"username":          "put the user in the URL's userinfo",
	"sentinel_password": "make the client with redis.NewFailoverClient for password-protected sentinels",
	"sentinel_username": "make the client with redis.NewFailoverClient for password-protected sentinels",
	"master_name":       "name the master in the URL's path",
}

// openURL is the driver.Opener of every scheme of the package.
func openURL(_ context.Context, u *url.URL) (driver.Backend, error) {
	q := u.Query()
	opts, err := takeParams(q)
	if err != nil {
		return nil, fmt.Errorf("redislocker: %w", err)
	}
	files, err := takeTLSParams(u, q)
	if err != nil {
		return nil, fmt.Errorf("redislocker: %w", err)
	}
	client, err := newURLClient(u, q, files)
	if err != nil {
		return nil, fmt.Errorf("redislocker: %w: %s", driver.ErrInvalid, scrub(err, u))
	}
	b, err := New(client, append(opts, WithOwnedClient())...)
	if err != nil {
		_ = client.Close()
		return nil, err
	}
	return b, nil
}

// takeParams removes this package's parameters from q and returns the
// options they ask for.
func takeParams(q url.Values) ([]Option, error) {
	for name, why := range forbiddenParams {
		if q.Has(name) {
			return nil, fmt.Errorf("%w: parameter %q is not accepted: %s", driver.ErrInvalid, name, why)
		}
	}
	var opts []Option
	if q.Has("prefix") {
		opts = append(opts, WithPrefix(q.Get("prefix")))
		q.Del("prefix")
	}
	if q.Has("fence_linger") {
		d, err := time.ParseDuration(q.Get("fence_linger"))
		if err != nil {
			return nil, fmt.Errorf("%w: fence_linger: %v", driver.ErrInvalid, err)
		}
		opts = append(opts, WithFenceLinger(d))
		q.Del("fence_linger")
	}
	timeout := defaultAckTimeout
	if q.Has("replica_ack_timeout") {
		if !q.Has("replica_ack") {
			return nil, fmt.Errorf("%w: replica_ack_timeout without replica_ack", driver.ErrInvalid)
		}
		d, err := time.ParseDuration(q.Get("replica_ack_timeout"))
		if err != nil {
			return nil, fmt.Errorf("%w: replica_ack_timeout: %v", driver.ErrInvalid, err)
		}
		timeout = d
		q.Del("replica_ack_timeout")
	}
	if q.Has("replica_ack") {
		n, err := strconv.Atoi(q.Get("replica_ack"))
		if err != nil {
			return nil, fmt.Errorf("%w: replica_ack: %v", driver.ErrInvalid, err)
		}
		opts = append(opts, WithReplicaAck(n, timeout))
		q.Del("replica_ack")
	}
	return opts, nil
}

// newURLClient makes the go-redis client u describes; q is u's query less
// this package's parameters.
func newURLClient(u *url.URL, q url.Values, files tlsFiles) (redis.UniversalClient, error) {
	base, form, _ := strings.Cut(u.Scheme, "+")
	switch form {
	case "":
		v := *u
		v.Scheme, v.RawQuery = base, q.Encode()
		o, err := redis.ParseURL(v.String())
		if err != nil {
			return nil, err
		}
		if err := files.apply(o.TLSConfig); err != nil {
			return nil, err
		}
		o.Dialer = newURLDialer(o.TLSConfig, o.DialTimeout).dial
		o.ContextTimeoutEnabled = true
		return redis.NewClient(o), nil

	case "cluster":
		if strings.Trim(u.Path, "/") != "" {
			return nil, errors.New("a cluster URL has no path (no database numbers on a cluster)")
		}
		hosts, err := driver.Hosts(u, "6379")
		if err != nil {
			return nil, err
		}
		for _, h := range hosts[1:] {
			q.Add("addr", h)
		}
		v := url.URL{Scheme: base, User: u.User, Host: hosts[0], RawQuery: q.Encode()}
		o, err := redis.ParseClusterURL(v.String())
		if err != nil {
			return nil, err
		}
		if err := files.apply(o.TLSConfig); err != nil {
			return nil, err
		}
		o.Dialer = newURLDialer(o.TLSConfig, o.DialTimeout).dial
		o.ContextTimeoutEnabled = true
		return redis.NewClusterClient(o), nil

	case "sentinel":
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		if parts[0] == "" || len(parts) > 2 {
			return nil, errors.New("a sentinel URL's path is /master or /master/db")
		}
		hosts, err := driver.Hosts(u, "6379")
		if err != nil {
			return nil, err
		}
		q.Set("master_name", parts[0])
		for _, h := range hosts[1:] {
			q.Add("addr", h)
		}
		v := url.URL{Scheme: base, Host: hosts[0], RawQuery: q.Encode()}
		if len(parts) == 2 {
			v.Path = "/" + parts[1]
		}
		o, err := redis.ParseFailoverURL(v.String())
		if err != nil {
			return nil, err
		}
		if err := files.apply(o.TLSConfig); err != nil {
			return nil, err
		}
		o.Dialer = newURLDialer(o.TLSConfig, o.DialTimeout).dial
		if u.User != nil {
			o.Username = u.User.Username()
			o.Password, _ = u.User.Password()
		}
		o.ContextTimeoutEnabled = true
		return redis.NewFailoverClient(o), nil
	}
	return nil, fmt.Errorf("unknown scheme %q", u.Scheme)
}

// scrub returns err's text without u's password, in clear or escaped, and
// without the URL a url.Error quotes.
func scrub(err error, u *url.URL) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	if u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
			msg = strings.ReplaceAll(msg, url.QueryEscape(p), "xxxxx")
			msg = strings.ReplaceAll(msg, url.PathEscape(p), "xxxxx")
		}
	}
	return msg
}
