package main

import (
	"syscall"
	"time"
)

// nanosleep sleeps for d in the nanosleep system call on the calling
// goroutine's thread, which no event in the process can lengthen (see
// sleepHold). A signal that interrupts it (the runtime preempts with
// signals) leaves the rest to sleep.
var nanosleep = func(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
		// ts now holds what was left to sleep.
	}
}
