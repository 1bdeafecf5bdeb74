package quorum

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goroutineID is the number of the goroutine that calls it, from the
// header of its stack trace ("goroutine 42 [running]:").
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// onLane runs a call on a lane and returns the goroutine it ran on.
func onLane(t *testing.T) string {
	ran := make(chan string, 1)
	runOnLane(func() { ran <- goroutineID() })
	select {
	case id := <-ran:
		return id
	case <-time.After(time.Second):
		require.FailNow(t, "the call did not run within a second")
		return ""
	}
}

// TestALaneRunsTheNextCallAndExitsWhenIdle: a call made while a lane is
// idle runs on it, not on a new goroutine; and lanes exit once idle for
// laneLinger.
func TestALaneRunsTheNextCallAndExitsWhenIdle(t *testing.T) {
	seen := map[string]bool{onLane(t): true}
	reused := false
	for range 20 {
		time.Sleep(time.Millisecond) // the lane is back waiting by now
		id := onLane(t)
		if seen[id] {
			reused = true
			break
		}
		seen[id] = true
	}
	assert.True(t, reused, "every call ran on a goroutine of its own: %v", seen)

	time.Sleep(3 * laneLinger)
	all := make([]byte, 1<<20)
	all = all[:runtime.Stack(all, true)]
	for id := range seen {
		assert.False(t, bytes.Contains(all, []byte(fmt.Sprintf("goroutine %s [", id))),
			"lane %s still runs %v after its last call", id, 3*laneLinger)
	}
}

// TestCallsNeverWaitForALane: calls made while every lane is busy run at
// once, on new lanes.
func TestCallsNeverWaitForALane(t *testing.T) {
	const calls = 8
	started := make(chan struct{}, calls)
	release := make(chan struct{})
	defer close(release)
	deadline := time.After(time.Second)
	for range calls {
		runOnLane(func() {
			started <- struct{}{}
			<-release
		})
	}
	for i := range calls {
		select {
		case <-started:
		case <-deadline:
			require.FailNow(t, "calls waited for a lane", "%d of %d started within a second", i, calls)
		}
	}
}
