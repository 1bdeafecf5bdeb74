package torture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/distlock/distlock/internal/redistest"
)

// Exit statuses of cmd/distlock that the bad inputs expect (see its
// usage text).
const (
	exitUsage       = 64
	exitUnavailable = 69
)

// buildCLI builds cmd/distlock into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "distlock")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/distlock/distlock/cmd/distlock")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building cmd/distlock: %v\n%s", err, out)
	}
	return bin
}

// badCLICase is one bad command line: it must exit with code, say every
// msg on stderr, never show a password, and never run CMD.
type badCLICase struct {
	name string
	args func(e *badEnv, prefix string) []string
	env  func(e *badEnv, prefix string) []string
	code int
	msg  []string
}

var badCLICases = []badCLICase{
	{name: "no backend", code: exitUsage, msg: []string{"no lock store", "--backend"},
		args: func(*badEnv, string) []string { return []string{"run", "job", "--", "touch", "RAN"} }},
	{name: "unknown scheme", code: exitUsage, msg: []string{`unknown scheme "nosuch"`, "redis"},
		args: func(*badEnv, string) []string {
			return []string{"run", "--backend", "nosuch://u:" + secret + "@127.0.0.1:1", "job", "--", "touch", "RAN"}
		}},
	{name: "malformed URL", code: exitUsage, msg: []string{"malformed"},
		args: func(*badEnv, string) []string {
			return []string{"run", "--backend", "redis://u:" + secret + "@[::1", "job", "--", "touch", "RAN"}
		}},
	{name: "unknown URL parameter", code: exitUsage, msg: []string{"colour"},
		args: func(e *badEnv, p string) []string {
			return []string{"run", "--backend", e.url(e.plain, p) + "&colour=red", "job", "--", "touch", "RAN"}
		}},
	{name: "empty lock name", code: exitUsage, msg: []string{"empty lock NAME"},
		args: func(e *badEnv, p string) []string {
			return []string{"run", "--backend", e.url(e.plain, p), "", "--", "touch", "RAN"}
		}},
	{name: "negative wait", code: exitUsage, msg: []string{"--wait must not be negative"},
		args: func(e *badEnv, p string) []string {
			return []string{"run", "--backend", e.url(e.plain, p), "--wait", "-1s", "job", "--", "touch", "RAN"}
		}},
	{name: "negative lease", code: exitUsage, msg: []string{"a fixed lease must be at least 10ms"},
		args: func(e *badEnv, p string) []string {
			return []string{"run", "--backend", e.url(e.plain, p), "--lease", "-1s", "job", "--", "touch", "RAN"}
		}},
	{name: "redlock and multilock", code: exitUsage, msg: []string{"exclude each other"},
		args: func(e *badEnv, p string) []string {
			return []string{"run", "--redlock", "--multilock", "--backend", e.url(e.plain, p), "--backend", e.url(e.auth, p), "job", "--", "touch", "RAN"}
		}},
	{name: "the same store twice", code: exitUsage, msg: []string{"same store"},
		args: func(e *badEnv, p string) []string {
			return []string{"run", "--redlock", "--backend", e.url(e.plain, p), "--backend", e.url(e.plain, p), "job", "--", "touch", "RAN"}
		}},
	{name: "bad spec in the environment", code: exitUsage, msg: []string{"DISTLOCK_BACKEND", `unknown mode "quorum"`},
		args: func(*badEnv, string) []string { return []string{"run", "job", "--", "touch", "RAN"} },
		env: func(e *badEnv, p string) []string {
			return []string{"DISTLOCK_BACKEND=quorum: " + e.url(e.plain, p)}
		}},
	{name: "unreachable store", code: exitUnavailable, msg: []string{"cannot reach the lock store", "connection refused"},
		args: func(_ *badEnv, p string) []string {
			return []string{"run", "--timeout", "2s", "--backend", "redis://u:" + secret + "@127.0.0.1:1/0?prefix=" + p, "job", "--", "touch", "RAN"}
		}},
	{name: "zero lease", code: exitUsage, msg: []string{"--lease 0s", "leave --lease out"},
		args: func(e *badEnv, p string) []string {
			return []string{"run", "--backend", e.url(e.plain, p), "--lease", "0", "job", "--", "touch", "RAN"}
		}},
	{name: "watchdog of 1ms", code: exitUsage, msg: []string{"--watchdog 1ms", "at least 10ms"},
		args: func(e *badEnv, p string) []string {
			return []string{"run", "--backend", e.url(e.plain, p), "--watchdog", "1ms", "job", "--", "touch", "RAN"}
		}},
	{name: "wrong password", code: exitUsage, msg: []string{"authentication failed", "WRONGPASS"},
		args: func(e *badEnv, p string) []string {
			return []string{"run", "--backend", "redis://default:" + wrong + "@" + e.auth.Addr() + "/0?prefix=" + p, "job", "--", "touch", "RAN"}
		}},
	{name: "status of an unreachable store", code: exitUnavailable, msg: []string{"connection refused"},
		args: func(_ *badEnv, p string) []string {
			return []string{"status", "--timeout", "2s", "--backend", "redis://u:" + secret + "@127.0.0.1:1/0?prefix=" + p, "job"}
		}},
	{name: "unlock without --force", code: exitUsage, msg: []string{"--force"},
		args: func(e *badEnv, p string) []string {
			return []string{"unlock", "--backend", e.url(e.plain, p), "job"}
		}},
}

// TestBadCommandLines runs cmd/distlock with bad arguments: each exits
// with the documented status and a clear message, runs nothing, shows no
// password, and leaves nothing on the servers.
func TestBadCommandLines(t *testing.T) {
	bin := buildCLI(t)
	e := &badEnv{plain: redistest.Start(t), auth: redistest.Start(t)}
	if _, err := e.auth.Do("CONFIG", "SET", "requirepass", secret); err != nil {
		t.Fatal(err)
	}
	for i, c := range badCLICases {
		t.Run(c.name, func(t *testing.T) {
			prefix := fmt.Sprintf("badcli%d", i)
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, c.args(e, prefix)...)
			cmd.Dir = dir
			cmd.Env = os.Environ()
			for i, kv := range cmd.Env {
				if strings.HasPrefix(kv, "DISTLOCK_BACKEND=") {
					cmd.Env[i] = "DISTLOCK_BACKEND="
				}
			}
			if c.env != nil {
				cmd.Env = append(cmd.Env, c.env(e, prefix)...)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("running distlock: %v", err)
			}
			msg := stderr.String()
			t.Logf("exit %d; stderr: %s", cmd.ProcessState.ExitCode(), shorten(msg))
			if got := cmd.ProcessState.ExitCode(); got != c.code {
				t.Errorf("exit status %d, want %d", got, c.code)
			}
			for _, m := range c.msg {
				if !strings.Contains(msg, m) {
					t.Errorf("stderr does not say %q", m)
				}
			}
			for _, pw := range []string{secret, wrong} {
				if strings.Contains(msg, pw) {
					t.Errorf("stderr shows a password")
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "RAN")); err == nil {
				t.Errorf("CMD ran")
			}
			checkNothingLeft(t, e, prefix, true)
		})
	}
}
