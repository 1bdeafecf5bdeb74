package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/distlock/distlock/locker"
)

// defaultGrace is how long a CMD whose lock was lost has between SIGTERM and
// SIGKILL.
const defaultGrace = 10 * time.Second

// runFlags are the flags of "run" beyond the backend's.
type runFlags struct {
	backendFlags
	wait     optionalDuration
	lease    optionalDuration
	watchdog time.Duration
	grace    time.Duration
	label    string
	verbose  bool
	read     bool // a read hold of a read-write lock
	write    bool // its write hold
	permits  int  // a permit of a semaphore of this many; 0: a mutex
}

func (a *app) run(ctx context.Context, args []string) int {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(a.helpOutput(args))
	f.register(fs)
	fs.Var(&f.wait, "wait", "give up when the lock is not acquired within `D` (0: one attempt; default: wait until interrupted)")
	fs.Var(&f.lease, "lease", "hold the lock for a fixed lease `D` (at least 10ms), not renewed: CMD is stopped when it runs out (default: a renewed lease, see --watchdog)")
	fs.DurationVar(&f.watchdog, "watchdog", locker.DefaultWatchdogLease, "lease `D` (at least 10ms) that is renewed every D/3 while CMD runs; a lost lock is noticed within D/3")
	fs.DurationVar(&f.grace, "grace", defaultGrace, "time `D` a CMD whose lock was lost has between SIGTERM and SIGKILL")
	fs.StringVar(&f.label, "label", "", "`TEXT` stored with the hold, shown by distlock status (default host:pid; at most 64 bytes)")
	fs.BoolVar(&f.verbose, "verbose", false, "report waiting, acquiring and releasing the lock on stderr")
	fs.BoolVar(&f.read, "read", false, "take a read hold of the read-write lock NAME: CMD runs beside other readers, never beside a --write run")
	fs.BoolVar(&f.write, "write", false, "take the write hold of the read-write lock NAME: CMD runs alone, and new readers wait while it waits")
	fs.IntVar(&f.permits, "permits", 0, "take one permit of the semaphore NAME of `N` permits: at most N CMDs run at once (every run on NAME must give the same N)")
	fs.Usage = func() { runUsage(fs) }

	name, cmd, err := parseRunArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		if !errors.Is(err, errFlagReported) {
			a.errorf("run: %v", err)
			fmt.Fprintln(a.stderr, "usage: distlock run [flags] NAME -- CMD [ARG...]   (distlock run --help)")
		}
		return exitUsage
	}
	if err := f.problem(); err != nil {
		a.errorf("run: %v", err)
		return exitUsage
	}

	// Signals interrupt the wait; once CMD runs they are forwarded to it.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	lease, store, code := a.acquire(ctx, &f, name, sigs)
	if code != exitOK {
		return code
	}
	defer store.Close()
	return a.supervise(lease, name, cmd, &f, sigs)
}

// errFlagReported is a flag error the flag package has already printed.
var errFlagReported = errors.New("flag error reported")

// parseRunArgs splits "run"'s arguments into flags, NAME and CMD. Flags may
// come before and after NAME; "--" ends them, and so does CMD's first word.
func parseRunArgs(fs *flag.FlagSet, args []string) (string, []string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", nil, err
		}
		return "", nil, errFlagReported
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return "", nil, errors.New("no lock NAME")
	}
	name, rest := rest[0], rest[1:]
	switch {
	case len(rest) > 0 && rest[0] == "--":
		rest = rest[1:]
	case len(rest) > 0 && strings.HasPrefix(rest[0], "-"):
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return "", nil, err
			}
			return "", nil, errFlagReported
		}
		rest = fs.Args()
	}
	if name == "" {
		return "", nil, errors.New("empty lock NAME")
	}
	if len(rest) == 0 {
		return "", nil, errors.New("no CMD to run")
	}
	return name, rest, nil
}

// problem returns what is wrong with the flags that need no store, or nil.
func (f *runFlags) problem() error {
	switch {
	case f.lease.set && f.lease.d < locker.MinLease:
		return fmt.Errorf("--lease %v: a fixed lease must be at least %v (leave --lease out for a renewed lease)", f.lease.d, locker.MinLease)
	case f.watchdog < locker.MinLease:
		return fmt.Errorf("--watchdog %v: the renewed lease must be at least %v", f.watchdog, locker.MinLease)
	case f.grace < 0:
		return errors.New("--grace must not be negative")
	case f.wait.set && f.wait.d < 0:
		return errors.New("--wait must not be negative")
	case f.lease.set && f.watchdog != locker.DefaultWatchdogLease:
		return errors.New("--lease (fixed) and --watchdog (renewed) exclude each other")
	case f.read && f.write:
		return errors.New("--read and --write exclude each other: a run takes one hold")
	}
	k := f.kind()
	return k.problem()
}

// kind is the lock the flags name.
func (f *runFlags) kind() kind {
	return kind{rw: f.read || f.write, read: f.read, permits: f.permits}
}

// lockOptions are the options of the Lock call the flags ask for.
func (f *runFlags) lockOptions() []locker.LockOption {
	var opts []locker.LockOption
	if f.wait.set {
		opts = append(opts, locker.WithWait(f.wait.d))
	}
	if f.lease.set {
		opts = append(opts, locker.WithLease(f.lease.d))
	}
	return opts
}

// optionalDuration is a duration flag that knows whether it was given.
type optionalDuration struct {
	d   time.Duration
	set bool
}

func (o *optionalDuration) String() string {
	if o == nil || !o.set {
		return ""
	}
	return o.d.String()
}

func (o *optionalDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	o.d, o.set = d, true
	return nil
}

// signalled is the cause of a wait ended by a signal.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "interrupted by " + s.sig.String() }

// exitStatusFor is the status for dying of, or being interrupted by, sig.
func exitStatusFor(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return exitSignalBase + int(s)
	}
	return exitSignalBase + 1
}
