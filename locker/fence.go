package locker

import (
	"context"
	"time"
)

// Fencer is an optional Backend capability that combinators (packages
// multilock and redlock) need to hand out fencing tokens that rise across
// several stores. Each store's counter rises on its own, so the highest
// token of a quorum is not monotonic by itself: a combinator takes the
// highest token its members granted and raises the other members to it
// before it returns the token.
type Fencer interface {
	// Fence raises the token of owner's hold on key to at least token, and
	// key's token counter with it: the key's next free-to-held transition on
	// this store gets a higher token, and a re-entry meanwhile returns the
	// raised token. A token already at or above token is left alone. If
	// owner does not hold key, Fence changes nothing and returns ErrNotHeld.
	Fence(ctx context.Context, key, owner string, token uint64) error
}

// FloorLocker is an optional Backend capability that spares combinators the
// second round Fencer needs: TryLockAbove is TryLock whose new token (on a
// free-to-held transition) is at least floor. A combinator passes every
// member the same floor, above the tokens they are likely to have handed
// out; the members whose counters are below it then all grant the floor,
// the tokens agree, and none needs raising. Where they do not agree, Fence
// still raises the lower ones.
type FloorLocker interface {
	TryLockAbove(ctx context.Context, key, owner string, ttl time.Duration, floor uint64) (Grant, error)
}
