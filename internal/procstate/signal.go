package procstate

import (
	"fmt"
	"syscall"
	"time"
)

// stopLimit is how long Signal waits for a SIGSTOP to take effect.
const stopLimit = 5 * time.Second

// Signal sends sig to process pid, or to its whole process group when
// group is set, and after a SIGSTOP waits until the process has stopped,
// so that a test that pauses a server can expect it to be silent at once.
func Signal(pid int, group bool, sig syscall.Signal) error {
	target := pid
	if group {
		target = -pid
	}
	if err := syscall.Kill(target, sig); err != nil {
		return fmt.Errorf("procstate: %v to %d: %w", sig, pid, err)
	}
	if sig == syscall.SIGSTOP {
		return WaitStopped(pid, stopLimit)
	}
	return nil
}

// relaunchTries and relaunchPause bound Relaunch: a port a killed server
// held may linger a moment before it can be bound again.
const (
	relaunchTries = 20
	relaunchPause = 100 * time.Millisecond
)

// Relaunch calls launch until it succeeds, pausing between tries, and
// returns the last error when it never does.
func Relaunch(launch func() error) error {
	var err error
	for range relaunchTries {
		if err = launch(); err == nil {
			return nil
		}
		time.Sleep(relaunchPause)
	}
	return err
}
