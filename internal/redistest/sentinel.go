package redistest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// StartSentinel starts a Redis Sentinel (redis-server --sentinel) that
// monitors master under the name masterName with a quorum of one, and
// waits until it reports the master's address. Its Addr is what a Sentinel
// client dials. The sentinel is killed when the test ends.
func StartSentinel(t testing.TB, master *Server, masterName string) *Server {
	t.Helper()
	s := startWith(t, false, func(port int, dir string) ([]string, error) {
		conf := filepath.Join(dir, "sentinel.conf")
		text := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nsentinel monitor %s 127.0.0.1 %d 1\n",
			port, dir, masterName, master.Port())
		if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
			return nil, err
		}
		return []string{conf, "--sentinel"}, nil
	})
	s.waitFor("the sentinel to know its master", func() (bool, error) {
		reply, err := s.Do("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName)
		if err != nil {
			return false, err
		}
		addr, _ := reply.([]any)
		return len(addr) == 2 && addr[1] == strconv.Itoa(master.Port()), nil
	})
	return s
}
