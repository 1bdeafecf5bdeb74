package redislocker

import (
	"context"
	"fmt"

	"github.com/distlock/distlock/driver"
)

// The Fence operation, for combinators (packages multilock and redlock):
// kept in a file of its own.

var _ driver.Fencer = (*Backend)(nil)

// fenceSrc: KEYS lock; ARGV struct.pack('<I8I8i4c0', token, counter
// linger ms, #owner, owner) (see packedarg.go). Raises the fencing
// counter, which is also the token of the present hold, to the token if
// the owner holds the lock. Returns 1, or 0 when the owner does not hold
// it. The counter is part of the lock's state, which
// outlives the lease by the linger (see scripts.go).
const fenceSrc = `
local lock = KEYS[1]
local token, linger, owner = struct.unpack('<I8I8i4c0', ARGV[1])
` + readLua + `
if not held or o ~= owner then return 0 end
if t >= token then return 1 end
t = token
` + saveLua + `
return 1
`

var fenceScript = newScript(fenceSrc)

// Fence implements driver.Fencer: it raises the fencing counter of key,
// which is the token of the present hold, to at least token, if owner holds
// key. It returns ErrNotHeld, changing nothing, otherwise, and ErrInvalid
// for a token above 2^53, which the scripts' numbers cannot count exactly.
func (b *Backend) Fence(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckToken(key, owner, token); err != nil {
		return err
	}
	if token > maxFloor {
		return fmt.Errorf("redislocker: %w: fencing token %d above %d", driver.ErrInvalid, token, uint64(maxFloor))
	}
	if err := b.guard.Enter(); err != nil {
		return err
	}
	defer b.guard.Exit()
	k := b.keys(key)
	reply, err := fenceScript.run(ctx, b.client, k.held, b.ownerArg(int64(token), owner))
	if err != nil {
		return b.failed(err)
	}
	ok, err := replyInt(reply)
	if err != nil {
		return b.failed(err)
	}
	if ok != 1 {
		return driver.ErrNotHeld
	}
	return nil
}
