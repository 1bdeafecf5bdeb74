package main

import "time"

// holdsByNanosleep is -hold-nanosleep: every hold is slept by nanosleep.
var holdsByNanosleep bool

// sleepHold sleeps for one hold of a contention run, and before each probe
// that stands for the end of a hold: time.Sleep, as a program's own
// waiting is, or with -hold-nanosleep the nanosleep system call.
//
// Why the choice matters: Go's runtime waits for its timers in epoll_wait,
// whose timeout counts whole milliseconds. A network event that wakes the
// process during a sleep of about a millisecond leaves a remainder that
// the runtime may then wait for as a whole millisecond: on this VM a 1 ms
// sleep took 1.2 ms at p50 alone, 2.0 ms with a loopback write arriving
// 900 µs into it. A lock whose waiters and releaser talk to the servers
// while another goroutine holds it has that hold's sleep lengthened; one
// whose waiters poll now and then has it less.
func sleepHold(d time.Duration) {
	if holdsByNanosleep {
		nanosleep(d)
		return
	}
	time.Sleep(d)
}

// holdKind says in a report how the holds were slept.
func holdKind() string {
	if holdsByNanosleep {
		return "a nanosleep system call (-hold-nanosleep)"
	}
	return "a time.Sleep"
}
