package procstate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// WaitGroupGone waits until no process of process group pgid is alive (a
// zombie has closed its files, sockets among them, and counts as gone),
// for at most limit. A group's members die at their own pace after a
// SIGKILL to the group: one that still holds a listening socket keeps
// accepting connections into its backlog. Where /proc does not exist it
// returns at once.
func WaitGroupGone(pgid int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		alive, err := groupAlive(pgid)
		if err != nil || !alive {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("procstate: process group %d still alive after %v", pgid, limit)
		}
		time.Sleep(time.Millisecond)
	}
}

// groupAlive reports whether a process of group pgid is alive, from
// /proc/*/stat; false where there is no /proc.
func groupAlive(pgid int) (bool, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return false, fmt.Errorf("procstate: listing processes: %w", err)
	}
	for _, path := range stats {
		stat, err := os.ReadFile(path)
		if err != nil {
			continue // the process is gone
		}
		if state, group, ok := stateAndGroup(stat); ok && group == pgid && state != 'Z' && state != 'X' {
			return true, nil
		}
	}
	return false, nil
}

// stateAndGroup reads the state and the process group fields of a
// /proc/PID/stat line: the first and third fields after the command name,
// which is in parentheses and may itself contain spaces and parentheses.
func stateAndGroup(stat []byte) (state byte, pgid int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	var ppid int
	if _, err := fmt.Sscanf(string(stat[i+1:]), " %c %d %d", &state, &ppid, &pgid); err != nil {
		return 0, 0, false
	}
	return state, pgid, true
}
