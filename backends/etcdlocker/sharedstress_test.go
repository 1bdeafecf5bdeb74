package etcdlocker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
)

// acquire tries r on v until it acquires, sleeping briefly between
// attempts (at most the Remaining the store gave), and returns the grant.
func acquire(ctx context.Context, v driver.Backend, r driver.Request) (driver.Grant, error) {
	for {
		g, err := v.TryLock(ctx, r)
		if err != nil || g.Acquired {
			return g, err
		}
		pause := 10 * time.Millisecond
		if g.Remaining > 0 {
			pause = min(pause, g.Remaining)
		}
		select {
		case <-ctx.Done():
			return driver.Grant{}, ctx.Err()
		case <-time.After(pause):
		}
	}
}

// rwChecker counts the holds inside a read-write lock as its holders see
// them, and the write tokens.
// maxErrs bounds the errors a checker records.
const maxErrs = 5

type rwChecker struct {
	mu              sync.Mutex
	readers, writer int
	lastWrite       uint64
	reads, writes   int
	errs            []string
}

func (c *rwChecker) enter(write bool, token uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case len(c.errs) >= maxErrs:
	case write && (c.writer > 0 || c.readers > 0):
		c.errs = append(c.errs, fmt.Sprintf("a writer entered with %d readers and %d writers", c.readers, c.writer))
	case write && token <= c.lastWrite:
		c.errs = append(c.errs, fmt.Sprintf("write token %d after %d", token, c.lastWrite))
	case !write && c.writer > 0:
		c.errs = append(c.errs, "a reader entered with a writer")
	case !write && token != c.lastWrite:
		c.errs = append(c.errs, fmt.Sprintf("read token %d, the last write's is %d", token, c.lastWrite))
	}
	if write {
		c.writer++
		c.writes++
		c.lastWrite = max(c.lastWrite, token)
	} else {
		c.readers++
		c.reads++
	}
}

func (c *rwChecker) leave(write bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if write {
		c.writer--
	} else {
		c.readers--
	}
}

// contender is one of the owners contend runs.
type contender struct {
	v     driver.Backend
	owner string
	// enter is called with each grant once the owner holds the lock, and
	// leave before it gives the lock back.
	enter func(driver.Grant)
	leave func()
}

// holdFor is how long a contender holds the lock, so that holds overlap
// where the lock lets them.
const holdFor = 2 * time.Millisecond

// contend runs the contenders on key for a few seconds, each taking the
// lock (with patience) and giving it back as often as it can.
func contend(ctx context.Context, t *testing.T, key string, cs []contender) {
	end := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(func() {
			for time.Now().Before(end) {
				req := request(key, c.owner)
				req.Patience = 3 * time.Second
				g, err := acquire(ctx, c.v, req)
				if !assert.NoError(t, err) {
					return
				}
				c.enter(g)
				time.Sleep(holdFor)
				c.leave()
				if !assert.NoError(t, c.v.Unlock(ctx, key, c.owner)) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// Readers and writers on several clients contend for one lock: no writer
// is ever inside with anybody else, tokens rise with the writes and the
// readers read the last write's, and the lock is left with nothing but its
// token counter.
func TestRWLockContention(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	var check rwChecker
	var cs []contender
	for client := range 3 {
		b := newBackend(t, c)
		r, w := view(t, b, readShare), view(t, b, writeShare)
		for worker := range 4 {
			write := worker == 0
			v := r
			if write {
				v = w
			}
			cs = append(cs, contender{
				v: v, owner: fmt.Sprintf("c%d-w%d", client, worker),
				enter: func(g driver.Grant) { check.enter(write, g.Token) },
				leave: func() { check.leave(write) },
			})
		}
	}
	contend(ctx, t, "k", cs)
	assert.Empty(t, check.errs)
	assert.Positive(t, check.writes)
	assert.Positive(t, check.reads)
	t.Logf("%d writes, %d reads", check.writes, check.reads)
	assert.Equal(t, []string{"distlock/\x00rw/k/t"}, etcdKeys(ctx, t, c, "distlock/"), "no hold or waiter is left")
}

// Owners on several clients take 1 or 2 of a semaphore's 3 permits: the
// permits held never exceed the limit, every grant has a token of its own,
// and the semaphore is left with nothing but its token counter.
func TestSemaphoreContention(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	const limit = 3
	var mu sync.Mutex
	inside := 0
	tokens := map[uint64]bool{}
	var errs []string
	var cs []contender
	for client := range 3 {
		b := newBackend(t, c)
		for worker := range 3 {
			n := 1 + worker%2
			enter := func(g driver.Grant) {
				mu.Lock()
				defer mu.Unlock()
				if inside += n; inside > limit && len(errs) < maxErrs {
					errs = append(errs, fmt.Sprintf("%d permits held", inside))
				}
				if tokens[g.Token] && len(errs) < maxErrs {
					errs = append(errs, fmt.Sprintf("token %d granted twice", g.Token))
				}
				tokens[g.Token] = true
			}
			leave := func() {
				mu.Lock()
				defer mu.Unlock()
				inside -= n
			}
			cs = append(cs, contender{v: view(t, b, permits(n, limit)), owner: fmt.Sprintf("c%d-w%d", client, worker), enter: enter, leave: leave})
		}
	}
	contend(ctx, t, "s", cs)
	assert.Empty(t, errs)
	t.Logf("%d grants", len(tokens))
	assert.Equal(t, []string{"distlock/\x00sem/s/t"}, etcdKeys(ctx, t, c, "distlock/"), "no hold or waiter is left")
}
