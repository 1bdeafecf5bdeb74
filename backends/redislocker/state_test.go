package redislocker_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/redistest"
)

// storedState is a mutex's state as the lock hash's field s packs it (see
// stateFormat in scripts.go).
type storedState struct {
	End, Holds, Token, Expiry, Boot, Queued float64
	Owner                                   string
}

// readState decodes the state of the lock hash key on srv; ok is false
// when there is none.
func readState(t *testing.T, srv *redistest.Server, key string) (st storedState, ok bool) {
	t.Helper()
	reply, err := srv.Do("HGET", key, "s")
	require.NoError(t, err)
	if reply == nil {
		return storedState{}, false
	}
	b := []byte(reply.(string))
	require.GreaterOrEqual(t, len(b), 6*8+4, "the state of %q", key)
	nums := []*float64{&st.End, &st.Holds, &st.Token, &st.Expiry, &st.Boot, &st.Queued}
	for i, p := range nums {
		*p = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	n := int(binary.LittleEndian.Uint32(b[6*8:]))
	require.Len(t, b, 6*8+4+n, "the state of %q", key)
	st.Owner = string(b[6*8+4:])
	return st, true
}
