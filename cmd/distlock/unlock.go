package main

import (
	"context"
	"errors"
	"flag"

	"github.com/distlock/distlock/locker"
)

func (a *app) unlock(ctx context.Context, args []string) int {
	var bf backendFlags
	fs := flag.NewFlagSet("unlock", flag.ContinueOnError)
	fs.SetOutput(a.helpOutput(args))
	bf.register(fs)
	force := fs.Bool("force", false, "delete the lock whoever holds it (required)")
	fs.Usage = func() { unlockUsage(fs) }
	name, code := parseNameArgs(a, fs, "unlock", args)
	if code >= 0 {
		return code
	}
	if !*force {
		a.errorf("unlock: only --force is possible: distlock does not know the holder's identity, and a lock is released by its holder")
		return exitUsage
	}
	m, backend, code := a.openMutex(ctx, &bf, name)
	if code != exitOK {
		return code
	}
	defer backend.Close()

	ctx, cancel := context.WithTimeout(ctx, bf.timeout)
	defer cancel()
	var before locker.State
	if locker.Supports(m.Lockable(), locker.CapInspect) {
		before, _ = m.Inspect(ctx) // only to name the holder
	}
	held, err := m.ForceUnlock(ctx)
	if err != nil {
		a.errorf("%v", err)
		if errors.Is(err, errors.ErrUnsupported) {
			return exitUsage
		}
		return exitUnavailable
	}
	if !held {
		a.infof("lock %q was not held", name)
		return exitFree
	}
	if before.Held {
		a.infof("broke lock %q held by %s (token %d)", name, before.Owner, before.Token)
	} else {
		a.infof("broke lock %q", name)
	}
	return exitOK
}
