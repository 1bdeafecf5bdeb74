package locker_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	_ "github.com/distlock/distlock/backends/etcdlocker"
	_ "github.com/distlock/distlock/backends/memcachelocker"
	_ "github.com/distlock/distlock/backends/memlocker"
	_ "github.com/distlock/distlock/backends/pglocker"
	_ "github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/locker"
)

// The URL fuzz targets open URLs with every real scheme registered, always
// with a context that is already cancelled: openers that would do I/O at
// open (etcd with credentials) return before it, and the others only make
// clients that connect lazily, so no input ever reaches the network. A
// backend that opens is closed at once.

// baseURLs are a valid URL of each real scheme, all on an unused loopback
// port; the fuzz targets add to them.
var baseURLs = []string{
	"mem://fuzz",
	"redis://127.0.0.1:1/0",
	"rediss://127.0.0.1:1/0",
	"redis+cluster://127.0.0.1:1,127.0.0.1:2",
	"rediss+cluster://127.0.0.1:1",
	"redis+sentinel://127.0.0.1:1/master",
	"rediss+sentinel://127.0.0.1:1,127.0.0.1:2/master/0",
	"etcd://127.0.0.1:1",
	"etcds://127.0.0.1:1,127.0.0.1:2/",
	"memcache://127.0.0.1:1",
	"postgres://127.0.0.1:1/db",
	"postgresql://u@127.0.0.1:1,127.0.0.1:2/db?sslmode=disable",
}

// cancelled is a context that has ended.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// open opens raw with a cancelled context, closes what opened, and checks
// the errors every Open must keep to: bad input is ErrInvalid, a valid URL
// fails at most because of the context.
func open(t *testing.T, raw string) error {
	t.Helper()
	b, err := locker.Open(cancelled(), raw)
	if err == nil {
		if b == nil {
			t.Fatalf("Open(%q) returned neither a backend nor an error", raw)
		}
		if cerr := b.Close(); cerr != nil {
			t.Errorf("closing the backend of %q: %v", raw, cerr)
		}
		return nil
	}
	if b != nil {
		t.Errorf("Open(%q) returned a backend and an error: %v", raw, err)
	}
	if !errors.Is(err, locker.ErrInvalid) && !errors.Is(err, context.Canceled) {
		t.Errorf("Open(%q): error is neither ErrInvalid nor the context's: %v", raw, err)
	}
	if !strings.HasPrefix(err.Error(), "distlock: open") {
		t.Errorf("Open(%q): error does not say it is Open's: %v", raw, err)
	}
	return err
}

// FuzzOpen opens arbitrary strings: Open never panics, and its errors are
// ErrInvalid or the context's.
func FuzzOpen(f *testing.F) {
	for _, u := range baseURLs {
		f.Add(u)
	}
	for _, s := range []string{
		"", "redis", "redis:", "redis://", "://x", "redis://[::1", "redis://h:p", "mem://a:1",
		"mem://a/b", "mem:opaque", "memcache://", "memcache://,", "etcd://a,,b", "etcds://h/?ca_file=",
		"redis+cluster://h/0", "redis+sentinel://h", "redis+sentinel://h/m/0/x", "redis://h/?db=x",
		"redis://h/?replica_ack=-1", "redis://h/?replica_ack_timeout=1s", "redis://h/?fence_linger=1ms",
		"redis://u:p@h:1/?password=p", "unknown://x", "REDIS://h:1", "redis://h:1/?dial_timeout=%zz",
		"redis://%00:1", "etcd://u:p@h:1/?dial_timeout=-1s", "memcache://h:1/?timeout=abc",
		"memcache://h:1/?prefix=a%20b", "redis://h:1#frag", "mem://x#f", "rediss://h:1/?skip_verify=true",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		_ = open(t, raw)
	})
}

// FuzzOpenHidesPassword opens URLs whose userinfo carries a password of
// fuzzed bytes, bracketed by a marker so that it is unmistakable: no error
// may contain it, raw or escaped.
func FuzzOpenHidesPassword(f *testing.F) {
	f.Add(uint8(1), "user", "hunter2", "")
	f.Add(uint8(1), "", "p@ss:w/rd?#", "?bogus=1")
	f.Add(uint8(2), "u", "x", "?skip_verify=maybe")
	f.Add(uint8(5), "u", "pw", "/")
	f.Add(uint8(5), "u", "pw", "/m/x/y")
	f.Add(uint8(7), "root", "pw", "?dial_timeout=zz")
	f.Add(uint8(8), "root", "pw", "?ca_file=/nonexistent")
	f.Add(uint8(9), "u", "pw", "")
	f.Add(uint8(0), "u", "pw", "")
	f.Add(uint8(3), "u", "pw", "/0")
	f.Add(uint8(1), "u", "pw%41", "?db=1&password=x")
	f.Add(uint8(1), "u", "\x00\xff", ":notaport")
	f.Fuzz(func(t *testing.T, scheme uint8, user, password, rest string) {
		const marker = "Zq7Pw"
		secret := marker + password + marker
		if strings.Contains(user, marker) || strings.Contains(rest, marker) {
			return // the error might echo them legitimately
		}
		base, err := url.Parse(baseURLs[int(scheme)%len(baseURLs)])
		if err != nil {
			t.Fatal(err)
		}
		raw := base.Scheme + "://" + url.UserPassword(user, secret).String() + "@" + base.Host + base.Path + rest
		err = open(t, raw)
		if err == nil {
			return
		}
		msg := err.Error()
		userinfo := url.UserPassword("", secret).String()[1:]
		for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), userinfo} {
			if strings.Contains(msg, form) {
				t.Fatalf("Open(%q): the error shows the password (%q): %v", raw, form, err)
			}
		}
	})
}

// FuzzOpenRejectsUnknownParams adds a parameter no scheme knows (its name
// starts with "zz") to a valid URL of each scheme: Open must fail with
// ErrInvalid, naming the parameter.
func FuzzOpenRejectsUnknownParams(f *testing.F) {
	for i := range baseURLs {
		f.Add(uint8(i), "", "1")
		f.Add(uint8(i), "x", "")
	}
	f.Add(uint8(1), "_timeout", "1s")
	f.Add(uint8(7), "prefix", "a")
	f.Add(uint8(9), " ", "%")
	f.Fuzz(func(t *testing.T, scheme uint8, name, value string) {
		base := baseURLs[int(scheme)%len(baseURLs)]
		if err := open(t, base); errors.Is(err, locker.ErrInvalid) {
			t.Fatalf("the base URL %q is invalid: %v", base, err)
		}
		sep := "?"
		if strings.Contains(base, "?") {
			sep = "&"
		}
		param := "zz" + name
		raw := base + sep + url.Values{param: {value}}.Encode()
		err := open(t, raw)
		if !errors.Is(err, locker.ErrInvalid) {
			t.Fatalf("Open(%q) = %v, want an error wrapping ErrInvalid for the unknown parameter", raw, err)
		}
		if !strings.Contains(err.Error(), "zz") {
			t.Errorf("Open(%q): the error does not name the parameter: %v", raw, err)
		}
	})
}
