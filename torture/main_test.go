package torture

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var (
	flagDuration = flag.Duration("torture.duration", 0,
		"how long each torture scenario runs (default: a few seconds; e.g. 2m for a long run)")
	flagClients = flag.Int("torture.clients", 4, "contending clients per scenario (1 to 64)")
	flagOut     = flag.String("torture.out", "",
		"directory for the result table and linearizability visualisations (default: $TMPDIR/distlock-torture)")
)

// defaultDuration is how long a scenario runs without -torture.duration.
const defaultDuration = 4 * time.Second

func scenarioDuration() time.Duration {
	if *flagDuration > 0 {
		return *flagDuration
	}
	return defaultDuration
}

// outDir returns the directory for the table and visualisations, creating
// it.
func outDir() (string, error) {
	dir := *flagOut
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "distlock-torture")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// etcdStuckRead is where a goroutine of an embedded etcd server hangs for
// good after its member stopped: a request that reaches the member's
// backend after the stop panics in UnsafeRange (its read transaction is
// gone) while holding the backend's txMu, net/http recovers the panic, and
// the lock is never released, so the next request there (a peer's
// /version, say) blocks in UnsafeRange forever. It is etcd's goroutine,
// stuck inside the test's etcd server, not one of distlock's.
const etcdStuckRead = "go.etcd.io/etcd/server/v3/storage/backend.(*baseReadTx).UnsafeRange"

// TestMain checks for leaked goroutines and prints the torture table after
// the tests, so that it shows in plain `go test` output, not only with -v.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction(etcdStuckRead), goleak.Cleanup(func(code int) {
		if table := results.render(); table != "" {
			fmt.Println(table)
			if dir, err := outDir(); err == nil {
				path := filepath.Join(dir, "table.txt")
				if err := os.WriteFile(path, []byte(table+"\n"), 0o644); err == nil {
					fmt.Println("torture table written to", path)
				}
			}
		}
		os.Exit(code)
	}))
}
