package main

// Exit statuses. Those of "run" other than the ones below are CMD's own.
const (
	exitOK = 0
	// exitFree is what status and unlock --force return when the lock was
	// not held.
	exitFree = 1
	// exitUsage: bad flags, a malformed or unknown backend URL, bad
	// configuration. Nothing was run.
	exitUsage = 64
	// exitUnavailable: the lock store could not be reached or failed, so
	// CMD did not run.
	exitUnavailable = 69
	// exitNotAcquired: the lock was not acquired within --wait; CMD did not
	// run.
	exitNotAcquired = 75
	// exitLost: the lock was lost while CMD ran, and CMD was stopped.
	exitLost = 76
	// exitCannotExec: CMD was found but could not be started.
	exitCannotExec = 126
	// exitNotFound: CMD was not found.
	exitNotFound = 127
	// exitSignalBase plus a signal's number is the status when CMD died of
	// that signal, or when a signal interrupted the wait for the lock.
	exitSignalBase = 128
)
