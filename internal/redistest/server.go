package redistest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/distlock/distlock/internal/procstate"
)

// startTimeout bounds how long a server may take to answer PING.
const startTimeout = 15 * time.Second

// Server is one redis-server process on 127.0.0.1. Its methods fail the
// test (t.Fatal) when the process cannot be controlled; they must be called
// from the test's goroutine, as t.Fatal requires.
type Server struct {
	t    testing.TB
	bin  string
	port int
	dir  string
	args []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
	paused bool
}

// Start starts a redis-server on a free port of 127.0.0.1 in a new
// temporary directory, waits until it answers PING, and kills it when the
// test ends. Without WithAppendOnly it persists nothing (--save ""
// --appendonly no).
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var c config
	for _, o := range opts {
		o(&c)
	}
	return start(t, c, false)
}

// StartReplica starts a replica of master and waits until it has synced:
// its link is up and every replica of master acknowledges writes (WAIT
// counts them).
func StartReplica(t testing.TB, master *Server, opts ...Option) *Server {
	t.Helper()
	s := Start(t, append(opts, WithReplicaOf(master))...)
	s.waitFor("the replica's link to its master", func() (bool, error) {
		info, err := s.Info("replication")
		return err == nil && info["master_link_status"] == "up", err
	})
	// A replica counts for WAIT only once the master streams to it, which
	// may start a second after the sync: wait until one acknowledges a
	// write (removed again at once).
	const probe = "redistest:replication-probe"
	master.waitFor("every replica to acknowledge a write", func() (bool, error) {
		info, err := master.Info("replication")
		if err != nil {
			return false, err
		}
		n := info["connected_slaves"]
		replies, err := doAll(master.Addr(),
			[]string{"SET", probe, "1"}, []string{"WAIT", n, "200"}, []string{"DEL", probe})
		return err == nil && strconv.FormatInt(replies[1].(int64), 10) == n, err
	})
	return s
}

func start(t testing.TB, c config, cluster bool) *Server {
	t.Helper()
	return startWith(t, cluster, func(port int, dir string) ([]string, error) {
		return serverArgs(port, dir, c, cluster), nil
	})
}

// startWith starts redis-server with the arguments args makes for a port
// and directory.
func startWith(t testing.TB, cluster bool, args func(port int, dir string) ([]string, error)) *Server {
	t.Helper()
	bin := Binary(t, "redis-server")
	dir := t.TempDir()
	var lastErr error
	for range 5 { // a free port may be taken before the server binds it
		port, err := freePort(cluster)
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		a, err := args(port, dir)
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		s := &Server{t: t, bin: bin, port: port, dir: dir, args: a}
		if lastErr = s.launch(); lastErr == nil {
			t.Cleanup(s.cleanup)
			return s
		}
	}
	t.Fatalf("redistest: starting redis-server: %v", lastErr)
	return nil
}

func serverArgs(port int, dir string, c config, cluster bool) []string {
	args := []string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--dir", dir,
		"--daemonize", "no",
		"--save", "",
		"--logfile", "",
		// Replicas sync at once instead of after the default 5 s wait
		// for more replicas.
		"--repl-diskless-sync-delay", "0",
	}
	if c.appendOnly {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	if cluster {
		args = append(args,
			"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "5000")
	}
	if c.replicaOf != nil {
		args = append(args, "--replicaof", "127.0.0.1", strconv.Itoa(c.replicaOf.port))
	}
	return append(args, c.args...)
}

// freePort returns a port of 127.0.0.1 that was free a moment ago; for a
// cluster node its bus port (port+10000) was free too.
func freePort(cluster bool) (int, error) {
	for range 50 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("finding a free port: %w", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		_ = ln.Close()
		if !cluster {
			return port, nil
		}
		if port+10000 > 65535 {
			continue
		}
		bus, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port+10000))
		if err != nil {
			continue
		}
		_ = bus.Close()
		return port, nil
	}
	return 0, errors.New("no free port pair for a cluster node")
}

