package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/noserver"
)

func TestHelpShowsRun(t *testing.T) {
	r := distlock(t, nil, "--help")
	require.Equal(t, exitOK, r.code)
	for _, want := range []string{"distlock run", "distlock status", "distlock unlock --force", "DISTLOCK_BACKEND", "Exit statuses", "75", "76"} {
		assert.Contains(t, r.stdout, want)
	}

	r = distlock(t, nil, "help", "run")
	require.Equal(t, exitOK, r.code)
	for _, want := range []string{"-wait", "-lease", "-watchdog", "-grace", "-backend", "-redlock", "-multilock", "DISTLOCK_TOKEN", "SIGKILL"} {
		assert.Contains(t, r.stdout, want)
	}
	for _, cmd := range []string{"status", "unlock"} {
		r = distlock(t, nil, cmd, "--help")
		assert.Equal(t, exitOK, r.code)
		assert.Contains(t, r.stdout, "usage: distlock "+cmd)
	}

	r = distlock(t, nil)
	assert.Equal(t, exitUsage, r.code, "no command is a usage error")
	assert.Contains(t, r.stderr, "distlock run")
	r = distlock(t, nil, "frobnicate")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `unknown command "frobnicate"`)
}

// knownSchemes are the schemes the command must know: every backend's.
var knownSchemes = []string{"etcd", "etcds", "mem", "memcache", "postgres", "postgresql", "redis", "redis+cluster", "redis+sentinel", "rediss"}

func TestUnknownSchemeNamesTheKnownOnes(t *testing.T) {
	r := distlock(t, nil, "schemes")
	require.Equal(t, exitOK, r.code)
	schemes := strings.Fields(r.stdout)
	for _, s := range knownSchemes {
		assert.Contains(t, schemes, s, "distlock must import every backend")
	}

	r = distlock(t, nil, "run", "--backend", "nosuch://user:hunter2@x", "demo", "--", "true")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `unknown scheme "nosuch"`)
	for _, s := range schemes {
		assert.Contains(t, r.stderr, s)
	}
	assert.NotContains(t, r.stderr, "hunter2")
}

func TestRunPassesCMDsStatusThrough(t *testing.T) {
	mem := []string{"DISTLOCK_BACKEND=mem://cli"}
	r := distlock(t, mem, "run", "demo", "--", "sh", "-c", `echo "name=$DISTLOCK_NAME token=$DISTLOCK_TOKEN"; exit 3`)
	assert.Equal(t, 3, r.code)
	assert.Equal(t, "name=demo token=1\n", r.stdout, "CMD learns the lock's name and its fencing token")
	assert.Empty(t, r.stderr)

	r = distlock(t, mem, "run", "demo", "--", "true")
	assert.Equal(t, exitOK, r.code)
	r = distlock(t, mem, "run", "demo", "--", "sh", "-c", "kill -TERM $$")
	assert.Equal(t, exitSignalBase+int(syscall.SIGTERM), r.code, "death by signal N is 128+N")
}

func TestRunFlagsMayFollowName(t *testing.T) {
	r := distlock(t, nil, "run", "demo", "--backend", "mem://cli", "--wait", "0", "--", "sh", "-c", "exit 4")
	assert.Equal(t, 4, r.code)
	r = distlock(t, nil, "run", "--backend", "mem://cli", "demo", "sh", "-c", "exit 5")
	assert.Equal(t, 5, r.code, "CMD may follow NAME without --")
}

func TestRunUsageErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"no name":            {"run", "--backend", "mem://x"},
		"no cmd":             {"run", "--backend", "mem://x", "demo"},
		"no cmd after --":    {"run", "--backend", "mem://x", "demo", "--"},
		"no backend":         {"run", "demo", "--", "true"},
		"both modes":         {"run", "--redlock", "--multilock", "--backend", "mem://a", "--backend", "mem://b", "demo", "--", "true"},
		"several, no mode":   {"run", "--backend", "mem://a", "--backend", "mem://b", "demo", "--", "true"},
		"same store twice":   {"run", "--multilock", "--backend", "mem://a", "--backend", "mem://a", "demo", "--", "true"},
		"negative wait":      {"run", "--backend", "mem://x", "--wait", "-1s", "demo", "--", "true"},
		"lease and watchdog": {"run", "--backend", "mem://x", "--lease", "1s", "--watchdog", "3s", "demo", "--", "true"},
		"zero lease":         {"run", "--backend", "mem://x", "--lease", "0", "demo", "--", "true"},
		"lease of 1ms":       {"run", "--backend", "mem://x", "--lease", "1ms", "demo", "--", "true"},
		"watchdog of 1ms":    {"run", "--backend", "mem://x", "--watchdog", "1ms", "demo", "--", "true"},
		"zero watchdog":      {"run", "--backend", "mem://x", "--watchdog", "0s", "demo", "--", "true"},
		"bad flag":           {"run", "--frob", "demo", "--", "true"},
		"unknown query":      {"run", "--backend", "mem://x?ttl=1", "demo", "--", "true"},
		"read and write":     {"run", "--backend", "mem://x", "--read", "--write", "demo", "--", "true"},
		"read and permits":   {"run", "--backend", "mem://x", "--read", "--permits", "2", "demo", "--", "true"},
		"negative permits":   {"run", "--backend", "mem://x", "--permits", "-1", "demo", "--", "true"},
		"too many permits":   {"run", "--backend", "mem://x", "--permits", "2000000000", "demo", "--", "true"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "ran")
			args := append([]string(nil), args...)
			if args[len(args)-1] == "true" {
				args = append(args[:len(args)-1], "touch", marker)
			}
			r := distlock(t, nil, args...)
			assert.Equal(t, exitUsage, r.code)
			assert.NotEmpty(t, r.stderr)
			assert.NoFileExists(t, marker, "CMD must not run after a usage error")
		})
	}
}

