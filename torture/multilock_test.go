package torture

import (
	"testing"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/multilock"
)

// multiLock is a MultiLock over three Redis servers without persistence:
// a hold needs every member.
var multiLock = &config{name: "multilock", deploy: func(t *testing.T) *deployment {
	d := &deployment{lease: redisLease}
	for range 3 {
		d.redis = append(d.redis, redistest.Start(t))
	}
	d.newBackend = func(t *testing.T, l *links, i int) driver.Backend {
		ml, err := multilock.New(d.redisMembers(t, l, i))
		if err != nil {
			t.Fatal(err)
		}
		return ml
	}
	return d
}}
