package memlocker

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLeftMarksDoNotPileUp: marks that nobody looks at again are dropped
// once they lapse, so a store whose waiters keep giving up on new keys
// keeps only a bounded number of them.
func TestLeftMarksDoNotPileUp(t *testing.T) {
	clock := NewManualClock(time.Unix(1e9, 0))
	s := NewStore(WithClock(clock))
	c := s.Client()
	for i := range 10 * minLeftSweep {
		require.NoError(t, c.Leave(context.Background(), fmt.Sprintf("k%d", i), "o", time.Second))
		clock.Advance(time.Second)
		s.mu.Lock()
		n := len(s.left)
		s.mu.Unlock()
		require.LessOrEqual(t, n, minLeftSweep, "after %d marks, each lapsed a second later", i+1)
	}

	// Live marks are kept, however many there are.
	for i := range 3 * minLeftSweep {
		require.NoError(t, c.Leave(context.Background(), fmt.Sprintf("live%d", i), "o", time.Hour))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range 3 * minLeftSweep {
		assert.True(t, s.hasLeft(fmt.Sprintf("live%d", i), "o", s.now()), "live mark %d", i)
	}
}
