package pglocker

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/distlock/distlock/driver"
)

// The URL schemes this package registers with driver.Register.
var schemes = []string{"postgres", "postgresql"}

func init() {
	for _, s := range schemes {
		driver.Register(s, openURL)
	}
}

// runtimeParams are the query parameters that pgx passes to the server as
// run-time settings and libpq knows as well; pgx would pass any unknown
// parameter the same way, so the others are refused as unknown.
var runtimeParams = []string{"application_name", "client_encoding", "options"}

// openURL opens "postgres://user:password@host:port/database?..." with
// pgx's own parsing (libpq's parameters and pgxpool's pool_* ones), less
// this package's: table and call_timeout. The backend owns its pool.
func openURL(ctx context.Context, u *url.URL) (driver.Backend, error) {
	q := u.Query()
	opts, err := takeParams(q)
	if err != nil {
		return nil, err
	}
	v := *u
	// pgx decodes a query as libpq does, where "+" is a plus sign, not
	// Encode's space.
	v.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	cfg, err := pgxpool.ParseConfig(v.String())
	if err != nil {
		return nil, fmt.Errorf("pglocker: %w: %s", driver.ErrInvalid, scrub(err, u))
	}
	var unknown []string
	for name := range q {
		if _, passed := cfg.ConnConfig.RuntimeParams[name]; passed && !slices.Contains(runtimeParams, name) {
			unknown = append(unknown, strconv.Quote(name))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, fmt.Errorf("pglocker: %w: unknown query parameter(s) %s (known: libpq's, pgxpool's pool_*, table, call_timeout)",
			driver.ErrInvalid, strings.Join(unknown, ", "))
	}
	d := newDialer(cfg.ConnConfig.DialFunc)
	cfg.ConnConfig.DialFunc = d.DialContext
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pglocker: %w: %s", driver.ErrInvalid, scrub(err, u))
	}
	b, err := New(pool, opts...)
	if err != nil {
		pool.Close()
		return nil, err
	}
	b.ownPool, b.cut = true, d.closeAll
	return b, nil
}

// takeParams removes this package's parameters from q and returns the
// options they ask for.
func takeParams(q url.Values) ([]Option, error) {
	var opts []Option
	if q.Has("table") {
		opts = append(opts, WithTable(q.Get("table")))
		q.Del("table")
	}
	if q.Has("call_timeout") {
		d, err := time.ParseDuration(q.Get("call_timeout"))
		if err != nil {
			return nil, fmt.Errorf("pglocker: %w: call_timeout: %v", driver.ErrInvalid, err)
		}
		opts = append(opts, WithCallTimeout(d))
		q.Del("call_timeout")
	}
	return opts, nil
}

// scrub returns err's text without u's password, in clear or escaped, and
// without the URL a url.Error quotes.
func scrub(err error, u *url.URL) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	var secrets []string
	if u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			secrets = append(secrets, p)
		}
	}
	for name, vs := range u.Query() {
		if strings.Contains(strings.ToLower(name), "password") {
			secrets = append(secrets, vs...)
		}
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for _, form := range []string{s, url.QueryEscape(s), url.PathEscape(s)} {
			msg = strings.ReplaceAll(msg, form, "xxxxx")
		}
	}
	return msg
}
