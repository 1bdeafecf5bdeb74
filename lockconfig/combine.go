package lockconfig

import (
	"time"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/multilock"
	"github.com/distlock/distlock/redlock"
)

// combinator makes the combinator c describes over members. The combinator
// owns the members: its Close closes them. c has been validated, so a
// RedLock's restart guard is the only setting that is not for both.
func combinator(c Config, members []driver.Backend) (driver.Backend, error) {
	var opts []combine.Option
	if d, ok := duration(c.MemberTimeout); ok {
		opts = append(opts, combine.WithMemberTimeout(d))
	}
	switch c.mode() {
	case MultiLock:
		return multilock.New(members, opts...)
	case RedLock:
		if d, ok := duration(c.RestartGuard); ok {
			opts = append(opts, combine.WithRestartGuard(d))
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
