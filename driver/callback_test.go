package driver_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/driver"
)

func TestCallbackIsNotCalledAfterStop(t *testing.T) {
	var calls atomic.Int32
	entered, release := make(chan struct{}), make(chan struct{})
	c := driver.NewCallback(func() {
		if calls.Add(1) == 1 {
			close(entered)
			<-release
		}
	})
	go c.Call()
	<-entered
	stopped := make(chan struct{})
	go func() {
		c.Stop()
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a call was in progress")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-stopped
	c.Call()
	assert.EqualValues(t, 1, calls.Load(), "a call after Stop ran")
}

// TestAQueuersCallbackIsNotToldOfNotices: a notice (Turn.Behind) is for a
// Passer's watchers; a Queuer's fn hears the turns' grants and wake-ups
// only.
func TestAQueuersCallbackIsNotToldOfNotices(t *testing.T) {
	var heard []driver.Grant
	c := driver.NewTurnCallback(func(g driver.Grant) { heard = append(heard, g) })
	grant := driver.Grant{Acquired: true, Holds: 1, Token: 7}
	c.Tell(driver.Turn{Behind: 5, Next: driver.Successor{Owner: "w", TTL: time.Second, Patience: time.Second}})
	c.Tell(driver.Turn{Grant: grant})
	c.Call()
	assert.Equal(t, []driver.Grant{grant, {}}, heard)

	var turns []driver.Turn
	notice := driver.Turn{Behind: 5, Next: driver.Successor{Owner: "w", TTL: time.Second, Patience: time.Second}}
	driver.NewTurnsCallback(func(t driver.Turn) { turns = append(turns, t) }).Tell(notice)
	assert.Equal(t, []driver.Turn{notice}, turns, "a Passer's fn is")
}
