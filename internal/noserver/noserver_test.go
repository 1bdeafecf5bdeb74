//go:build unix

package noserver_test

import (
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/distlock/distlock/internal/noserver"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestAddrRefusesAndKeepsItsPort: a connection to the address, or to
// another loopback address at its port, is refused, and nobody can listen
// on the port while the test runs.
func TestAddrRefusesAndKeepsItsPort(t *testing.T) {
	addr := noserver.Addr(t)
	other, err := noserver.Other(addr, 2)
	require.NoError(t, err)
	assert.NotEqual(t, addr, other)
	for _, a := range []string{addr, other} {
		c, err := net.DialTimeout("tcp", a, time.Second)
		if err == nil {
			_ = c.Close()
		}
		assert.ErrorIs(t, err, syscall.ECONNREFUSED, a)
	}
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		_ = ln.Close()
	}
	assert.Error(t, err, "listening on %s, which is held", addr)
}

func TestOtherRejectsOutOfRange(t *testing.T) {
	for _, n := range []int{0, 254} {
		_, err := noserver.Other("127.0.0.1:1", n)
		assert.Error(t, err, n)
	}
}