func TestRunCMDNotRunnable(t *testing.T) {
	mem := []string{"DISTLOCK_BACKEND=mem://cli"}
	r := distlock(t, mem, "run", "demo", "--", "distlock-no-such-command")
	assert.Equal(t, exitNotFound, r.code)

	script := filepath.Join(t.TempDir(), "script")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o644))
	r = distlock(t, mem, "run", "demo", "--", script)
	assert.Equal(t, exitCannotExec, r.code, "a CMD without execute permission")
}

func TestFixedLeaseRunningOutStopsCMD(t *testing.T) {
	mem := []string{"DISTLOCK_BACKEND=mem://cli"}
	// CMD handles SIGTERM: it is told, and the status still says "lost".
	r := distlock(t, mem, "run", "--lease", "1s", "demo", "--",
		"sh", "-c", `trap 'echo stopping; kill $!; exit 0' TERM; sleep 20 & wait`)
	assert.Equal(t, exitLost, r.code)
	assert.Equal(t, "stopping\n", r.stdout)
	assert.Contains(t, r.stderr, "lock lost")

	// CMD ignores SIGTERM: SIGKILL follows after --grace, to the whole group.
	start := time.Now()
	r = distlock(t, mem, "run", "--lease", "300ms", "--grace", "500ms", "demo", "--",
		"sh", "-c", `trap '' TERM; sleep 20; echo survived`)
	assert.Equal(t, exitLost, r.code)
	assert.NotContains(t, r.stdout, "survived")
	assert.Less(t, time.Since(start), 15*time.Second, "SIGKILL must end a CMD that ignores SIGTERM well before it ends itself")
}

func TestSignalsAreForwardedToCMD(t *testing.T) {
	b := start(t, []string{"DISTLOCK_BACKEND=mem://cli"}, "run", "demo", "--",
		"sh", "-c", `trap 'echo got INT; kill $!; exit 7' INT; sleep 20 & echo ready; wait`)
	b.expectLine("ready")
	b.signal(syscall.SIGINT)
	b.expectLine("got INT")
	assert.Equal(t, 7, b.wait(), "CMD's status after a forwarded signal is CMD's own")
}

func TestStatusAndUnlockOnAFreeLock(t *testing.T) {
	mem := []string{"DISTLOCK_BACKEND=mem://cli"}
	r := distlock(t, mem, "status", "demo")
	assert.Equal(t, exitFree, r.code)
	assert.Contains(t, r.stdout, "held:  no")

	r = distlock(t, mem, "status", "demo", "--json")
	assert.Equal(t, exitFree, r.code)
	var st statusReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	assert.Equal(t, statusReport{Lock: "demo"}, st)

	r = distlock(t, mem, "unlock", "demo")
	assert.Equal(t, exitUsage, r.code, "unlock needs --force")
	assert.Contains(t, r.stderr, "--force")
	r = distlock(t, mem, "unlock", "--force", "demo")
	assert.Equal(t, exitFree, r.code)
	assert.Contains(t, r.stdout, "not held")

	r = distlock(t, mem, "status", "a", "b")
	assert.Equal(t, exitUsage, r.code)
}

func TestBackendFromConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locks.conf")
	require.NoError(t, os.WriteFile(path, []byte("# one store\nmem://cli-file\n"), 0o600))
	r := distlock(t, nil, "run", "--config", path, "demo", "--", "sh", "-c", "echo $DISTLOCK_TOKEN")
	require.Equal(t, exitOK, r.code)
	_, err := strconv.Atoi(strings.TrimSpace(r.stdout))
	assert.NoError(t, err, "CMD ran and printed its token")

	r = distlock(t, nil, "run", "--config", path, "--backend", "mem://x", "demo", "--", "true")
	assert.Equal(t, exitUsage, r.code, "--config and --backend exclude each other")
	r = distlock(t, nil, "run", "--config", filepath.Join(t.TempDir(), "missing"), "demo", "--", "true")
	assert.Equal(t, exitUsage, r.code)
}

func TestUnreachableStore(t *testing.T) {
	addr := noserver.Addr(t)

	for _, scheme := range []string{"redis", "etcd", "memcache"} {
		t.Run(scheme, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "ran")
			url := scheme + "://" + addr
			r := distlock(t, nil, "run", "--backend", url, "--timeout", "1s", "demo", "--", "touch", marker)
			assert.Equal(t, exitUnavailable, r.code)
			assert.NoFileExists(t, marker)
			assert.NotContains(t, r.stderr, "pool.go", "go-redis's own log lines reach the user")
			r = distlock(t, nil, "status", "--backend", url, "--timeout", "1s", "demo")
			assert.Equal(t, exitUnavailable, r.code)
		})
	}
}
