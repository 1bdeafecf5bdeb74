package pglocker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/pglocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/pgtest"
)

// roleURL is a URL of srv for role with password.
func roleURL(srv *pgtest.Server, role, password string) string {
	return fmt.Sprintf("postgres://%s:%s@%s/postgres?sslmode=disable", role, password, srv.Addr())
}

// exec runs statements as srv's superuser.
func exec(t *testing.T, srv *pgtest.Server, statements ...string) {
	t.Helper()
	pool := newPool(t, srv.URL(""))
	for _, s := range statements {
		_, err := pool.Exec(context.Background(), s)
		require.NoError(t, err, s)
	}
}

// tryLock opens url and tries a lock, returning the error.
func tryLock(t *testing.T, url string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := driver.Open(ctx, url)
	require.NoError(t, err)
	defer b.Close()
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	return err
}

func TestMisconfigurationsAreInvalid(t *testing.T) {
	srv := pgtest.Start(t)
	schema, err := pglocker.Schema(pglocker.DefaultTable)
	require.NoError(t, err)
	exec(t, srv,
		"CREATE ROLE noprivs LOGIN PASSWORD 'pw1'",
		"CREATE ROLE reader LOGIN PASSWORD 'pw2'",
		"ALTER ROLE reader SET default_transaction_read_only = on",
		"CREATE ROLE creator LOGIN PASSWORD 'pw3'",
		schema,
		"GRANT SELECT, INSERT, UPDATE, DELETE ON distlock_locks TO reader",
		"GRANT USAGE, SELECT ON SEQUENCE distlock_locks_token TO reader",
	)

	t.Run("WrongPassword", func(t *testing.T) {
		err := tryLock(t, roleURL(srv, "noprivs", "wr0ng-pw"))
		require.ErrorIs(t, err, driver.ErrInvalid)
		assert.Contains(t, err.Error(), "password")
		assert.NotContains(t, err.Error(), "wr0ng-pw")
	})
	t.Run("NoPrivilege", func(t *testing.T) {
		err := tryLock(t, roleURL(srv, "noprivs", "pw1"))
		require.ErrorIs(t, err, driver.ErrInvalid)
		assert.Contains(t, err.Error(), "privilege")
	})
	t.Run("ReadOnly", func(t *testing.T) {
		err := tryLock(t, roleURL(srv, "reader", "pw2"))
		require.ErrorIs(t, err, driver.ErrInvalid)
		assert.Contains(t, err.Error(), "read-only")
	})
	t.Run("CannotCreate", func(t *testing.T) {
		// PostgreSQL 15 lets no role but the owner create in schema public.
		err := tryLock(t, roleURL(srv, "creator", "pw3")+"&table=creators_locks")
		require.ErrorIs(t, err, driver.ErrInvalid)
		assert.Contains(t, err.Error(), `CREATE TABLE IF NOT EXISTS "creators_locks"`, "the error gives the statement to run")
	})
	t.Run("NoDatabase", func(t *testing.T) {
		err := tryLock(t, "postgres://postgres@"+srv.Addr()+"/nosuchdb?sslmode=disable")
		require.ErrorIs(t, err, driver.ErrInvalid)
		assert.Contains(t, err.Error(), "database")
	})
}

func TestCreatesTheTableOnFirstUse(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	// Several backends at once, as several processes starting together.
	errs := make(chan error, 4)
	for range cap(errs) {
		b := newBackend(t, srv, pglocker.WithTable("public.fresh"))
		go func() {
			_, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
			errs <- err
		}()
	}
	for range cap(errs) {
		require.NoError(t, <-errs)
	}
	b := newBackend(t, srv, pglocker.WithTable("public.fresh"))
	st, err := b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.Equal(t, 4, st.Holds, "the four attempts of one owner re-entered one hold")
}
