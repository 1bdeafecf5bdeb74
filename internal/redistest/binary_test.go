package redistest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/internal/redistest"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of ending
// the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }

func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestMissingBinary(t *testing.T) {
	t.Setenv("CI", "")
	r := &recorder{TB: t}
	assert.Empty(t, redistest.Binary(r, "no-such-redis-binary"))
	assert.Contains(t, r.skipped, "apt-get install redis-server", "locally a missing binary skips with a hint")
	assert.Empty(t, r.failed)

	t.Setenv("CI", "true")
	r = &recorder{TB: t}
	redistest.Binary(r, "no-such-redis-binary")
	assert.Contains(t, r.failed, "apt-get install redis-server", "on CI a missing binary fails")
	assert.Empty(t, r.skipped)
}
