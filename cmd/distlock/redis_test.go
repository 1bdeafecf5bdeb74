package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/redistest"
)

// holderScript is a CMD that sleeps until SIGTERM, which it acknowledges.
// It prints its token once the trap and the sleep are in place.
const holderScript = `trap 'echo stopping; kill $!; exit 0' TERM; sleep 30 & echo "token=$DISTLOCK_TOKEN"; wait`

func tokenOf(t *testing.T, line string) uint64 {
	t.Helper()
	_, v, ok := strings.Cut(line, "token=")
	require.True(t, ok, "no token in %q", line)
	tok, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	require.NoError(t, err)
	return tok
}

func TestRunHoldsTheLockAcrossProcesses(t *testing.T) {
	srv := redistest.Start(t)
	env := []string{"DISTLOCK_BACKEND=redis://" + srv.Addr()}
	holder := start(t, env, "run", "--watchdog", "1500ms", "--label", "deployer-7", "job", "--", "sh", "-c", holderScript)
	token := tokenOf(t, holder.expectLine("token="))
	assert.NotZero(t, token)

	marker := filepath.Join(t.TempDir(), "ran")
	r := distlock(t, env, "run", "--wait", "0", "job", "--", "touch", marker)
	assert.Equal(t, exitNotAcquired, r.code, "a held lock is not acquired by another process")
	assert.Contains(t, r.stderr, "not acquired")
	assert.NoFileExists(t, marker)
	r = distlock(t, env, "run", "--wait", "300ms", "job", "--", "touch", marker)
	assert.Equal(t, exitNotAcquired, r.code)
	assert.NoFileExists(t, marker)

	r = distlock(t, env, "status", "job")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "held:      yes")
	assert.Contains(t, r.stdout, "holds:     1")
	assert.Contains(t, r.stdout, "label:     deployer-7", "status says who holds it")
	assert.Contains(t, r.stdout, "token:     "+strconv.FormatUint(token, 10))
	r = distlock(t, env, "status", "--json", "job")
	assert.Equal(t, exitOK, r.code)
	var st statusReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	assert.True(t, st.Held)
	assert.NotEmpty(t, st.Holder)
	assert.Equal(t, "deployer-7", st.Label)
	assert.Equal(t, token, st.Token)
	assert.Positive(t, st.RemainingMS)
	assert.LessOrEqual(t, st.RemainingMS, int64(1500), "the watchdog lease was 1.5s")

	// Breaking the lock from another process stops the holder's CMD.
	r = distlock(t, env, "unlock", "--force", "job")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "broke lock")
	assert.Contains(t, r.stdout, st.Holder)
	holder.expectLine("stopping")
	assert.Equal(t, exitLost, holder.wait(), "a lost lock has its own exit status")
	assert.Contains(t, holder.output(), "lock lost")

	r = distlock(t, env, "status", "job")
	assert.Equal(t, exitFree, r.code)
	r = distlock(t, env, "unlock", "--force", "job")
	assert.Equal(t, exitFree, r.code)
}

func TestWaitingRunGetsTheLockAfterTheHolder(t *testing.T) {
	srv := redistest.Start(t)
	env := []string{"DISTLOCK_BACKEND=redis://" + srv.Addr()}
	inside := filepath.Join(t.TempDir(), "inside")
	holder := start(t, env, "run", "job", "--", "sh", "-c",
		`touch "$0"; echo "token=$DISTLOCK_TOKEN"; sleep 0.5; rm "$0"`, inside)
	first := tokenOf(t, holder.expectLine("token="))

	// The waiter's CMD fails if it runs while the holder's is inside.
	r := distlock(t, env, "run", "--wait", "30s", "job", "--", "sh", "-c",
		`test ! -e "$0" && echo "token=$DISTLOCK_TOKEN"`, inside)
	require.Equal(t, exitOK, r.code, "the waiter ran only after the holder left")
	assert.Greater(t, tokenOf(t, r.stdout), first, "tokens rise from holder to holder")
	assert.Equal(t, exitOK, holder.wait())
}

