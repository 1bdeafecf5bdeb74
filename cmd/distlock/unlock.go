package main

import (
	"context"
	"errors"
	"flag"
)

func (a *app) unlock(ctx context.Context, args []string) int {
	var bf backendFlags
	var k kind
	fs := flag.NewFlagSet("unlock", flag.ContinueOnError)
	fs.SetOutput(a.helpOutput(args))
	bf.register(fs)
	k.registerInspect(fs)
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
	m, store, code := a.openLock(ctx, &bf, k, name)
	if code != exitOK {
		return code
	}
	defer store.Close()

	ctx, cancel := context.WithTimeout(ctx, bf.timeout)
	defer cancel()
	// Only to name the holder: a store that cannot be inspected, or does
	// not answer, leaves before empty and ForceUnlock says the rest.
	before, _ := m.inspect(ctx)
	held, err := m.force(ctx)
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
	switch {
	case before.Held && before.Owner != "":
		a.infof("broke lock %q held by %s (token %d)", name, before.Owner, before.Token)
	case before.Held:
		a.infof("broke lock %q held by %d holders (token %d)", name, len(before.Holders), before.Token)
	default:
		a.infof("broke lock %q", name)
	}
	return exitOK
}
