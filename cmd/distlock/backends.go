package main

// Every backend registers its URL schemes when imported; distlock imports
// them all so that every scheme is known.
import (
	_ "github.com/distlock/distlock/backends/etcdlocker"
	_ "github.com/distlock/distlock/backends/memcachelocker"
	_ "github.com/distlock/distlock/backends/memlocker"
	_ "github.com/distlock/distlock/backends/pglocker"
	"github.com/distlock/distlock/backends/redislocker"
)

// The command reports every failure itself; go-redis's own log lines
// (connection pool dial failures) would only repeat them.
func init() {
	redislocker.SilenceClientLogs()
}
