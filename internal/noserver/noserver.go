// Package noserver gives tests an address that refuses every connection.
//
// The usual trick, a listener closed at once, leaves its port free for the
// next program that asks the system for one: on a busy machine a server
// that another test starts can get it, and a test meant to reach nothing
// then reaches that server. Addr keeps the port instead: a socket is bound
// to it, on every address, and never listens, so connections are refused
// and the port is nobody else's until the test ends.
package noserver

import (
	"fmt"
	"net"
	"testing"
)

// Addr returns "127.0.0.1:port", where every connection is refused until
// t's cleanup; so is every other loopback address at that port (see
// Other).
func Addr(t testing.TB) string {
	t.Helper()
	port, release, err := hold()
	if err != nil {
		t.Fatalf("noserver: holding a port: %v", err)
	}
	t.Cleanup(release)
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(port))
}

// Other returns the address of Addr's port on the loopback address
// 127.0.0.(n+1), n in [1, 253]: a distinct address that refuses
// connections as long as addr does, for tests that need several stores
// nothing listens on.
func Other(addr string, n int) (string, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if n < 1 || n > 253 {
		return "", fmt.Errorf("noserver: loopback address %d out of range", n)
	}
	return net.JoinHostPort(fmt.Sprintf("127.0.0.%d", n+1), port), nil
}
