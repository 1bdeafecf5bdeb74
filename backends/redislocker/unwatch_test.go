package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/redistest"
)

// Stopping a watch takes no context, so it must not wait for a server that
// does not answer: the UNSUBSCRIBE goes on behind it, and Close waits for
// it.
func TestStopDoesNotWaitForAStalledServer(t *testing.T) {
	srv := redistest.Start(t)
	b, p := proxiedBackend(t, srv)
	p.Stall() // the subscriber's connection hangs in its handshake
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	stop, err := b.Watch(ctx, "k", func() {})
	require.NoError(t, err, "the watch is registered; the subscriber subscribes once it connects")
	start := time.Now()
	stop()
	assert.Less(t, time.Since(start), time.Second, "stop waited for the stalled server")
	p.Heal()
}
