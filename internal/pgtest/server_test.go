package pgtest_test

import (
	"net"
	"testing"
	"time"

	"github.com/distlock/distlock/internal/pgtest"
)

// dials reports whether the server accepts a TCP connection within d.
func dials(addr string, d time.Duration) bool {
	c, err := net.DialTimeout("tcp", addr, d)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

func TestStartKillRestart(t *testing.T) {
	srv := pgtest.Start(t)
	if !dials(srv.Addr(), time.Second) {
		t.Fatalf("a started server does not accept connections at %s", srv.Addr())
	}
	srv.Kill()
	if dials(srv.Addr(), time.Second) {
		t.Fatalf("a killed server still accepts connections at %s", srv.Addr())
	}
	srv.Restart()
	if !dials(srv.Addr(), time.Second) {
		t.Fatalf("a restarted server does not accept connections at %s", srv.Addr())
	}
	srv.Stop()
	srv.Cont()
}
