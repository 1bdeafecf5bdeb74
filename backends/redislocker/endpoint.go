package redislocker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"
)

// failoverAddr is the address go-redis gives a Sentinel failover client,
// whose master moves: such a client names no fixed server.
const failoverAddr = "FailoverClient"

// Endpoint implements locker.Endpointer: the server and database a
// standalone client talks to, or a Cluster's seed nodes, so that a RedLock
// refuses two clients of one server as members. It returns "" (unknown) for
// a Sentinel failover client.
func (b *Backend) Endpoint() string {
	switch c := b.client.(type) {
	case *redis.Client:
		o := c.Options()
		if o.Addr == failoverAddr {
			return ""
		}
		return fmt.Sprintf("redis://%s/%d", o.Addr, o.DB)
	case *redis.ClusterClient:
		addrs := slices.Clone(c.Options().Addrs)
		slices.Sort(addrs)
		return "redis+cluster://" + strings.Join(addrs, ",")
	}
	return ""
}
