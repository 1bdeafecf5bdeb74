package redislocker

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/driver"
)

// doubles packs fs as the scripts' struct.pack('<d...') does.
func doubles(fs ...float64) string {
	var b []byte
	for _, f := range fs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	return string(b)
}

// TestTurnGrantReadsOnlyAGrant: a turn message is a grant only when it is
// two whole doubles with a positive token; anything else (a message of
// another format, a release's "released") only wakes the waiter.
func TestTurnGrantReadsOnlyAGrant(t *testing.T) {
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: 1 << 52, Uptime: 1500 * time.Millisecond},
		turnGrant(doubles(1<<52, 1500)))
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: 7}, turnGrant(doubles(7, -1)),
		"an unknown uptime is 0")
	for name, payload := range map[string]string{
		"text":            "1733100000000000 1500",
		"released":        "released",
		"one double":      doubles(7),
		"three doubles":   doubles(7, 1, 1),
		"zero token":      doubles(0, 1500),
		"negative token":  doubles(-7, 1500),
		"fractional":      doubles(7.5, 1500),
		"beyond 2^53":     doubles(1<<54, 1500),
		"not a number":    doubles(math.NaN(), 1500),
		"infinite uptime": doubles(7, math.Inf(1)),
	} {
		assert.Equal(t, driver.Grant{}, turnGrant(payload), name)
	}
}
