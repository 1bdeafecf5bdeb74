package lockconfig

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// Mode says how the URLs of a Config make one lock.
type Mode string

// The modes.
const (
	// Single is one store; the Config has exactly one URL.
	Single Mode = "single"
	// MultiLock needs every store: a lock is held when all members hold it.
	MultiLock Mode = "multilock"
	// RedLock needs a majority of the stores, as in Redis's Redlock
	// algorithm; the members must be independent stores.
	RedLock Mode = "redlock"
)

// Modes lists the modes in the order documentation shows them.
var Modes = []Mode{Single, MultiLock, RedLock}

// Config describes a lock store: a mode and the URLs of its stores.
type Config struct {
	// Mode is Single, MultiLock or RedLock. Empty means Single, which
	// allows one URL only.
	Mode Mode `json:"mode,omitempty"`
	// URLs are the stores, each opened with driver.Open.
	URLs []string `json:"urls"`
	// MemberTimeout, a Go duration such as "50ms", bounds each member call
	// of a MultiLock or RedLock (combine.WithMemberTimeout). Empty means
	// the combinator's default, which scales with the lease.
	MemberTimeout string `json:"member_timeout,omitempty"`
	// RestartGuard, a Go duration, is how long a RedLock member whose
	// store restarted does not count toward the quorum
	// (combine.WithRestartGuard); "0s" turns the guard off, which is safe
	// only for stores that keep their locks across restarts. Empty means
	// the default, combine.DefaultRestartGuard.
	RestartGuard string `json:"restart_guard,omitempty"`
}

// Validate checks c without opening anything. It returns an error wrapping
// locker.ErrInvalid when the mode is unknown, there is no URL, a URL is
// malformed or repeated, or several URLs are given in Single mode.
func (c Config) Validate() error {
	mode := c.mode()
	switch mode {
	case Single, MultiLock, RedLock:
	default:
		return invalid("unknown mode %q (known: %s)", string(c.Mode), modeList())
	}
	if len(c.URLs) == 0 {
		return invalid("no URL")
	}
	if mode == Single && len(c.URLs) > 1 {
		return invalid("%d URLs need a mode: %s or %s", len(c.URLs), MultiLock, RedLock)
	}
	if c.MemberTimeout != "" {
		if mode == Single {
			return invalid("member_timeout applies to %s and %s only", MultiLock, RedLock)
		}
		if d, err := time.ParseDuration(c.MemberTimeout); err != nil || d <= 0 {
			return invalid("member_timeout %q is not a positive duration", c.MemberTimeout)
		}
	}
	if c.RestartGuard != "" {
		if mode != RedLock {
			return invalid("restart_guard applies to %s only", RedLock)
		}
		if d, err := time.ParseDuration(c.RestartGuard); err != nil || d < 0 {
			return invalid("restart_guard %q is not a duration of 0 or more", c.RestartGuard)
		}
	}
	seen := make(map[string]int, len(c.URLs))
	for i, raw := range c.URLs {
		if strings.TrimSpace(raw) == "" {
			return invalid("URL %d is empty", i+1)
		}
		u, err := url.Parse(raw)
		if err != nil {
			return invalid("URL %d is malformed", i+1)
		}
		if u.Scheme == "" {
			return invalid("URL %d (%s) has no scheme", i+1, driver.RedactURL(u))
		}
		key := u.String()
		if j, dup := seen[key]; dup {
			return invalid("URLs %d and %d are the same store (%s): the members of a %s must be distinct",
				j+1, i+1, driver.RedactURL(u), mode)
		}
		seen[key] = i
	}
	return nil
}

// mode returns c.Mode with the empty mode read as Single.
func (c Config) mode() Mode {
	if c.Mode == "" {
		return Single
	}
	return c.Mode
}

// String returns c in the spec form Parse reads, with passwords redacted.
func (c Config) String() string {
	var words []string
	if c.Mode != "" || c.MemberTimeout != "" || c.RestartGuard != "" {
		head := []string{string(c.mode())}
		if c.MemberTimeout != "" {
			head = append(head, "member_timeout="+c.MemberTimeout)
		}
		if c.RestartGuard != "" {
			head = append(head, "restart_guard="+c.RestartGuard)
		}
		words = append(words, strings.Join(head, " ")+":")
	}
	for _, raw := range c.URLs {
		words = append(words, redact(raw))
	}
	return strings.Join(words, " ")
}

// redact returns raw with its password replaced, or a placeholder when raw
// does not parse (it might still hold a password).
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<malformed URL>"
	}
	return driver.RedactURL(u)
}

func modeList() string {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("lockconfig: %w: %s", locker.ErrInvalid, fmt.Sprintf(format, args...))
}
