package redislocker

import (
	"context"
	"strconv"

	"github.com/distlock/distlock/driver"
)

// The Fence operation, for combinators (packages multilock and redlock):
// kept in a file of its own.

var _ driver.Fencer = (*Backend)(nil)

// fenceSrc: KEYS lock, fence; ARGV owner, token (decimal string), counter
// linger ms. Raises the fencing counter, which is also the token of the
// present hold, to the token if the owner holds the lock. Returns 1, or 0
// when the owner does not hold it. A counter it sets expires the linger
// after the lock's lease, as the other scripts keep it (see scripts.go).
const fenceSrc = `
local lock, fence = KEYS[1], KEYS[2]
if redis.call('HEXISTS', lock, ARGV[1]) == 0 then return 0 end
local have = tonumber(redis.call('GET', fence))
if not have or have < tonumber(ARGV[2]) then
	local keep = math.max(redis.call('PTTL', lock), 0) + tonumber(ARGV[3])
	redis.call('SET', fence, ARGV[2], 'PX', keep)
end
return 1
`

var fenceScript = newScript(fenceSrc)

// Fence implements driver.Fencer: it raises the fencing counter of key,
// which is the token of the present hold, to at least token, if owner holds
// key. It returns ErrNotHeld, changing nothing, otherwise.
func (b *Backend) Fence(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	if token == 0 {
		return driver.Invalid("zero fencing token")
	}
	if err := b.guard.Enter(); err != nil {
		return err
	}
	defer b.guard.Exit()
	k := b.keys(key)
	reply, err := fenceScript.run(ctx, b.client, k.pair, owner, strconv.FormatUint(token, 10), b.lingerArg)
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
