package torture

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/distlock/distlock/locker"
)

// lossyUnlockTimeout bounds an Unlock whose links are impaired: it fails
// soon, so that its Mutex is locked again while a hold the lost release
// left behind still lives on the store.
const lossyUnlockTimeout = 150 * time.Millisecond

// loseUnlock runs Unlock with some of the client's links impaired, so that
// its outcome is unknown to the client: cut (the release may never reach
// the server, which keeps the hold until its lease ends) or with replies
// stalled (the release runs, its reply is lost). On a RedLock it impairs
// from one member's link to all of them. The links heal as soon as Unlock
// returns, so that the client's next Lock, on the same Mutex, reaches the
// servers while a hold left behind is still there: the Mutex must give it
// back, not re-enter it with its old token.
func (r *run) loseUnlock(p *player, lease *locker.Lease) error {
	ps := r.links.of(p.id)
	rand.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	ps = ps[:1+rand.IntN(len(ps))]
	cut := 0
	for _, x := range ps {
		if rand.IntN(2) == 0 {
			x.Cut()
			cut++
		} else {
			x.StallReplies()
		}
	}
	r.strike("client %d unlocks with %d links cut and %d with replies stalled", p.id, cut, len(ps)-cut)
	ctx, cancel := context.WithTimeout(context.Background(), lossyUnlockTimeout)
	defer cancel()
	err := lease.Unlock(ctx)
	for _, x := range ps {
		x.Heal()
	}
	return err
}
