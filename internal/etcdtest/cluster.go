package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Timing of the embedded servers. etcd requires ElectionMs ≥ 5×TickMs; ten
// ticks per election timeout keep elections randomised.
const (
	// TickMs is the heartbeat interval, in milliseconds.
	TickMs = 60
	// ElectionMs is the election timeout, in milliseconds.
	ElectionMs = 600
)

// MinLeaseTTL is the smallest lease the servers grant: etcd raises shorter
// leases to 1.5 election timeouts rounded up to a whole second, which with
// ElectionMs is one second. (With etcd's default 1 s election timeout it is
// two seconds.)
const MinLeaseTTL = time.Second

// startTimeout bounds how long a member may take to become ready.
const startTimeout = 30 * time.Second

// Cluster is a running set of embedded etcd members. Its methods are safe
// for concurrent use.
type Cluster struct {
	members []*Member
	multi   bool

	mu     sync.Mutex
	closed bool
}

// Member is one member of a Cluster.
type Member struct {
	name      string
	dir       string
	clientURL url.URL
	peerURL   url.URL

	mu   sync.Mutex
	etcd *embed.Etcd // nil while stopped
}

// Start starts a one-member cluster and stops it when the test ends. It
// fails the test if the member does not start.
func Start(t testing.TB) *Cluster {
	t.Helper()
	return StartCluster(t, 1)
}

// StartCluster starts a cluster of size members, waits until every member
// is ready and a leader is elected, and stops it when the test ends. It fails
// the test if the cluster does not start.
func StartCluster(t testing.TB, size int) *Cluster {
	t.Helper()
	if size < 1 {
		t.Fatalf("etcdtest: cluster size %d", size)
	}
	root := t.TempDir()
	var lastErr error
	// A free port can be taken by another process between our probe and
	// etcd's bind; try again with new ports when that happens.
	for attempt := 0; attempt < 3; attempt++ {
		c, err := startCluster(root, attempt, size)
		if err == nil {
			t.Cleanup(c.Close)
			return c
		}
		lastErr = err
	}
	t.Fatalf("etcdtest: starting a %d-member cluster: %v", size, lastErr)
	return nil
}

func startCluster(root string, attempt, size int) (*Cluster, error) {
	c := &Cluster{multi: size > 1}
	if c.multi {
		clusterStarted()
	}
	ports, err := freePorts(2 * size)
	if err != nil {
		return nil, err
	}
	var initial []string
	for i := range size {
		m := &Member{
			name:      fmt.Sprintf("m%d", i),
			dir:       filepath.Join(root, fmt.Sprintf("try%d-m%d", attempt, i)),
			clientURL: url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[2*i])},
			peerURL:   url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[2*i+1])},
		}
		c.members = append(c.members, m)
		initial = append(initial, m.name+"="+m.peerURL.String())
	}
	// Members of a new cluster wait for each other, so start them together.
	errs := make([]error, size)
	var wg sync.WaitGroup
	for i, m := range c.members {
		wg.Go(func() {
			errs[i] = m.start(strings.Join(initial, ","), embed.ClusterStateFlagNew)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.waitLeader(startTimeout); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// config returns the member's embed configuration.
func (m *Member) config(initialCluster, state string) *embed.Config {
	cfg := embed.NewConfig()
	cfg.Name = m.name
	cfg.Dir = m.dir
	cfg.ListenClientUrls = []url.URL{m.clientURL}
	cfg.AdvertiseClientUrls = []url.URL{m.clientURL}
	cfg.ListenPeerUrls = []url.URL{m.peerURL}
	cfg.AdvertisePeerUrls = []url.URL{m.peerURL}
	cfg.InitialCluster = initialCluster
	cfg.InitialClusterToken = "etcdtest"
	cfg.ClusterState = state
	cfg.TickMs = TickMs
	cfg.ElectionMs = ElectionMs
	cfg.UnsafeNoFsync = true
	cfg.EnableGRPCGateway = false
	cfg.Metrics = "basic"
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	return cfg
}

// start starts the member and waits until it is ready.
func (m *Member) start(initialCluster, state string) error {
	e, err := embed.StartEtcd(m.config(initialCluster, state))
	if err != nil {
		return fmt.Errorf("member %s: %w", m.name, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return fmt.Errorf("member %s: %w", m.name, err)
	case <-time.After(startTimeout):
		e.Close()
		return fmt.Errorf("member %s: not ready within %v", m.name, startTimeout)
	}
	m.mu.Lock()
	m.etcd = e
	m.mu.Unlock()
	return nil
}

// Name returns the member's name ("m0", "m1", …).
func (m *Member) Name() string { return m.name }

// Endpoint returns the member's client URL, "http://127.0.0.1:port".
func (m *Member) Endpoint() string { return m.clientURL.String() }

// Running reports whether the member is running.
func (m *Member) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.etcd != nil
}

// isLeader reports whether the member runs and is the leader.
func (m *Member) isLeader() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.etcd != nil && m.etcd.Server.Leader() == m.etcd.Server.MemberID()
}

// stop stops the member if it runs.
func (m *Member) stop() {
	m.mu.Lock()
	e := m.etcd
	m.etcd = nil
	m.mu.Unlock()
	if e != nil {
		// A hard stop first, so that a leader goes away as in a crash,
		// without handing its leadership over (and Close does not wait for
		// a hand-over to members that are stopping too).
		e.Server.HardStop()
		e.Close()
	}
}

// Size returns the number of members.
func (c *Cluster) Size() int { return len(c.members) }

// Member returns member i (0 ≤ i < Size).
func (c *Cluster) Member(i int) *Member { return c.members[i] }

// Endpoints returns every member's client URL, running or not.
func (c *Cluster) Endpoints() []string {
	eps := make([]string, len(c.members))
	for i, m := range c.members {
		eps[i] = m.Endpoint()
	}
	return eps
}

// Leader returns the index of the member that is leader, waiting up to
// timeout for one to be elected among the running members.
func (c *Cluster) Leader(timeout time.Duration) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		for i, m := range c.members {
			if m.isLeader() {
				return i, nil
			}
		}
		if time.Now().After(deadline) {
			return -1, fmt.Errorf("etcdtest: no leader within %v", timeout)
		}
		time.Sleep(TickMs * time.Millisecond)
	}
}

