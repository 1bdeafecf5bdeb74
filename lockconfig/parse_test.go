package lockconfig_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/lockconfig"
	"github.com/distlock/distlock/locker"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want lockconfig.Config
	}{
		{"mem://a", lockconfig.Config{URLs: []string{"mem://a"}}},
		{"  single: mem://a\n", lockconfig.Config{Mode: lockconfig.Single, URLs: []string{"mem://a"}}},
		{"redlock: mem://a mem://b mem://c", lockconfig.Config{Mode: lockconfig.RedLock, URLs: []string{"mem://a", "mem://b", "mem://c"}}},
		{"RedLock:mem://a,mem://b, mem://c,", lockconfig.Config{Mode: lockconfig.RedLock, URLs: []string{"mem://a", "mem://b", "mem://c"}}},
		{"multilock:\n redis://u:p,w@h:1/0,etcd://e:2379", lockconfig.Config{Mode: lockconfig.MultiLock, URLs: []string{"redis://u:p,w@h:1/0", "etcd://e:2379"}}},
		{"redis+cluster://a:7000,b:7001,c:7002", lockconfig.Config{URLs: []string{"redis+cluster://a:7000,b:7001,c:7002"}}},
		{"redlock restart_guard=0s member_timeout=50ms: mem://a mem://b mem://c", lockconfig.Config{Mode: lockconfig.RedLock,
			URLs: []string{"mem://a", "mem://b", "mem://c"}, MemberTimeout: "50ms", RestartGuard: "0s"}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			got, err := lockconfig.Parse(tc.spec)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseRejects(t *testing.T) {
	for spec, why := range map[string]string{
		"":                                 "no URL",
		"redlock:":                         "no URL",
		"mem://a mem://b":                  "need a mode",
		"single: mem://a mem://b":          "need a mode",
		"quorum: mem://a mem://b":          "unknown mode",
		"redlock: mem://a mem://b mem://a": "same store",
		"redlock: mem://a noscheme":        "no scheme",
		"redlock: mem://a redis://u:hunter2@h:99999999999999999999x": "malformed",
		"redlock frob=1: mem://a mem://b":                            "unknown setting",
		"redlock restart_guard=-1s: mem://a mem://b":                 "restart_guard",
		"multilock restart_guard=1s: mem://a mem://b":                "restart_guard applies to redlock only",
		"redlock member_timeout=0s: mem://a mem://b":                 "member_timeout",
		"single member_timeout=1s: mem://a":                          "member_timeout applies",
	} {
		t.Run(spec, func(t *testing.T) {
			_, err := lockconfig.Parse(spec)
			require.ErrorIs(t, err, locker.ErrInvalid)
			assert.Contains(t, err.Error(), why)
			assert.NotContains(t, err.Error(), "hunter2")
		})
	}
}

func TestStringRedactsAndRoundTrips(t *testing.T) {
	c, err := lockconfig.Parse("redlock restart_guard=1m: redis://:hunter2@a:6379 redis://b:6379?sentinel_password=hunter2 redis://c:6379")
	require.NoError(t, err)
	s := c.String()
	assert.NotContains(t, s, "hunter2")
	assert.Equal(t, "redlock restart_guard=1m: redis://:xxxxx@a:6379 redis://b:6379?sentinel_password=xxxxx redis://c:6379", s)
	again, err := lockconfig.Parse(s)
	require.NoError(t, err)
	assert.Equal(t, c.Mode, again.Mode)
	assert.Equal(t, c.RestartGuard, again.RestartGuard)
	assert.Len(t, again.URLs, 3)

	one, err := lockconfig.Parse("mem://a")
	require.NoError(t, err)
	assert.Equal(t, "mem://a", one.String())
}

func TestParseFile(t *testing.T) {
	text := `# three independent masters
redlock:
redis://a:6379   # rack 1
redis://b:6379
  # redis://old:6379
redis://c:6379#frag
`
	c, err := lockconfig.ParseFile([]byte(text))
	require.NoError(t, err)
	assert.Equal(t, lockconfig.Config{Mode: lockconfig.RedLock,
		URLs: []string{"redis://a:6379", "redis://b:6379", "redis://c:6379#frag"}}, c)

	c, err = lockconfig.ParseFile([]byte(` {"mode": "MultiLock", "urls": ["mem://a", "mem://b"], "member_timeout": "20ms"}`))
	require.NoError(t, err)
	assert.Equal(t, lockconfig.Config{Mode: lockconfig.MultiLock, URLs: []string{"mem://a", "mem://b"}, MemberTimeout: "20ms"}, c)

	c, err = lockconfig.ParseFile([]byte("redlock restart_guard=0s:\nmem://a\nmem://b\nmem://c\n"))
	require.NoError(t, err)
	assert.Equal(t, "0s", c.RestartGuard)

	_, err = lockconfig.ParseFile([]byte(`{"mode": "redlock", "url": ["mem://a"]}`))
	require.ErrorIs(t, err, locker.ErrInvalid, "unknown JSON fields are errors")
	assert.Contains(t, err.Error(), `"url"`)
	_, err = lockconfig.ParseFile([]byte(`{"urls": ["mem://a"]} {}`))
	require.ErrorIs(t, err, locker.ErrInvalid)
	_, err = lockconfig.ParseFile([]byte(`{"urls": ["mem://a", "mem://b"]}`))
	require.ErrorIs(t, err, locker.ErrInvalid, "several URLs need a mode")
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locks.conf")
	require.NoError(t, os.WriteFile(path, []byte("multilock: mem://a mem://b\n"), 0o600))
	c, err := lockconfig.Load(path)
	require.NoError(t, err)
	assert.Equal(t, lockconfig.MultiLock, c.Mode)

	require.NoError(t, os.WriteFile(path, []byte("mem://a mem://b\n"), 0o600))
	_, err = lockconfig.Load(path)
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.Contains(t, err.Error(), path, "the error names the file")

	_, err = lockconfig.Load(filepath.Join(t.TempDir(), "missing"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
