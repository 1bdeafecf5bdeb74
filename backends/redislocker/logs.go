package redislocker

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// SilenceClientLogs stops go-redis from printing its internal log lines,
// such as connection pool dial failures, to standard error. go-redis has one
// logger per process, so this quiets every go-redis client of the program:
// it is for programs such as the distlock command, which report every
// failure through errors and want a clean standard error.
func SilenceClientLogs() {
	redis.SetLogger(discardLogger{})
}

// discardLogger is a go-redis logger that prints nothing.
type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}
