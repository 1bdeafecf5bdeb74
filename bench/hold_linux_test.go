package main

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestNanosleepOutlastsSignals interrupts a nanosleep with signals to its
// thread (the runtime's preemption signal, which it ignores when it did
// not send it) and checks that the hold still lasts its whole length.
func TestNanosleepOutlastsSignals(t *testing.T) {
	const hold = 20 * time.Millisecond
	tids := make(chan int)
	done := make(chan time.Duration)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tids <- syscall.Gettid()
		start := time.Now()
		nanosleep(hold)
		done <- time.Since(start)
	}()
	tid := <-tids
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case took := <-done:
			if took < hold {
				t.Fatalf("a nanosleep of %v interrupted by signals returned after %v", hold, took)
			}
			return
		case <-tick.C:
			_ = syscall.Tgkill(syscall.Getpid(), tid, syscall.SIGURG)
		}
	}
}
