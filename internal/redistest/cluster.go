package redistest

import (
	"fmt"
	"os/exec"
	"strconv"
	"testing"
)

// Cluster is a Redis Cluster of masters without replicas, each a Server.
type Cluster struct {
	servers []*Server
}

// StartCluster starts a Redis Cluster of masters (at least 3) on free
// loopback ports, joins them with redis-cli --cluster create, and waits
// until every node reports cluster_state:ok and knows every slot's owner.
// The nodes are killed when the test ends.
func StartCluster(t testing.TB, masters int, opts ...Option) *Cluster {
	t.Helper()
	if masters < 3 {
		t.Fatalf("redistest: a cluster needs at least 3 masters, not %d", masters)
	}
	cli := Binary(t, "redis-cli")
	var c config
	for _, o := range opts {
		o(&c)
	}
	cl := &Cluster{}
	args := []string{"--cluster", "create"}
	for range masters {
		s := start(t, c, true)
		cl.servers = append(cl.servers, s)
		args = append(args, s.Addr())
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	out, err := exec.Command(cli, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, s := range cl.servers {
		s.waitFor("cluster_state:ok", func() (bool, error) {
			reply, err := s.Do("CLUSTER", "INFO")
			if err != nil {
				return false, err
			}
			text, _ := reply.(string)
			f := parseFields(text)
			return f["cluster_state"] == "ok" &&
				f["cluster_slots_ok"] == "16384" &&
				f["cluster_known_nodes"] == strconv.Itoa(masters), nil
		})
	}
	// Every node must also agree on the slot map before clients read it.
	cl.servers[0].waitFor("agreement on the slot map", func() (bool, error) {
		for _, s := range cl.servers {
			reply, err := s.Do("CLUSTER", "SLOTS")
			if err != nil {
				return false, err
			}
			ranges, _ := reply.([]any)
			if countSlots(ranges) != 16384 {
				return false, fmt.Errorf("node %s covers %d slots", s.Addr(), countSlots(ranges))
			}
		}
		return true, nil
	})
	return cl
}

func countSlots(ranges []any) int {
	n := 0
	for _, r := range ranges {
		fields, _ := r.([]any)
		if len(fields) < 2 {
			continue
		}
		lo, _ := fields[0].(int64)
		hi, _ := fields[1].(int64)
		n += int(hi-lo) + 1
	}
	return n
}

// Addrs returns the nodes' addresses, for a cluster client's seed list.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.servers))
	for i, s := range c.servers {
		addrs[i] = s.Addr()
	}
	return addrs
}

// Servers returns the nodes, in the order of Addrs.
func (c *Cluster) Servers() []*Server { return c.servers }

// WaitOK waits until every running node reports cluster_state:ok, for
// instance after a node was restarted.
func (c *Cluster) WaitOK(t testing.TB) {
	t.Helper()
	for _, s := range c.servers {
		if !s.Running() {
			continue
		}
		s.waitFor("cluster_state:ok", func() (bool, error) {
			reply, err := s.Do("CLUSTER", "INFO")
			if err != nil {
				return false, err
			}
			text, _ := reply.(string)
			return parseFields(text)["cluster_state"] == "ok", nil
		})
	}
}
