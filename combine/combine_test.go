package combine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/locker"
)

// TestDefaultRestartGuard: the guard covers the Mutex's default watchdog
// lease, which the engine cannot import and repeats.
func TestDefaultRestartGuard(t *testing.T) {
	assert.Equal(t, locker.DefaultWatchdogLease, combine.DefaultRestartGuard)
}
