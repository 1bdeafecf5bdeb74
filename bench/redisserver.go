package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is one redis-server process on a free port of 127.0.0.1,
// without persistence, started by this program. (internal/redistest does
// the same for tests but needs a testing.TB; a benchmark program has none.)
type redisServer struct {
	addr string
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// startRedis starts redis-server and waits until it answers PING.
func startRedis(ctx context.Context) (*redisServer, error) {
	return startRedisUnder(ctx, nil)
}

// startRedisUnder starts redis-server as startRedis does, run by the
// command wrapper (with its arguments; none: directly).
func startRedisUnder(ctx context.Context, wrapper []string) (*redisServer, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server not found (apt-get install -y redis-server): %w", err)
	}
	var lastErr error
	for range 5 { // a free port can be taken before the server binds it
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s, err := launchRedis(ctx, append(slices.Clone(wrapper), bin), port)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// launchRedis runs argv (redis-server, after its wrapper if any) on port.
func launchRedis(ctx context.Context, argv []string, port int) (*redisServer, error) {
	dir, err := os.MkdirTemp("", "distlock-bench-redis-")
	if err != nil {
		return nil, err
	}
	args := append(argv[1:len(argv):len(argv)],
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", dir, "--daemonize", "no", "--save", "", "--appendonly", "no",
		"--logfile", "", "--loglevel", "warning")
	cmd := exec.Command(argv[0], args...)
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	s := &redisServer{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(15 * time.Second)
	for {
		// Dialled first: go-redis logs every connection refused while the
		// server starts (slowly under valgrind, see instructions.go).
		err := dialOnce(ctx, s.addr)
		if err == nil {
			pctx, cancel := context.WithTimeout(ctx, time.Second)
			err = c.Ping(pctx).Err()
			cancel()
		}
		if err == nil {
			return s, nil
		}
		select {
		case <-s.done:
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("redis-server on port %d exited at start", port)
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("redis-server on port %d did not answer PING: %w", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop kills the server and removes its directory.
func (s *redisServer) stop() {
	_ = s.cmd.Process.Kill()
	<-s.done
	_ = os.RemoveAll(s.dir)
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

// dialOnce reports whether addr accepts a TCP connection.
func dialOnce(ctx context.Context, addr string) error {
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	conn, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		return err
	}
	return conn.Close()
}
