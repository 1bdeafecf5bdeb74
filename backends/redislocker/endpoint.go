package redislocker

import (
	"net"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"
)

// failoverAddr is the address go-redis gives a Sentinel failover client,
// whose master moves: such a client names no fixed server.
const failoverAddr = "FailoverClient"

// Endpoint implements driver.Endpointer: the server a standalone client
// talks to, or a Cluster's seed nodes, so that a RedLock refuses two clients
// of one server as members. Databases of one server are one store (they
// fail together), so the database is left out; "localhost" is written as
// the loopback address. It returns "" (unknown) for a Sentinel failover
// client.
func (b *Backend) Endpoint() string {
	switch c := b.client.(type) {
	case *redis.Client:
		o := c.Options()
		if o.Addr == failoverAddr {
			return ""
		}
		return "redis://" + canonicalAddr(o.Addr)
	case *redis.ClusterClient:
		addrs := make([]string, len(c.Options().Addrs))
		for i, a := range c.Options().Addrs {
			addrs[i] = canonicalAddr(a)
		}
		slices.Sort(addrs)
		return "redis+cluster://" + strings.Join(addrs, ",")
	}
	return ""
}

// canonicalAddr writes one server's address one way.
func canonicalAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