// launch starts the process and waits until it answers PING.
func (s *Server) launch() error {
	log, err := os.OpenFile(s.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(s.bin, s.args...)
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", s.bin, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.mu.Lock()
	s.cmd, s.exited, s.paused = cmd, exited, false
	s.mu.Unlock()

	deadline := time.Now().Add(startTimeout)
	for {
		reply, err := s.Do("PING")
		if err == nil && reply == "PONG" {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("redis-server on port %d exited at start; log:\n%s", s.port, s.logTail())
		default:
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("redis-server on port %d did not answer PING within %v (last: %v, %v); log:\n%s",
				s.port, startTimeout, reply, err, s.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Server) logPath() string { return filepath.Join(s.dir, "redis.log") }

// logTail returns the end of the server's log, for failure messages.
func (s *Server) logTail() string {
	b, err := os.ReadFile(s.logPath())
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	const max = 4000
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}

// Addr returns the server's address, "127.0.0.1:port".
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Port returns the server's port.
func (s *Server) Port() int { return s.port }

// Dir returns the server's working directory (data files, redis.log).
func (s *Server) Dir() string { return s.dir }

// Running reports whether the process is alive (paused counts as alive).
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited == nil {
		return false
	}
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// Kill ends the server with SIGKILL, as a crash would, and waits until the
// process is gone. Without persistence its data is lost. Killing a server
// that is not running does nothing.
func (s *Server) Kill() {
	s.t.Helper()
	s.kill()
}

// KillAndHold kills the server, as Kill does, and keeps its port until the
// test ends, so that no server another test starts meanwhile (tests of
// other packages take free ports too) answers in the dead one's place. A
// connection to the port is closed at once, as a dead server's would be
// refused. The server cannot be restarted afterwards.
func (s *Server) KillAndHold() {
	s.t.Helper()
	s.kill()
	ln, err := net.Listen("tcp", s.Addr())
	if err != nil {
		s.t.Fatalf("redistest: holding the dead server's port %d: %v", s.port, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return // the listener is closed
			}
			_ = c.Close()
		}
	}()
	s.t.Cleanup(func() {
		_ = ln.Close()
		<-done
	})
}

func (s *Server) kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.paused = false
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// Stop pauses the server with SIGSTOP: it keeps its connections but
// answers nothing, as a stalled machine would, until Cont.
func (s *Server) Stop() {
	s.t.Helper()
	s.signal(syscall.SIGSTOP, true)
}

// Cont resumes a server paused by Stop.
func (s *Server) Cont() {
	s.t.Helper()
	s.signal(syscall.SIGCONT, false)
}

func (s *Server) signal(sig syscall.Signal, paused bool) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		s.t.Fatalf("redistest: %v to the server on port %d: not running", sig, s.port)
	}
	if err := procstate.Signal(s.cmd.Process.Pid, false, sig); err != nil {
		s.t.Fatalf("redistest: %v to the server on port %d: %v", sig, s.port, err)
	}
	s.paused = paused
}

// Restart kills the server (SIGKILL) if it runs and starts it again on the
// same port and directory with the same arguments, waiting until it
// answers PING. Without persistence it comes back empty.
func (s *Server) Restart() {
	s.t.Helper()
	s.kill()
	if err := procstate.Relaunch(s.launch); err != nil {
		s.t.Fatalf("redistest: restarting the server on port %d: %v", s.port, err)
	}
}

func (s *Server) cleanup() {
	s.mu.Lock()
	paused := s.paused
	s.mu.Unlock()
	if paused {
		s.mu.Lock()
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
		s.mu.Unlock()
	}
	s.kill()
}

// Info returns the fields of an INFO section as a map ("role" → "master").
func (s *Server) Info(section string) (map[string]string, error) {
	reply, err := s.Do("INFO", section)
	if err != nil {
		return nil, err
	}
	text, ok := reply.(string)
	if !ok {
		return nil, fmt.Errorf("INFO %s: unexpected reply %T", section, reply)
	}
	return parseFields(text), nil
}

// Scripts returns how many scripts the server has run (EVAL and EVALSHA,
// from INFO commandstats): an EVALSHA whose script the server did not
// know ran nothing, and is not counted.
func (s *Server) Scripts() (int, error) {
	info, err := s.Info("commandstats")
	if err != nil {
		return 0, err
	}
	return statField(info["cmdstat_eval"], "calls") + statField(info["cmdstat_evalsha"], "calls") -
		statField(info["cmdstat_evalsha"], "failed_calls"), nil
}

// statField reads one field of an INFO commandstats entry
// ("calls=3,usec=...,failed_calls=1"); 0 when it has none.
func statField(stat, name string) int {
	for f := range strings.SplitSeq(stat, ",") {
		if k, v, ok := strings.Cut(f, "="); ok && k == name {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// parseFields reads "key:value" lines, as INFO and CLUSTER INFO write them.
func parseFields(text string) map[string]string {
	fields := make(map[string]string)
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = v
		}
	}
	return fields
}

// waitFor polls cond until it holds, failing the test after startTimeout.
func (s *Server) waitFor(what string, cond func() (bool, error)) {
	s.t.Helper()
	deadline := time.Now().Add(startTimeout)
	for {
		ok, err := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redistest: waiting for %s on port %d: not within %v (last error: %v); log:\n%s",
				what, s.port, startTimeout, err, s.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
