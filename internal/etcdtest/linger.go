package etcdtest

import (
	"runtime"
	"strings"
	"sync"
	"time"
)

// Stopped members leave peer connections behind for a few seconds: an
// in-flight read on a peer connection re-arms its own deadline (etcd's
// timeoutConn, 5 s for peers), so net/http cannot abort it at once, and the
// other member's client side of that connection waits for it. Close waits
// for them to end, so that tests checking for leaked goroutines (goleak)
// need no exceptions for them (torture's TestMain names the one goroutine
// a stopped member can leave for good).

// lingerLimit bounds the wait; the peer read timeout is 5 s.
const lingerLimit = 10 * time.Second

// peerConnMarkers identify goroutines of peer connections in a stack dump.
var peerConnMarkers = []string{
	"go.etcd.io/etcd/client/pkg/v3/transport.timeoutConn",
	"net/http.(*persistConn)",
	"net/http.(*conn).serve",
	"go.etcd.io/etcd/server/v3/etcdserver/api/rafthttp",
}

// running counts clusters with more than one member that are not closed:
// their live connections look the same, so Close only waits when it closes
// the last one.
var running = struct {
	sync.Mutex
	n int
}{}

func clusterStarted() {
	running.Lock()
	running.n++
	running.Unlock()
}

// clusterClosed waits, when c was the last multi-member cluster, until the
// peer connections of stopped members are gone or lingerLimit passes.
func clusterClosed() {
	running.Lock()
	running.n--
	last := running.n == 0
	running.Unlock()
	if !last {
		return
	}
	deadline := time.Now().Add(lingerLimit)
	for peerConnsAlive() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
}

// peerConnsAlive reports whether any goroutine serves a peer connection.
func peerConnsAlive() bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	stacks := string(buf)
	for _, m := range peerConnMarkers {
		if strings.Contains(stacks, m) {
			return true
		}
	}
	return false
}
