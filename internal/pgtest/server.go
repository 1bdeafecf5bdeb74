package pgtest

import (
	"bytes"
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

// startTimeout bounds how long a server may take to accept connections.
const startTimeout = 30 * time.Second

// killLimit bounds how long Kill waits for the killed processes to go.
const killLimit = 10 * time.Second

// Superuser is the role that connects without a password.
const Superuser = "postgres"

// hba lets the superuser in from loopback without a password and every
// other role with its password, so that tests can make roles of their own
// and check what a wrong password does.
const hba = `host all ` + Superuser + ` 127.0.0.1/32 trust
host all all 127.0.0.1/32 scram-sha-256
`

// Server is one PostgreSQL server on 127.0.0.1. Its methods fail the test
// (t.Fatal) when the server cannot be controlled; they must be called from
// the test's goroutine, as t.Fatal requires.
type Server struct {
	t    testing.TB
	bin  string
	port int
	data string
	args []string
	cred *syscall.Credential

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has been waited for
	paused bool
}

// Start makes a database cluster in a new temporary directory (initdb),
// starts a server on a free port of 127.0.0.1, waits until it accepts
// connections, and kills it when the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var c config
	for _, o := range opts {
		o(&c)
	}
	initdb, postgres := Binary(t, "initdb"), Binary(t, "postgres")
	cred, err := credential()
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	data, err := makeDataDir(t, cred)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	if err := runInitdb(initdb, data, cred); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	var lastErr error
	for range 5 { // a free port may be taken before the server binds it
		port, err := freePort()
		if err != nil {
			t.Fatalf("pgtest: %v", err)
		}
		s := &Server{t: t, bin: postgres, port: port, data: data, args: serverArgs(port, c), cred: cred}
		if lastErr = s.launch(); lastErr == nil {
			t.Cleanup(s.cleanup)
			return s
		}
	}
	t.Fatalf("pgtest: starting postgres: %v", lastErr)
	return nil
}

// makeDataDir makes an empty data directory that cred's user owns, in a
// temporary directory the user can enter (t.TempDir's parents are the test
// process's alone), removed when the test ends.
func makeDataDir(t testing.TB, cred *syscall.Credential) (string, error) {
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return "", err
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) }) // after the server is killed
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return "", err
	}
	if cred != nil {
		if err := os.Chown(data, int(cred.Uid), int(cred.Gid)); err != nil {
			return "", err
		}
	}
	return data, nil
}

// runInitdb makes the database cluster and its pg_hba.conf.
func runInitdb(bin, data string, cred *syscall.Credential) error {
	cmd := exec.Command(bin, "-D", data, "-U", Superuser, "--auth=trust", "--encoding=UTF8",
		"--locale=C", "--no-sync", "--no-instructions")
	cmd.SysProcAttr = sysProcAttr(cred)
	cmd.Dir = data
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w: %s", err, out)
	}
	return os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte(hba), 0o644)
}

func serverArgs(port int, c config) []string {
	fsync := "off"
	if c.fsync {
		fsync = "on"
	}
	args := []string{
		"-D", "", // filled in by launch
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=",
		"-c", "fsync=" + fsync,
		"-c", "max_connections=300",
		"-c", "shared_buffers=16MB",
		"-c", "logging_collector=off",
	}
	for _, s := range c.settings {
		args = append(args, "-c", s)
	}
	return args
}

// freePort returns a port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// launch starts the server and waits until it accepts connections.
func (s *Server) launch() error {
	log, err := os.OpenFile(s.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	args := append([]string(nil), s.args...)
	args[1] = s.data
	cmd := exec.Command(s.bin, args...)
	cmd.Dir = s.data
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = sysProcAttr(s.cred)
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
	for !s.ready(cmd.Process.Pid) {
		select {
		case <-exited:
			return fmt.Errorf("postgres on port %d exited at start; log:\n%s", s.port, s.logTail())
		default:
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("postgres on port %d did not accept connections within %v; log:\n%s",
				s.port, startTimeout, s.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// ready reports whether the postmaster pid says, in postmaster.pid, that it
// accepts connections ("ready" on the status line), as pg_isready would
// learn by connecting.
func (s *Server) ready(pid int) bool {
	b, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return len(lines) > 7 && lines[0] == strconv.Itoa(pid) && strings.TrimSpace(lines[7]) == "ready"
}

// The log is kept beside the data directory: the server's user owns that.
func (s *Server) logPath() string { return filepath.Join(filepath.Dir(s.data), "postgres.log") }

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
	return string(bytes.ToValidUTF8(b, nil))
}

// Addr returns the server's address, "127.0.0.1:port".
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Port returns the server's port.
func (s *Server) Port() int { return s.port }

// URL returns a URL for the superuser on database "postgres" at addr
// (Addr when empty, or a proxy's address), without TLS.
func (s *Server) URL(addr string) string {
	if addr == "" {
		addr = s.Addr()
	}
	return "postgres://" + Superuser + "@" + addr + "/postgres?sslmode=disable"
}

// Kill ends every server process with SIGKILL, as a crash would, and waits
// until they are all gone. Killing a server that is not running does
// nothing.
func (s *Server) Kill() {
	s.t.Helper()
	s.kill()
}

func (s *Server) kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.paused = false
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	// The group: backends of a killed postmaster would linger, holding
	// the shared memory a restart needs.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
	// A backend still dying may hold the listening socket, which then
	// accepts connections nobody serves.
	if err := procstate.WaitGroupGone(cmd.Process.Pid, killLimit); err != nil {
		s.t.Errorf("pgtest: %v", err)
	}
}

// Stop pauses every server process with SIGSTOP: they keep their
// connections but answer nothing, as a stalled machine would, until Cont.
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
		s.t.Fatalf("pgtest: %v to the server on port %d: not running", sig, s.port)
	}
	if err := procstate.Signal(s.cmd.Process.Pid, true, sig); err != nil {
		s.t.Fatalf("pgtest: %v to the server on port %d: %v", sig, s.port, err)
	}
	s.paused = paused
}

// Restart kills the server (SIGKILL) if it runs and starts it again on the
// same port and data directory, waiting until it accepts connections: it
// recovers what it had committed from its write-ahead log.
func (s *Server) Restart() {
	s.t.Helper()
	s.kill()
	if err := procstate.Relaunch(s.launch); err != nil {
		s.t.Fatalf("pgtest: restarting the server on port %d: %v", s.port, err)
	}
}

func (s *Server) cleanup() {
	s.mu.Lock()
	cmd, paused := s.cmd, s.paused
	s.mu.Unlock()
	if paused && cmd != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGCONT)
	}
	s.kill()
}
