package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/distlock/distlock/locker"
)

// Environment variables distlock sets for CMD.
const (
	envName  = "DISTLOCK_NAME"
	envToken = "DISTLOCK_TOKEN"
)

// supervise runs cmd while lease holds, and returns the exit status: cmd's
// own, or exitLost when the lock was lost while it ran. cmd runs in a
// process group of its own so that stopping it stops its children too;
// signals distlock receives are forwarded to that group. When the lock is
// lost the group gets SIGTERM and, --grace later, SIGKILL.
func (a *app) supervise(lease *locker.Lease, name string, cmd []string, f *runFlags, sigs <-chan os.Signal) int {
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, a.stdout, a.stderr
	c.Env = append(os.Environ(),
		envName+"="+name,
		envToken+"="+strconv.FormatUint(lease.Token(), 10))
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		a.release(lease, name, f)
		a.errorf("run %s: %v", name, err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return exitNotFound
		}
		return exitCannotExec
	}
	group := c.Process.Pid // the group's id: cmd leads it

	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()

	var (
		lost     error
		done     = lease.Done()
		kill     <-chan time.Time
		graceEnd time.Time // zero until the group had SIGTERM
		waitErr  error
		finished bool
	)
	for !finished {
		select {
		case waitErr = <-exited:
			finished = true
		case sig := <-sigs:
			signalGroup(group, sig)
		case <-done:
			done = nil
			lost = lease.Err()
			a.errorf("run %s: %v; stopping CMD (SIGTERM, then SIGKILL after %v)", name, lost, f.grace)
			signalGroup(group, syscall.SIGTERM)
			graceEnd = time.Now().Add(f.grace)
			kill = time.After(f.grace)
		case <-kill:
			signalGroup(group, syscall.SIGKILL)
			kill = nil
		}
	}
	if lost == nil {
		// The loss may have been seen just as CMD finished.
		if err := lease.Err(); err != nil && !errors.Is(err, locker.ErrReleased) {
			lost = err
			a.errorf("run %s: %v before CMD finished", name, lost)
		}
	}
	if lost != nil {
		a.release(lease, name, f)
		stopGroup(group, graceEnd, f.grace)
		return exitLost
	}
	if !a.release(lease, name, f) {
		a.errorf("run %s: the lock was no longer held when CMD finished (lost or broken while it ran)", name)
		return exitLost
	}
	return a.statusOf(c, waitErr)
}

// signalGroup sends sig to every process of the group.
func signalGroup(group int, sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(-group, s)
	}
}

// stopGroup makes sure no process of a group whose lock was lost survives:
// CMD itself has exited, but processes it started may linger. If the group
// has not had SIGTERM yet (graceEnd is zero), it gets it now; whatever is
// left when the grace period ends gets SIGKILL.
func stopGroup(group int, graceEnd time.Time, grace time.Duration) {
	if syscall.Kill(-group, 0) != nil {
		return // the group is empty
	}
	if graceEnd.IsZero() {
		_ = syscall.Kill(-group, syscall.SIGTERM)
		graceEnd = time.Now().Add(grace)
	}
	for time.Now().Before(graceEnd) {
		time.Sleep(20 * time.Millisecond)
		if syscall.Kill(-group, 0) != nil {
			return
		}
	}
	_ = syscall.Kill(-group, syscall.SIGKILL)
}

// statusOf returns cmd's exit status: its exit code, or 128 plus the signal
// that killed it.
func (a *app) statusOf(c *exec.Cmd, waitErr error) int {
	if c.ProcessState == nil {
		a.errorf("run: %v", waitErr)
		return exitCannotExec
	}
	if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return exitSignalBase + int(ws.Signal())
	}
	return c.ProcessState.ExitCode()
}
