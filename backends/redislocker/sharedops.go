package redislocker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/distlock/distlock/driver"
)

// The operations of a view on the whole lock, or on its wait list: kept
// apart from the Backend methods in shared.go.

// Dequeue implements driver.Dequeuer: owner stops waiting (as a writer,
// or on a semaphore's wait list), which is announced on the lock's
// channel. A hold that owner took is left alone.
func (v *view) Dequeue(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	if err := v.b.guard.Enter(); err != nil {
		return err
	}
	defer v.b.guard.Exit()
	reply, err := v.dequeue.run(ctx, v.b.client, v.keys(key).own, owner, v.publish)
	if err == nil {
		_, err = replyInt(reply)
	}
	if err != nil {
		return v.b.failed(err)
	}
	return nil
}

// ForceUnlock implements driver.ForceUnlocker: every hold of key ends, in
// every mode, which is announced; waiters keep their places. It reports
// whether there was a hold.
func (v *view) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if err := driver.CheckKey(key); err != nil {
		return false, err
	}
	if err := v.b.guard.Enter(); err != nil {
		return false, err
	}
	defer v.b.guard.Exit()
	reply, err := v.forceUnlock.run(ctx, v.b.client, v.keys(key).own, v.publish)
	if err != nil {
		return false, v.b.failed(err)
	}
	n, err := replyInt(reply)
	if err != nil {
		return false, v.b.failed(err)
	}
	return n == 1, nil
}

// Fence implements driver.Fencer: it raises the token of owner's hold in
// the view's mode, and the lock's counter, to at least token; a read hold,
// which carries the counter, raises the counter alone. It returns
// ErrNotHeld, changing nothing, when owner has no such hold.
func (v *view) Fence(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckToken(key, owner, token); err != nil {
		return err
	}
	if err := v.b.guard.Enter(); err != nil {
		return err
	}
	defer v.b.guard.Exit()
	reply, err := sharedFenceScript.run(ctx, v.b.client, v.keys(key).held, v.mode, owner, strconv.FormatUint(token, 10))
	return v.classify(held(reply, err))
}

// Inspect implements driver.Inspector: the state of the whole lock, every
// mode and holder (sorted by owner, then mode), by the server's clock.
func (v *view) Inspect(ctx context.Context, key string) (driver.State, error) {
	if err := driver.CheckKey(key); err != nil {
		return driver.State{}, err
	}
	if err := v.b.guard.Enter(); err != nil {
		return driver.State{}, err
	}
	defer v.b.guard.Exit()
	reply, err := sharedInspectScript.run(ctx, v.b.client, v.keys(key).held)
	if err != nil {
		return driver.State{}, v.b.failed(err)
	}
	st, err := parseSharedState(reply)
	if err != nil {
		return driver.State{}, v.b.failed(err)
	}
	return st, nil
}

// holdToken reads the token hd keeps from the lock hash h: a write hold's
// "k", another hold's "k"+owner; 0 when it has none (a read hold taken by
// a release of this package that kept no token).
func holdToken(h map[string]string, hd driver.Holder) (uint64, error) {
	field := "k" + hd.Owner
	if hd.Mode == driver.Write {
		field = "k"
	}
	v, ok := h[field]
	if !ok {
		return 0, nil
	}
	token, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("malformed token of %q: %q", hd.Owner, v)
	}
	return token, nil
}

// modes maps the letters that name holds in the scripts to their modes.
var modes = map[byte]driver.Mode{'r': driver.Read, 'w': driver.Write, 'h': driver.Permits}

// parseSharedState reads the reply of sharedInspectSrc.
func parseSharedState(reply any) (driver.State, error) {
	r, err := replyArray(reply, 3)
	if err != nil {
		return driver.State{}, err
	}
	now, err := replyInt(r[0])
	fields, ok1 := r[1].([]any)
	live, ok2 := r[2].([]any)
	if err != nil || !ok1 || !ok2 || len(fields)%2 != 0 || len(live)%2 != 0 {
		return driver.State{}, fmt.Errorf("malformed script reply %v", reply)
	}
	h := make(map[string]string, len(fields)/2)
	for i := 0; i < len(fields); i += 2 {
		name, err1 := replyString(fields[i])
		value, err2 := replyString(fields[i+1])
		if err := errors.Join(err1, err2); err != nil {
			return driver.State{}, err
		}
		h[name] = value
	}
	var st driver.State
	if t, ok := h["t"]; ok {
		if st.Token, err = strconv.ParseUint(t, 10, 64); err != nil {
			return driver.State{}, fmt.Errorf("malformed token %q", t)
		}
	}
	inUse := false
	for i := 0; i < len(live); i += 2 {
		member, err1 := replyString(live[i])
		end, err2 := replyString(live[i+1])
		if err := errors.Join(err1, err2); err != nil || member == "" {
			return driver.State{}, fmt.Errorf("malformed lease %v", live[i])
		}
		inUse = true
		mode, ok := modes[member[0]]
		if !ok { // a waiter
			continue
		}
		ends, err3 := strconv.ParseFloat(end, 64)
		holds, err4 := strconv.Atoi(h[member])
		if err := errors.Join(err3, err4); err != nil {
			return driver.State{}, fmt.Errorf("malformed hold %q: %w", member, err)
		}
		hd := driver.Holder{Owner: member[1:], Mode: mode, Holds: holds, Remaining: remaining(int64(ends) - now)}
		if mode == driver.Permits {
			if hd.Permits, err = strconv.Atoi(h["p"+hd.Owner]); err != nil {
				return driver.State{}, fmt.Errorf("malformed permits of %q: %w", member, err)
			}
		}
		if hd.Token, err = holdToken(h, hd); err != nil {
			return driver.State{}, err
		}
		if mode == driver.Write {
			st.Owner, st.Holds = hd.Owner, hd.Holds
		}
		st.Held = true
		st.Remaining = max(st.Remaining, hd.Remaining)
		st.Holders = append(st.Holders, hd)
	}
	if l, ok := h["l"]; ok && inUse {
		if st.Limit, err = strconv.Atoi(l); err != nil {
			return driver.State{}, fmt.Errorf("malformed limit %q", l)
		}
	}
	slices.SortFunc(st.Holders, func(a, b driver.Holder) int {
		return cmp.Or(cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Mode, b.Mode))
	})
	return st, nil
}
