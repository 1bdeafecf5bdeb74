package main

import "syscall"

// childAttr makes a child process die with this program, so no server
// outlives a benchmark run that crashed or was interrupted.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
