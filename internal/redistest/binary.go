package redistest

import (
	"os"
	"os/exec"
	"testing"
)

const installHint = "install it with: apt-get install redis-server (Debian/Ubuntu)"

// Binary returns the path of the named Redis program ("redis-server",
// "redis-cli"). When it is not on PATH, the test is skipped with an
// install hint, or fails if the CI environment variable is set.
func Binary(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("redistest: %s not found (%v); %s", name, err, installHint)
		return ""
	}
	t.Skipf("redistest: %s not found; %s", name, installHint)
	return ""
}
