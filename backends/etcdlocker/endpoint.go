package etcdlocker

import (
	"slices"
	"strings"
)

// Endpoint implements driver.Endpointer: the cluster the client talks to,
// named by its sorted endpoints, so that a RedLock refuses two clients of one
// etcd cluster as members.
func (b *Backend) Endpoint() string {
	eps := slices.Clone(b.cli.Endpoints())
	slices.Sort(eps)
	return "etcd://" + strings.Join(eps, ",")
}
