package pgtest

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

const installHint = "install it with: apt-get install postgresql (Debian/Ubuntu)"

// Binary returns the path of the named PostgreSQL program ("initdb",
// "postgres"): from PATH, or else from the newest /usr/lib/postgresql/*/bin,
// where Debian keeps them off PATH. When it is in neither, the test is
// skipped with an install hint, or fails if the CI environment variable is
// set.
func Binary(t testing.TB, name string) string {
	t.Helper()
	if path, err := exec.LookPath(name); err == nil {
		return path
	}
	found, _ := filepath.Glob(filepath.Join("/usr/lib/postgresql", "*", "bin", name))
	// Versions sort as numbers would only up to 9 → 10; compare lengths first.
	slices.SortFunc(found, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return cmp.Compare(a, b)
	})
	if len(found) > 0 {
		return found[len(found)-1]
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("pgtest: %s not found on PATH or in /usr/lib/postgresql/*/bin; %s", name, installHint)
		return ""
	}
	t.Skipf("pgtest: %s not found; %s", name, installHint)
	return ""
}
