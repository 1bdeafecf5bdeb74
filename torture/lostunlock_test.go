package torture

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/distlock/distlock/internal/tcpproxy"
	"github.com/distlock/distlock/locker"
)

// lossyUnlockTimeout bounds an Unlock whose links are impaired: it fails
// soon, so that its Mutex is locked again while a hold the lost release
// left behind still lives on the store.
const lossyUnlockTimeout = 150 * time.Millisecond

// lateHeal is how long after its Unlock returns a link whose requests
// were held back heals, delivering the release: long enough, mostly, for
// the client to have released again and locked again.
const lateHeal = 300 * time.Millisecond

// loseUnlock runs Unlock with some of the client's links impaired, so that
// its outcome is unknown to the client: cut (the release may never reach
// the server, which keeps the hold until its lease ends), with replies
// stalled (the release runs, its reply is lost), or with requests held
// back (the release reaches the server late, most likely after the
// client's next Lock on a new connection: it must not drop that later
// hold). On a RedLock it impairs from one member's link to all of them.
// The links heal as soon as Unlock returns, but for those holding back
// requests, which heal lateHeal later, so that the client's next Lock, on
// the same Mutex, reaches the servers while a hold left behind is still
// there: the Mutex must give it back, not re-enter it with its old token.
func (r *run) loseUnlock(p *player, lease *locker.Lease) error {
	ps := r.links.of(p.id)
	rand.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	ps = ps[:1+rand.IntN(len(ps))]
	var cut, stalled, late []*tcpproxy.Proxy
	for _, x := range ps {
		switch rand.IntN(3) {
		case 0:
			x.Cut()
			cut = append(cut, x)
		case 1:
			x.StallReplies()
			stalled = append(stalled, x)
		default:
			x.StallOpenRequests()
			late = append(late, x)
		}
	}
	r.strike("client %d unlocks with %d links cut, %d with replies stalled and %d with requests held back",
		p.id, len(cut), len(stalled), len(late))
	ctx, cancel := context.WithTimeout(context.Background(), lossyUnlockTimeout)
	defer cancel()
	err := lease.Unlock(ctx)
	for _, x := range append(cut, stalled...) {
		x.Heal()
	}
	for _, x := range late {
		r.heals.Go(func() {
			time.Sleep(lateHeal)
			x.Heal()
		})
	}
	return err
}
