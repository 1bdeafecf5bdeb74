package memcachedtest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/memcachedtest"
)

// recorder is a testing.TB that records how a test would have ended.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Skip(args ...any)             { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(f string, args ...any) { r.failed = fmt.Sprintf(f, args...) }

func TestMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := memcachedtest.Binary()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "apt-get install -y memcached")

	t.Setenv("CI", "")
	r := &recorder{TB: t}
	memcachedtest.RequireBinary(r)
	assert.Contains(t, r.skipped, "apt-get install", "without CI a missing binary skips with a hint")
	assert.Empty(t, r.failed)

	t.Setenv("CI", "true")
	r = &recorder{TB: t}
	memcachedtest.RequireBinary(r)
	assert.Contains(t, r.failed, "apt-get install", "under CI a missing binary fails")
	assert.Empty(t, r.skipped)
}
