package pglocker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/pglocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/pgtest"
)

func TestOpenRefusesBadURLs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, url, says string
	}{
		{"unknown parameter", "postgres://u:s3cret@127.0.0.1:1/db?sslmode=disable&frobnicate=1", `"frobnicate"`},
		{"unknown parameter with a space", "postgres://u:s3cret@127.0.0.1:1/db?zz+=0", `"zz "`},
		{"libpq-only parameter", "postgresql://u:s3cret@127.0.0.1:1/db?keepalives=1", `"keepalives"`},
		{"bad table", "postgres://u:s3cret@127.0.0.1:1/db?table=locks;drop", "table"},
		{"schema too deep", "postgres://u:s3cret@127.0.0.1:1/db?table=a.b.c", "schema.name"},
		{"table too long", "postgres://u:s3cret@127.0.0.1:1/db?table=" + "t23456789012345678901234567890123456789012345678901234567890", "bytes"},
		{"bad call timeout", "postgres://u:s3cret@127.0.0.1:1/db?call_timeout=soon", "call_timeout"},
		{"non-positive call timeout", "postgres://u:s3cret@127.0.0.1:1/db?call_timeout=0s", "call timeout"},
		{"bad pgx value", "postgres://u:s3cret@127.0.0.1:1/db?sslmode=sometimes", "sslmode"},
		{"bad pool value", "postgres://u:s3cret@127.0.0.1:1/db?pool_max_conns=none", "pool_max_conns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := driver.Open(ctx, tc.url)
			if err == nil {
				_ = b.Close()
			}
			require.ErrorIs(t, err, driver.ErrInvalid)
			assert.Contains(t, err.Error(), tc.says)
			assert.NotContains(t, err.Error(), "s3cret", "the password must not appear in errors")
		})
	}
}

func TestOpenTakesKnownParameters(t *testing.T) {
	b, err := driver.Open(context.Background(),
		"postgres://u:s3cret@localhost:5433/app?sslmode=disable&application_name=x&pool_max_conns=3&connect_timeout=2&table=app.locks&call_timeout=2s")
	require.NoError(t, err)
	defer b.Close()
	pb := b.(*pglocker.Backend)
	assert.Equal(t, "app.locks", pb.Table())
	assert.Equal(t, "postgres://127.0.0.1:5433", pb.Endpoint(), "the server, not the database: two databases of one server are not independent")
	assert.EqualValues(t, 3, pb.Pool().Config().MaxConns)
}

func TestNewRefusesBadInput(t *testing.T) {
	_, err := pglocker.New(nil)
	require.ErrorIs(t, err, driver.ErrInvalid)
	srv := pgtest.Start(t)
	pool := newPool(t, srv.URL(""))
	for _, name := range []string{"", "1locks", "lo-cks", `"locks"`, "a..b"} {
		_, err = pglocker.New(pool, pglocker.WithTable(name))
		assert.ErrorIs(t, err, driver.ErrInvalid, "table %q", name)
	}
	_, err = pglocker.New(pool, pglocker.WithCallTimeout(-1))
	assert.ErrorIs(t, err, driver.ErrInvalid)
}

func TestSchemaNamesTheTable(t *testing.T) {
	s, err := pglocker.Schema("app.Locks")
	require.NoError(t, err)
	assert.Contains(t, s, `CREATE TABLE IF NOT EXISTS "app"."Locks"`)
	assert.Contains(t, s, `CREATE SEQUENCE IF NOT EXISTS "app"."Locks_token"`)
	_, err = pglocker.Schema("x y")
	assert.ErrorIs(t, err, driver.ErrInvalid)
}
