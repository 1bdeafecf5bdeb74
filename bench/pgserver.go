package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// pgServer is one PostgreSQL server on a free port of 127.0.0.1, in a
// temporary directory, started by this program with its default
// durability settings. (internal/pgtest does the same for tests but needs
// a testing.TB.)
type pgServer struct {
	addr string
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// pgBinary finds a PostgreSQL program on PATH or where Debian keeps it.
func pgBinary(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	found, _ := filepath.Glob(filepath.Join("/usr/lib/postgresql", "*", "bin", name))
	if len(found) == 0 {
		return "", fmt.Errorf("%s not found (apt-get install -y postgresql)", name)
	}
	return found[len(found)-1], nil
}

// pgCredential is the user the server runs as: PostgreSQL refuses root.
func pgCredential() (*syscall.SysProcAttr, error) {
	attr := childAttr()
	if os.Geteuid() != 0 {
		return attr, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		if u, err = user.Lookup("nobody"); err != nil {
			return nil, fmt.Errorf("no unprivileged user to run PostgreSQL as: %w", err)
		}
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	attr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
	return attr, nil
}

// startPostgres makes a database cluster and starts a server on it,
// waiting until it accepts connections.
func startPostgres() (*pgServer, error) {
	initdb, err := pgBinary("initdb")
	if err != nil {
		return nil, err
	}
	postgres, err := pgBinary("postgres")
	if err != nil {
		return nil, err
	}
	attr, err := pgCredential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "distlock-bench-pg-")
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := preparePgDir(dir, data, attr.Credential); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	ini := exec.Command(initdb, "-D", data, "-U", "postgres", "--auth=trust", "--locale=C", "--no-sync")
	ini.SysProcAttr = attr
	if out, err := ini.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	port, err := freePort()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(postgres, "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=")
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", postgres, err)
	}
	s := &pgServer{addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !pgReady(data, cmd.Process.Pid) {
		select {
		case <-s.done:
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("postgres on port %d exited at start", port)
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("postgres on port %d did not start", port)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s, nil
}

// preparePgDir lets the server's user reach its data directory.
func preparePgDir(dir, data string, cred *syscall.Credential) error {
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(data, 0o700); err != nil {
		return err
	}
	if cred != nil {
		return os.Chown(data, int(cred.Uid), int(cred.Gid))
	}
	return nil
}

// pgReady reports whether postmaster.pid says the server accepts
// connections.
func pgReady(data string, pid int) bool {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return len(lines) > 7 && lines[0] == strconv.Itoa(pid) && strings.TrimSpace(lines[7]) == "ready"
}

// url is a URL of the server's superuser.
func (s *pgServer) url() string {
	return "postgres://postgres@" + s.addr + "/postgres?sslmode=disable"
}

// stop kills the server and removes its directory.
func (s *pgServer) stop() {
	_ = s.cmd.Process.Kill()
	<-s.done
	_ = os.RemoveAll(s.dir)
}
