package quorum

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestFanoutSharesTheRoundsContext: calls whose bounds are close share one
// context, so that a round costs one timer and one watcher of the caller's
// context, not one per call.
func TestFanoutSharesTheRoundsContext(t *testing.T) {
	ts := []target{{rtt: new(rtt)}, {rtt: new(rtt)}, {rtt: new(rtt)}}
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctxs, _ := fanout(parent, ts, func(*rtt) time.Duration { return time.Second },
		func(ctx context.Context, i int) (context.Context, error) { return ctx, nil }, nil)
	assert.Same(t, ctxs[0], ctxs[1])
	assert.Same(t, ctxs[0], ctxs[2])
}

// TestFanoutCutsEachCallAtItsOwnBound: a member with a shorter bound than
// the round's longest is still cut at its own.
func TestFanoutCutsEachCallAtItsOwnBound(t *testing.T) {
	short, long := new(rtt), new(rtt)
	ts := []target{{rtt: short}, {rtt: long}}
	bound := func(r *rtt) time.Duration {
		if r == short {
			return 50 * time.Millisecond
		}
		return 5 * time.Second
	}
	took, errs := fanout(context.Background(), ts, bound, func(ctx context.Context, i int) (time.Duration, error) {
		start := time.Now()
		if i == 1 {
			return 0, nil // the long member answers at once
		}
		<-ctx.Done()
		return time.Since(start), ctx.Err()
	}, nil)
	assert.ErrorIs(t, errs[0], context.DeadlineExceeded)
	assert.Less(t, took[0], time.Second, "the short member ran to the round's bound, not its own")
	assert.NoError(t, errs[1])
}
