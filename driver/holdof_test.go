package driver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/driver"
)

// TestHoldOf finds an owner's hold in a State: a mutex's by Owner and
// Token, a shared lock's among its Holders, by owner and mode.
func TestHoldOf(t *testing.T) {
	mutex := driver.State{Held: true, Owner: "a", Holds: 2, Token: 7}
	shared := driver.State{Held: true, Owner: "w", Token: 9, Holders: []driver.Holder{
		{Owner: "r", Mode: driver.Read, Token: 5},
		{Owner: "w", Mode: driver.Read, Token: 9},
		{Owner: "w", Mode: driver.Write, Token: 9},
		{Owner: "s", Mode: driver.Permits},
	}}
	for _, tc := range []struct {
		st    driver.State
		owner string
		mode  driver.Mode
		token uint64
		held  bool
	}{
		{mutex, "a", 0, 7, true},
		{mutex, "b", 0, 0, false},
		{driver.State{Token: 7}, "a", 0, 0, false},
		{shared, "r", driver.Read, 5, true},
		{shared, "r", driver.Write, 0, false},
		{shared, "w", driver.Write, 9, true},
		{shared, "s", driver.Permits, 0, true},
		{shared, "x", driver.Read, 0, false},
	} {
		token, held := tc.st.HoldOf(tc.owner, tc.mode)
		assert.Equal(t, tc.held, held, "%s in mode %v", tc.owner, tc.mode)
		assert.Equal(t, tc.token, token, "%s in mode %v", tc.owner, tc.mode)
	}
}
