// Package procstate tells whether a process has really stopped after a
// SIGSTOP. kill(2) returns once the signal is queued, so a test that pauses
// a server and at once expects it to be silent must wait for the stop to
// take effect; on Linux /proc/PID/stat shows it.
package procstate

import (
	"bytes"
	"fmt"
	"os"
	"time"
)

// WaitStopped waits until process pid is in the stopped state, for at most
// limit. Where /proc does not exist it returns at once.
func WaitStopped(pid int, limit time.Duration) error {
	path := fmt.Sprintf("/proc/%d/stat", pid)
	deadline := time.Now().Add(limit)
	for {
		stat, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			if _, perr := os.Stat("/proc/self/stat"); os.IsNotExist(perr) {
				return nil // no /proc on this system
			}
		}
		if err != nil {
			return fmt.Errorf("procstate: reading %s: %w", path, err)
		}
		if stopped(stat) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("procstate: process %d not stopped after %v", pid, limit)
		}
		time.Sleep(time.Millisecond)
	}
}

// stopped reads the state field of a /proc/PID/stat line: the first field
// after the command name, which is in parentheses and may itself contain
// spaces and parentheses.
func stopped(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	state := stat[i+2]
	return state == 'T' || state == 't'
}
