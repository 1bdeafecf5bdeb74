//go:build !linux

package main

import "syscall"

// childAttr has nothing to set outside Linux: stop the servers by hand if
// a run is interrupted.
func childAttr() *syscall.SysProcAttr { return nil }
