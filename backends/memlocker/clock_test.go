package memlocker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

func TestManualClockFiresDueTimersInOrderBeforeAdvanceReturns(t *testing.T) {
	start := time.Unix(1e9, 0)
	c := memlocker.NewManualClock(start)
	var fired []time.Duration
	at := func(d time.Duration) func() bool {
		return c.At(start.Add(d), func() { fired = append(fired, c.Now().Sub(start)) })
	}
	at(3 * time.Second)
	at(time.Second)
	stop := at(2 * time.Second)
	at(5 * time.Second)
	require.True(t, stop(), "a pending timer stops")
	require.False(t, stop(), "a stopped timer stops once")

	c.Advance(4 * time.Second)
	assert.Equal(t, []time.Duration{time.Second, 3 * time.Second}, fired,
		"the due timers ran in time order, each with the clock at its time")
	assert.Equal(t, start.Add(4*time.Second), c.Now())

	c.Advance(-time.Hour) // a jump back fires nothing and delays the rest
	c.Advance(time.Hour)
	assert.Len(t, fired, 2)
	c.Advance(time.Second)
	assert.Equal(t, []time.Duration{time.Second, 3 * time.Second, 5 * time.Second}, fired)
}

func TestManualClockTimerSetFromATimerFiresInTheSameAdvance(t *testing.T) {
	start := time.Unix(1e9, 0)
	c := memlocker.NewManualClock(start)
	var second time.Time
	c.At(start.Add(time.Second), func() {
		c.At(c.Now().Add(time.Second), func() { second = c.Now() })
	})
	c.Advance(time.Minute)
	assert.Equal(t, start.Add(2*time.Second), second)
}

func TestManualClockCallsAPastTimeAtOnce(t *testing.T) {
	c := memlocker.NewManualClock(time.Unix(1e9, 0))
	fired := make(chan struct{})
	stop := c.At(c.Now(), func() { close(fired) })
	select {
	case <-fired:
	case <-time.After(5 * time.Second):
		t.Fatal("a timer for now did not fire")
	}
	assert.False(t, stop())
}

func TestClientReportsTheStoresClock(t *testing.T) {
	c := memlocker.NewManualClock(time.Unix(1e9, 0))
	assert.Same(t, c, memlocker.New(memlocker.WithClock(c)).Clock())
	assert.Nil(t, memlocker.New().Clock(), "the system clock")
	var _ driver.Clocked = memlocker.New()
}
