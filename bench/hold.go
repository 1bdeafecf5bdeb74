package main

import (
	"errors"
	"time"
)

// sleepHold sleeps for one hold of a contention run, and before each probe
// that stands for the end of a hold. It is time.Sleep, as a program's own
// waiting is, unless -hold-nanosleep made it nanosleep.
//
// Why the choice matters: Go's runtime waits for its timers in epoll_wait,
// whose timeout counts whole milliseconds. A network event that wakes the
// process during a sleep of about a millisecond leaves a remainder that
// the runtime then waits for as a whole millisecond more: on this VM a
// 1 ms sleep took 1.2 ms at p50 alone, 2.0 ms with a loopback write
// arriving 900 µs into it. A lock whose waiters and releaser talk to the
// servers while another goroutine holds it has that hold's sleep
// lengthened; one whose waiters poll now and then has it less.
var sleepHold = time.Sleep

// useNanosleep makes every hold a nanosleep system call (-hold-nanosleep).
func useNanosleep() error {
	if nanosleep == nil {
		return errors.New("-hold-nanosleep: the nanosleep system call is used on Linux only")
	}
	sleepHold = nanosleep
	return nil
}

// holdKind says in a report how the holds were slept.
func holdKind(nano bool) string {
	if nano {
		return "a nanosleep system call (-hold-nanosleep)"
	}
	return "a time.Sleep"
}
