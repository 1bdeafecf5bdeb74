package lockconfig

import (
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/multilock"
	"github.com/distlock/distlock/redlock"
)

// combine makes the combinator c describes over members. The combinator
// owns the members: its Close closes them. c has been validated.
func combine(c Config, members []driver.Backend) (driver.Backend, error) {
	switch c.mode() {
	case MultiLock:
		var opts []multilock.Option
		if d, ok := duration(c.MemberTimeout); ok {
			opts = append(opts, multilock.WithMemberTimeout(d))
		}
		return multilock.New(members, opts...)
	case RedLock:
		var opts []redlock.Option
		if d, ok := duration(c.MemberTimeout); ok {
			opts = append(opts, redlock.WithMemberTimeout(d))
		}
		if d, ok := duration(c.RestartGuard); ok {
			opts = append(opts, redlock.WithRestartGuard(d))
		}
		return redlock.New(members, opts...)
	}
	return nil, invalid("mode %q combines nothing", c.Mode)
}

// duration parses a validated duration setting; ok is false when it is
// empty (the default).
func duration(s string) (time.Duration, bool) {
	if s == "" {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}
