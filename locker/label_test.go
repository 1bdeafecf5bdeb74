package locker_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

func TestInspectSaysWhoHoldsTheLock(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k")
	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	st, err := newMutex(t, c, "k").Inspect(ctx)
	require.NoError(t, err)
	host, _ := os.Hostname()
	assert.Equal(t, host+":"+strconv.Itoa(os.Getpid()), st.Label, "the default label is host:pid")
	assert.Equal(t, m.Owner(), st.Owner)
	require.NoError(t, l.Unlock(ctx))

	m = newMutex(t, c, "k", locker.WithLabel("billing-worker-3"))
	l, err = m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	st, err = m.Inspect(ctx)
	require.NoError(t, err)
	assert.Equal(t, "billing-worker-3", st.Label)
	require.NoError(t, l.Unlock(ctx))

	// A shared owner is used as given: no label unless one is asked for.
	owner := locker.NewOwner()
	m = newMutex(t, c, "k", locker.WithOwner(owner))
	assert.Equal(t, owner, m.Owner())
	l, err = m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	st, err = m.Inspect(ctx)
	require.NoError(t, err)
	assert.Empty(t, st.Label)
	require.NoError(t, l.Unlock(ctx))
}

func TestBadLabelsAreInvalid(t *testing.T) {
	c := memlocker.New()
	for _, label := range []string{"", strings.Repeat("x", 65), "a|b", "tab\there", "nl\n"} {
		_, err := storetest.Of(t, c).Mutex("k", locker.WithLabel(label))
		require.ErrorIs(t, err, locker.ErrInvalid, "label %q", label)
	}
}