func TestSignalEndsTheWait(t *testing.T) {
	srv := redistest.Start(t)
	env := []string{"DISTLOCK_BACKEND=redis://" + srv.Addr()}
	holder := start(t, env, "run", "job", "--", "sh", "-c", holderScript)
	holder.expectLine("token=")

	marker := filepath.Join(t.TempDir(), "ran")
	waiter := start(t, env, "run", "--verbose", "job", "--", "touch", marker)
	waiter.expectLine("waiting for lock")
	waiter.signal(syscall.SIGTERM)
	assert.Equal(t, exitSignalBase+int(syscall.SIGTERM), waiter.wait())
	assert.NoFileExists(t, marker, "an interrupted wait never runs CMD")

	holder.signal(syscall.SIGTERM) // forwarded: CMD exits 0, so does run
	holder.expectLine("stopping")
	assert.Equal(t, exitOK, holder.wait())
	r := distlock(t, env, "status", "job")
	assert.Equal(t, exitFree, r.code, "the holder released the lock when CMD exited")
}

func TestRunOnARedLockOfThreeServers(t *testing.T) {
	servers := []*redistest.Server{redistest.Start(t), redistest.Start(t), redistest.Start(t)}
	args := []string{"--redlock"}
	for _, s := range servers {
		args = append(args, "--backend", "redis://"+s.Addr())
	}
	marker := filepath.Join(t.TempDir(), "ran")
	runArgs := func(extra ...string) []string {
		return append(append(append([]string{"run"}, extra...), args...), "job", "--", "touch", marker)
	}

	// Servers that started less than the restart guard ago do not count
	// toward the quorum: they may have forgotten a lock.
	r := distlock(t, nil, runArgs("--wait", "0")...)
	assert.Equal(t, exitUnavailable, r.code, "freshly started servers are inside the default 30s restart guard: the stores cannot decide")
	assert.Contains(t, r.stderr, "restart guard")
	assert.NoFileExists(t, marker)

	// The same stores from a config file, with the guard off.
	var spec strings.Builder
	spec.WriteString("# three masters\nredlock restart_guard=0s:\n")
	for _, s := range servers {
		spec.WriteString("redis://" + s.Addr() + "\n")
	}
	config := filepath.Join(t.TempDir(), "locks.conf")
	require.NoError(t, os.WriteFile(config, []byte(spec.String()), 0o600))
	holder := start(t, nil, "run", "--config", config, "job", "--", "sh", "-c", holderScript)
	holder.expectLine("token=")
	servers[0].Kill() // a minority fails: the lock stands

	r = distlock(t, nil, runArgs("--wait", "0", "--restart-guard", "0s")...)
	assert.Equal(t, exitNotAcquired, r.code)
	assert.NoFileExists(t, marker)
	r = distlock(t, nil, append(append([]string{"status"}, args...), "job")...)
	assert.Equal(t, exitOK, r.code, "two of three servers still hold the lock")

	holder.signal(syscall.SIGTERM)
	assert.Equal(t, exitOK, holder.wait())
	r = distlock(t, nil, runArgs("--wait", "10s", "--restart-guard", "0s")...)
	assert.Equal(t, exitOK, r.code, "with the holder gone, two of three servers grant the lock")
	assert.FileExists(t, marker)
}

func TestLockBrokenBetweenRenewalsIsReported(t *testing.T) {
	srv := redistest.Start(t)
	env := []string{"DISTLOCK_BACKEND=redis://" + srv.Addr()}
	goOn := filepath.Join(t.TempDir(), "go-on")
	// The default 30s watchdog renews after 10s: CMD finishes long before,
	// so only the release finds out that the lock was broken.
	holder := start(t, env, "run", "job", "--", "sh", "-c",
		`echo "token=$DISTLOCK_TOKEN"; while [ ! -e "$0" ]; do sleep 0.05; done; echo done`, goOn)
	holder.expectLine("token=")
	r := distlock(t, env, "unlock", "--force", "job")
	require.Equal(t, exitOK, r.code)
	require.NoError(t, os.WriteFile(goOn, nil, 0o600))
	holder.expectLine("done")
	assert.Equal(t, exitLost, holder.wait(), "CMD succeeded, but not under the lock")
	assert.Contains(t, holder.output(), "no longer held when CMD finished")
}

// A wrong password is a configuration error (64), not an unreachable store
// (69); the password is not shown.
func TestRunWithWrongPasswordIsAConfigurationError(t *testing.T) {
	srv := redistest.Start(t)
	_, err := srv.Do("CONFIG", "SET", "requirepass", "right-pw")
	require.NoError(t, err)
	marker := filepath.Join(t.TempDir(), "ran")
	r := distlock(t, []string{"DISTLOCK_BACKEND=redis://:wrong-pw@" + srv.Addr()}, "run", "--wait", "0", "job", "--", "touch", marker)
	assert.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
	assert.Contains(t, r.stderr, "authentication failed")
	assert.NotContains(t, r.stderr, "wrong-pw")
	assert.NoFileExists(t, marker)
}
