package quorum

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// TestATurnsGrantIsUsedOnlyAfterTheRefusalItFollows: a waiter uses a
// turn's grant only when its token is above the tokens the line member's
// refusals reported (an earlier wait's turn, late, is not this one's), and
// only while the lease its refused attempt asked for lasts, counted from
// that attempt's start.
func TestATurnsGrantIsUsedOnlyAfterTheRefusalItFollows(t *testing.T) {
	var l lineState
	start := time.Now()
	l.refused("k", "o", driver.Grant{Token: 10}, false, start, time.Second, 3*time.Second, 0)

	l.turn("k", "o", driver.Turn{Grant: driver.Grant{Acquired: true, Holds: 1, Token: 9}}, start)
	_, held, _ := l.begin("k", "o", start.Add(time.Millisecond))
	assert.Nil(t, held, "a grant below the refusal's token is an earlier wait's")

	l.turn("k", "o", driver.Turn{Grant: driver.Grant{Acquired: true, Holds: 1, Token: 11}}, start)
	gated, held, _ := l.begin("k", "o", start.Add(100*time.Millisecond))
	require.NotNil(t, held, "a grant above the refusal's token follows it")
	assert.False(t, gated, "the waiter whose turn it is asks every member at once")
	assert.Equal(t, uint64(11), held.Token)

	_, held, _ = l.begin("k", "o", start.Add(time.Second))
	assert.Nil(t, held, "a grant whose lease ran out is not used")

	l.turn("k", "o", driver.Turn{Grant: driver.Grant{Acquired: true, Holds: 1, Token: 12}}, start)
	l.done("k", "o")
	_, held, _ = l.begin("k", "o", start.Add(time.Millisecond))
	assert.Nil(t, held, "a wait that ended keeps nothing")
}

// TestAStaleHoldCoolsAKey: gated attempts refused by one hold on the line
// member for staleAfter cool the key; holds that change (contention) keep
// it hot.
func TestAStaleHoldCoolsAKey(t *testing.T) {
	var l lineState
	start := time.Now()
	l.refused("k", "o", driver.Grant{Token: 1}, false, start, time.Second, 3*time.Second, 0)
	gated, _, _ := l.begin("k", "p", start)
	assert.True(t, gated, "a refusal heats the key for every owner")
	for i, tok := range []uint64{2, 3, 4} {
		at := start.Add(time.Duration(i+1) * staleAfter)
		l.refused("k", "p", driver.Grant{Token: tok}, true, at, time.Second, 3*time.Second, 0)
		gated, _, _ = l.begin("k", "p", at)
		assert.True(t, gated, "holds that change keep the key hot")
	}
	at := start.Add(4 * staleAfter)
	l.refused("k", "p", driver.Grant{Token: 4}, true, at, time.Second, 3*time.Second, 0)
	gated, _, _ = l.begin("k", "p", at)
	assert.False(t, gated, "one hold refusing for staleAfter cools the key")
}
