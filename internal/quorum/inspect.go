package quorum

import (
	"context"
	"fmt"
	"time"

	"github.com/distlock/distlock/driver"
)

// inspect reads every target's state at once and combines them. The lock
// is held when one owner holds the needed members; its hold count and
// remaining lease are what the best needed of them have in common, and its
// token is the highest among them (the combined token, as every member
// that took part in the acquisition carries at most it). When not held, the
// token is the highest any fencing member reports.
func (e *engine) inspect(ctx context.Context, ts []target) (driver.State, error) {
	states, errs := fanout(ctx, ts, e.s.plain, func(ctx context.Context, i int) (driver.State, error) {
		return ts[i].inspector.Inspect(ctx, ts[i].key)
	}, nil)
	if err := firstInvalid(ts, errs); err != nil {
		return driver.State{}, fmt.Errorf("%s: %w", e.kind.name, err)
	}
	if e.share.Mode != 0 {
		return e.sharedState(ts, states, errs)
	}
	byOwner := make(map[string][]int)
	failed := 0
	best := ""
	for i, st := range states {
		switch {
		case errs[i] != nil:
			failed++
		case st.Held:
			byOwner[st.Owner] = append(byOwner[st.Owner], i)
			if len(byOwner[st.Owner]) > len(byOwner[best]) {
				best = st.Owner
			}
		}
	}
	if held := byOwner[best]; len(held) >= e.needed {
		return e.heldState(ts, states, best, held), nil
	}
	if len(byOwner[best])+failed >= e.needed {
		return driver.State{}, fmt.Errorf("%s: state unknown: %d members did not answer (%s)",
			e.kind.name, failed, memberErrors(ts, errs))
	}
	return driver.State{Token: combinedToken(ts, states, answering(errs))}, nil
}

// heldState is the state of a lock that owner holds on the members held.
func (e *engine) heldState(ts []target, states []driver.State, owner string, held []int) driver.State {
	holds := make([]int, len(held))
	remaining := make([]time.Duration, len(held))
	for j, i := range held {
		holds[j], remaining[j] = states[i].Holds, states[i].Remaining
	}
	return driver.State{
		Held:      true,
		Owner:     owner,
		Holds:     kthLargest(holds, e.needed),
		Remaining: kthLargest(remaining, e.needed),
		Token:     combinedToken(ts, states, held),
	}
}

// combinedToken is the highest token among the members idx whose tokens
// make up the combined token (tokenSource).
func combinedToken(ts []target, states []driver.State, idx []int) uint64 {
	var token uint64
	for _, i := range idx {
		if tokenSource(ts, i) {
			token = max(token, states[i].Token)
		}
	}
	return token
}

// answering returns the members whose call did not fail.
func answering(errs []error) []int {
	var idx []int
	for i, err := range errs {
		if err == nil {
			idx = append(idx, i)
		}
	}
	return idx
}

// forceUnlock deletes the lock on every target at once, whoever holds it.
// It reports whether the needed members held it, and fails when so many
// members did not answer that the lock may still be held.
func (e *engine) forceUnlock(ctx context.Context, ts []target) (bool, error) {
	held, errs := fanout(ctx, ts, e.s.plain, func(ctx context.Context, i int) (bool, error) {
		return ts[i].forcer.ForceUnlock(ctx, ts[i].key)
	}, nil)
	if err := firstInvalid(ts, errs); err != nil {
		return false, fmt.Errorf("%s: %w", e.kind.name, err)
	}
	nHeld, failed := 0, 0
	for i := range ts {
		switch {
		case errs[i] != nil:
			failed++
		case held[i]:
			nHeld++
		}
	}
	if failed >= e.needed {
		return nHeld >= e.needed, fmt.Errorf("%s: %d members did not answer and may still hold it (%s)",
			e.kind.name, failed, memberErrors(ts, errs))
	}
	return nHeld >= e.needed, nil
}

// tokenSource reports whether target i's tokens make up the combined token:
// the fencing members', or the only member's.
func tokenSource(ts []target, i int) bool {
	return ts[i].fencer != nil || len(ts) == 1
}
