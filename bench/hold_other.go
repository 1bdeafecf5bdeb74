//go:build !linux

package main

import "time"

// nanosleep is Linux's: elsewhere -hold-nanosleep is refused.
var nanosleep func(time.Duration)
