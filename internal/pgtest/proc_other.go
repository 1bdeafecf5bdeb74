//go:build !linux

package pgtest

import "syscall"

// sysProcAttr runs a server as cred in a process group of its own, so that
// a signal reaches the postmaster and every backend at once.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true}
}
