package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cliTimeout bounds one invocation of the command in a test; no test
// expects one to come near it.
const cliTimeout = 60 * time.Second

// result is one finished invocation.
type result struct {
	stdout, stderr string
	code           int
}

// distlock runs the command to completion with env added to the
// environment (with $DISTLOCK_BACKEND cleared unless env sets it).
func distlock(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, distlockBin, args...)
	cmd.Env = environ(env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	took := time.Since(began)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running distlock %v: %v", args, err)
	}
	r := result{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
	t.Logf("distlock %s → %d in %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, took.Round(time.Millisecond), r.stdout, r.stderr)
	return r
}

func environ(env []string) []string {
	out := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envBackend+"=") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// background is an invocation running while the test goes on. Its stdout
// and stderr are read line by line, into one stream.
type background struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan string
	exited chan struct{}

	mu  sync.Mutex
	log []string // every line read so far
}

// start starts the command in the background. It is killed, with its
// CMD's process group, if it is still running when the test ends.
func start(t *testing.T, env []string, args ...string) *background {
	t.Helper()
	cmd := exec.Command(distlockBin, args...)
	cmd.Env = environ(env)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	b := &background{t: t, cmd: cmd, lines: make(chan string, 1000), exited: make(chan struct{})}
	require.NoError(t, cmd.Start())
	var scanners sync.WaitGroup
	for _, r := range []io.Reader{stdout, stderr} {
		scanners.Go(func() {
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				b.mu.Lock()
				b.log = append(b.log, time.Now().Format("15:04:05.000 ")+sc.Text())
				b.mu.Unlock()
				b.lines <- sc.Text()
			}
			_, _ = io.Copy(io.Discard, r)
		})
	}
	go func() {
		scanners.Wait()
		_ = cmd.Wait()
		close(b.lines)
		close(b.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-b.exited:
		default:
			killChildGroups(cmd.Process.Pid)
			_ = cmd.Process.Kill()
			<-b.exited
		}
	})
	return b
}

// output returns every line read so far.
func (b *background) output() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.log, "\n")
}

// expectLine waits for a line containing want and returns it.
func (b *background) expectLine(want string) string {
	b.t.Helper()
	timeout := time.After(cliTimeout)
	for {
		select {
		case line, ok := <-b.lines:
			if !ok {
				b.t.Fatalf("distlock exited before printing %q; output:\n%s", want, b.output())
			}
			if strings.Contains(line, want) {
				return line
			}
		case <-timeout:
			b.t.Fatalf("no line with %q within %v; output:\n%s", want, cliTimeout, b.output())
		}
	}
}

// wait waits for the command to exit and returns its status.
func (b *background) wait() int {
	b.t.Helper()
	select {
	case <-b.exited:
	case <-time.After(cliTimeout):
		b.t.Fatalf("distlock did not exit within %v; output:\n%s", cliTimeout, b.output())
	}
	b.t.Logf("background distlock %v → %d; output:\n%s", b.cmd.Args[1:], b.cmd.ProcessState.ExitCode(), b.output())
	return b.cmd.ProcessState.ExitCode()
}

func (b *background) signal(sig syscall.Signal) {
	b.t.Helper()
	require.NoError(b.t, b.cmd.Process.Signal(sig))
}

// killChildGroups kills the process groups of pid's children: CMD's group,
// which would otherwise outlive a test that failed half-way.
func killChildGroups(pid int) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command name, which is in parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			_ = syscall.Kill(-child, syscall.SIGKILL)
		}
	}
}
