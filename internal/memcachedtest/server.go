package memcachedtest

import (
	"bufio"
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

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/internal/procstate"
)

// InstallHint says how to get the server binary.
const InstallHint = "install it with: apt-get install -y memcached"

// readyTimeout bounds how long a server may take to answer after its start.
const readyTimeout = 10 * time.Second

// Server is one memcached process. Its methods are safe for concurrent use.
type Server struct {
	bin    string
	port   int
	logDir string

	mu      sync.Mutex
	proc    *exec.Cmd
	exited  chan struct{} // closed when proc has exited
	paused  bool
	starts  int
	stopped bool
}

// Binary returns the path of the memcached binary, or an error naming the
// package to install.
func Binary() (string, error) {
	p, err := exec.LookPath("memcached")
	if err != nil {
		return "", fmt.Errorf("memcachedtest: no memcached binary in PATH; %s", InstallHint)
	}
	return p, nil
}

// RequireBinary returns the memcached binary's path. Without one it skips
// the test with an install hint, or fails it when CI is set.
func RequireBinary(t testing.TB) string {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v (CI is set, so this fails instead of skipping)", err)
			return ""
		}
		t.Skip(err)
	}
	return bin
}

// Start starts a memcached server on a free 127.0.0.1 port, waits until it
// answers, and kills it when the test ends. It skips or fails the test as
// RequireBinary does when memcached is missing, and fails it when the
// server does not start.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{bin: RequireBinary(t), logDir: t.TempDir()}
	t.Cleanup(s.Stop)
	var err error
	// A free port can be taken between the probe and memcached's bind: try
	// again with another.
	for range 3 {
		if s.port, err = freePort(); err != nil {
			break
		}
		if err = s.start(); err == nil {
			return s
		}
	}
	t.Fatalf("memcachedtest: %v", err)
	return nil
}

// start runs the process on s.port and waits until it answers.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("server stopped")
	}
	s.starts++
	logPath := filepath.Join(s.logDir, fmt.Sprintf("memcached-%d.log", s.starts))
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	args := []string{
		"-l", "127.0.0.1",
		"-p", strconv.Itoa(s.port),
		"-U", "0", // no UDP
		"-m", "64",
		"-t", "2",
		"-c", "1024",
	}
	if os.Geteuid() == 0 {
		// memcached refuses to run as root without being told which user
		// to be.
		args = append(args, "-u", "root")
	}
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", s.bin, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.proc, s.exited, s.paused = cmd, exited, false

	deadline := time.Now().Add(readyTimeout)
	for {
		if err := ping(s.addr()); err == nil {
			return nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logPath)
			s.proc = nil
			return fmt.Errorf("memcached on port %d exited at start: %s", s.port, strings.TrimSpace(string(log)))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.killLocked()
			return fmt.Errorf("memcached on port %d did not answer within %v", s.port, readyTimeout)
		}
	}
}

// ping asks the server for its version.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("version\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "VERSION ") {
		return fmt.Errorf("unexpected reply %q", line)
	}
	return nil
}

func (s *Server) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Addr returns the server's address, "127.0.0.1:port". It stays the same
// across restarts.
func (s *Server) Addr() string { return s.addr() }

// Running reports whether the server process runs (paused counts as
// running).
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc != nil
}

// Kill kills the server with SIGKILL and waits for it to exit: every item
// is lost. Killing a server that is not running does nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.killLocked()
}

func (s *Server) killLocked() {
	if s.proc == nil {
		return
	}
	_ = s.proc.Process.Kill()
	<-s.exited
	s.proc, s.paused = nil, false
}

// Restart kills the server if it runs and starts a new, empty one on the
// same port, as a crash and a restart would. It fails when the new server
// does not start.
func (s *Server) Restart() error {
	s.Kill()
	if err := s.start(); err != nil {
		return fmt.Errorf("memcachedtest: restart: %w", err)
	}
	return nil
}

// Pause stops the server with SIGSTOP: connections stay open and calls
// hang until Resume, as with a server that stalls.
func (s *Server) Pause() error {
	return s.signal(syscall.SIGSTOP, true)
}

// Resume continues a paused server with SIGCONT.
func (s *Server) Resume() error {
	return s.signal(syscall.SIGCONT, false)
}

func (s *Server) signal(sig syscall.Signal, paused bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return errors.New("memcachedtest: server not running")
	}
	if err := procstate.Signal(s.proc.Process.Pid, false, sig); err != nil {
		return fmt.Errorf("memcachedtest: %w", err)
	}
	s.paused = paused
	return nil
}

// Stop kills the server for good; later Restarts fail. The test's cleanup
// calls it.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	if s.paused && s.proc != nil {
		_ = s.proc.Process.Signal(syscall.SIGCONT)
	}
	s.killLocked()
}

// Client returns a new gomemcache client of the server, closed when the
// test ends.
func (s *Server) Client(t testing.TB) *memcache.Client {
	c := memcache.New(s.Addr())
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// freePort returns a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Ping reports whether a memcached server answers at addr.
func Ping(addr string) error { return ping(addr) }
