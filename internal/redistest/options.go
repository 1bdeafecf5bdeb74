package redistest

// Option configures a server started by Start, StartReplica or
// StartCluster.
type Option func(*config)

type config struct {
	appendOnly bool
	replicaOf  *Server
	args       []string
}

// WithAppendOnly turns persistence on: an append-only file fsynced after
// every write (--appendonly yes --appendfsync always), so a restarted
// server keeps its data. Without it servers persist nothing.
func WithAppendOnly() Option {
	return func(c *config) { c.appendOnly = true }
}

// WithReplicaOf makes the server a replica of master (--replicaof).
// StartReplica also waits until the replica is in sync.
func WithReplicaOf(master *Server) Option {
	return func(c *config) { c.replicaOf = master }
}

// WithArgs passes extra redis-server arguments, e.g. "--maxmemory", "10mb".
// They come after the package's own, so they may override them.
func WithArgs(args ...string) Option {
	return func(c *config) { c.args = append(c.args, args...) }
}