func (c *Cluster) waitLeader(timeout time.Duration) error {
	_, err := c.Leader(timeout)
	return err
}

// Stop stops member i, as a crash would (its data stays on disk). Stopping
// a stopped member does nothing.
func (c *Cluster) Stop(i int) {
	c.members[i].stop()
}

// Restart starts a stopped member again from its data, and waits until it
// is ready. Restarting a running member does nothing. It fails when the
// member does not start (for example because its port was taken meanwhile).
func (c *Cluster) Restart(i int) error {
	m := c.members[i]
	if m.Running() {
		return nil
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return errors.New("etcdtest: cluster closed")
	}
	// With data on disk, etcd takes the membership from its log; the initial
	// cluster only has to name the member.
	var initial []string
	for _, o := range c.members {
		initial = append(initial, o.name+"="+o.peerURL.String())
	}
	return m.start(strings.Join(initial, ","), embed.ClusterStateFlagExisting)
}

// Client returns a new client of every member, closed when the test ends.
// It fails the test if the client cannot be made.
func (c *Cluster) Client(t testing.TB) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(ClientConfig(c.Endpoints()...))
	if err != nil {
		t.Fatalf("etcdtest: client: %v", err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// ClientConfig returns a client configuration for endpoints, with a short
// dial timeout and logs silenced.
func ClientConfig(endpoints ...string) clientv3.Config {
	return clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	}
}

// Close stops every member and, once no other multi-member cluster runs,
// waits (up to 10 s) for the peer connections of stopped members to close,
// so no goroutine of the cluster outlives it. It is safe to call more than
// once; the test's cleanup calls it.
func (c *Cluster) Close() {
	c.mu.Lock()
	already := c.closed
	c.closed = true
	c.mu.Unlock()
	if already {
		return
	}
	var wg sync.WaitGroup
	for _, m := range c.members {
		wg.Go(m.stop)
	}
	wg.Wait()
	if c.multi {
		clusterClosed()
	}
}

// Compact compacts the store's history up to its current revision, as an
// operator or auto-compaction would; watchers resuming from older
// revisions then get a compaction error.
func (c *Cluster) Compact(ctx context.Context) error {
	cli, err := clientv3.New(ClientConfig(c.Endpoints()...))
	if err != nil {
		return fmt.Errorf("etcdtest: compact: %w", err)
	}
	defer cli.Close()
	resp, err := cli.Get(ctx, "\x00")
	if err != nil {
		return fmt.Errorf("etcdtest: compact: %w", err)
	}
	if _, err := cli.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		return fmt.Errorf("etcdtest: compact: %w", err)
	}
	return nil
}

// freePorts returns n distinct free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
