package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/distlock/distlock/lockconfig"
	"github.com/distlock/distlock/locker"
)

// envBackend names the environment variable that gives the backend when no
// flag does: a spec as lockconfig.Parse reads it.
const envBackend = "DISTLOCK_BACKEND"

// defaultTimeout bounds opening the backend and each call to the store that
// is not a wait for the lock.
const defaultTimeout = 10 * time.Second

// backendFlags are the flags that choose the lock store.
type backendFlags struct {
	urls      urlList
	redlock   bool
	multilock bool
	config    string
	timeout   time.Duration
	// memberTimeout and restartGuard are combinator settings; "" keeps
	// the configuration's.
	memberTimeout string
	restartGuard  string
}

// urlList is a repeatable string flag.
type urlList []string

func (l *urlList) String() string     { return strings.Join(*l, " ") }
func (l *urlList) Set(s string) error { *l = append(*l, s); return nil }

func (f *backendFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.urls, "backend", "lock store `URL`; repeat it for a MultiLock or RedLock (default $"+envBackend+")")
	fs.BoolVar(&f.redlock, "redlock", false, "lock a majority of the --backend stores (RedLock)")
	fs.BoolVar(&f.multilock, "multilock", false, "lock all of the --backend stores (MultiLock)")
	fs.StringVar(&f.config, "config", "", "read the stores from `FILE` (JSON, or a list of URLs after an optional \"redlock:\" or \"multilock:\" line)")
	fs.DurationVar(&f.timeout, "timeout", defaultTimeout, "bound `D` on connecting and on each store call other than the wait")
	fs.StringVar(&f.memberTimeout, "member-timeout", "", "bound `D` on each member call of a MultiLock or RedLock (default: scales with the lease)")
	fs.StringVar(&f.restartGuard, "restart-guard", "", "a RedLock member whose store restarted less than `D` ago does not count (default 30s, or the lease if longer; 0s: off)")
}

// resolve returns the configuration the flags and environment describe.
// Flags win over the environment; --backend and --config exclude each other.
func (f *backendFlags) resolve(getenv func(string) string) (lockconfig.Config, error) {
	if f.redlock && f.multilock {
		return lockconfig.Config{}, usageError("--redlock and --multilock exclude each other")
	}
	if f.timeout <= 0 {
		return lockconfig.Config{}, usageError("--timeout must be positive")
	}
	var c lockconfig.Config
	var err error
	switch {
	case len(f.urls) > 0 && f.config != "":
		return c, usageError("--backend and --config exclude each other")
	case len(f.urls) > 0:
		c = lockconfig.Config{URLs: f.urls}
	case f.config != "":
		c, err = lockconfig.Load(f.config)
	case getenv(envBackend) != "":
		c, err = lockconfig.Parse(getenv(envBackend))
		if err != nil {
			err = fmt.Errorf("$%s: %w", envBackend, err)
		}
	default:
		return c, usageError("no lock store: give --backend URL or set $" + envBackend)
	}
	if err != nil {
		return c, usageError(err.Error())
	}
	if mode := f.mode(); mode != "" {
		if c.Mode != "" && c.Mode != lockconfig.Single && c.Mode != mode {
			return c, usageError(fmt.Sprintf("--%s contradicts the configured mode %q", mode, c.Mode))
		}
		c.Mode = mode
	}
	if f.memberTimeout != "" {
		c.MemberTimeout = f.memberTimeout
	}
	if f.restartGuard != "" {
		c.RestartGuard = f.restartGuard
	}
	if err := c.Validate(); err != nil {
		return c, usageError(err.Error())
	}
	return c, nil
}

// mode returns the mode the flags ask for, or "".
func (f *backendFlags) mode() lockconfig.Mode {
	switch {
	case f.redlock:
		return lockconfig.RedLock
	case f.multilock:
		return lockconfig.MultiLock
	}
	return ""
}

// open resolves the flags and opens the Store they describe, the one Store
// of the run. It returns the exit status to use when it fails.
func (f *backendFlags) open(ctx context.Context, a *app) (*locker.Store, int) {
	c, err := f.resolve(a.getenv)
	if err != nil {
		a.errorf("%v", err)
		return nil, exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	s, err := lockconfig.Open(ctx, c)
	switch {
	case errors.Is(err, locker.ErrInvalid):
		a.errorf("%v", err)
		return nil, exitUsage
	case err != nil:
		a.errorf("%v", err)
		return nil, exitUnavailable
	}
	return s, exitOK
}

// usageError is a mistake in the command line or configuration.
type usageError string

func (e usageError) Error() string { return string(e) }
