package lockconfig_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/lockconfig"
	"github.com/distlock/distlock/locker"
)

// A spec takes the forms a file does: a one-line JSON object too, as
// $DISTLOCK_BACKEND is documented to.
func TestParseReadsAOneLineJSONObject(t *testing.T) {
	c, err := lockconfig.Parse(` {"mode": "RedLock", "urls": ["mem://a", "mem://b", "mem://c"]}`)
	require.NoError(t, err)
	assert.Equal(t, lockconfig.Mode("redlock"), c.Mode)
	assert.Equal(t, []string{"mem://a", "mem://b", "mem://c"}, c.URLs)

	_, err = lockconfig.Parse(`{"urls": ["mem://a"], "colour": "red"}`)
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.Contains(t, err.Error(), "colour")
}
