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
