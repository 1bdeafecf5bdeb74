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

// turn packs a turn message as the scripts do (turnFormat).
func turn(next string, fs ...float64) string {
	return doubles(fs...) + string(binary.LittleEndian.AppendUint32(nil, uint32(len(next)))) + next
}

// TestTurnOfReadsOnlyAGrant: a turn message is a grant only when it is
// seven whole doubles with a positive token, then the next waiter after
// its length, or the two doubles of a grant to a request without a floor;
// a notice when the token is negative and a waiter follows; anything else (a message of another format, a release's "released")
// only wakes the waiter.
func TestTurnOfReadsOnlyAGrant(t *testing.T) {
	assert.Equal(t, driver.Turn{
		Grant: driver.Grant{Acquired: true, Holds: 1, Token: 1 << 52, Uptime: 1500 * time.Millisecond},
		Floor: 1 << 51, Passed: true,
		Next: driver.Successor{Owner: "w", TTL: 30 * time.Second, Patience: 2 * time.Second, Floor: 9},
	}, turnOf(turn("w", 1<<52, 1500, 1<<51, 1, 30000, 2000, 9)))
	assert.Equal(t, driver.Turn{Grant: driver.Grant{Acquired: true, Holds: 1, Token: 7}}, turnOf(turn("", 7, -1, 0, 0, 0, 0, 0)),
		"an unknown uptime is 0, and nobody next is a zero Successor")
	assert.Equal(t, driver.Turn{Grant: driver.Grant{Acquired: true, Holds: 1, Token: 7, Uptime: 1500 * time.Millisecond}},
		turnOf(doubles(7, 1500)), "a grant to a request without a floor")
	assert.Equal(t, driver.Turn{Behind: 7, Next: driver.Successor{Owner: "w", TTL: 30 * time.Second, Patience: 2 * time.Second, Floor: 9}},
		turnOf(turn("w", -7, -1, 0, 0, 30000, 2000, 9)), "a notice: the hold's token negated, then the waiter that joined behind it")
	for name, payload := range map[string]string{
		"text":              "1733100000000000 1500",
		"released":          "released",
		"short zero token":  doubles(0, 1500),
		"short fractional":  doubles(7.5, 1500),
		"three doubles":     doubles(7, 1500, 0),
		"no next":           doubles(7, 1500, 0, 0, 0, 0, 0),
		"short next":        turn("w", 7, 1500, 0, 0, 0, 0, 0)[:8*7+4],
		"long next":         turn("w", 7, 1500, 0, 0, 0, 0, 0) + "x",
		"zero token":        turn("", 0, 1500, 0, 0, 0, 0, 0),
		"notice, no waiter": turn("", -7, 1500, 0, 0, 0, 0, 0),
		"negative floor":    turn("", 7, 1500, -1, 0, 0, 0, 0),
		"negative lease":    turn("w", 7, 1500, 0, 0, -1, 0, 0),
		"fractional":        turn("", 7.5, 1500, 0, 0, 0, 0, 0),
		"beyond 2^53":       turn("", 1<<54, 1500, 0, 0, 0, 0, 0),
		"not a number":      turn("", math.NaN(), 1500, 0, 0, 0, 0, 0),
		"infinite uptime":   turn("", 7, math.Inf(1), 0, 0, 0, 0, 0),
		"infinite patience": turn("w", 7, 1500, 0, 0, 0, math.Inf(1), 0),
	} {
		assert.Equal(t, driver.Turn{}, turnOf(payload), name)
	}
}
