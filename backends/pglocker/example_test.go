package pglocker_test

import (
	"context"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/distlock/distlock/backends/pglocker"
	"github.com/distlock/distlock/locker"
)

// Open a store by URL; its backend owns its pool.
func Example_open() {
	ctx := context.Background()
	store, err := locker.Open(ctx, "postgres://app:secret@db.internal:5432/app?sslmode=verify-full&table=app_locks")
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	m, err := store.Mutex("orders/42")
	if err != nil {
		log.Fatal(err)
	}
	lease, err := m.Lock(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Unlock(context.Background())
	// lease.Token() comes from the table's sequence: pass it to the resource.
}

// Make a store over the pool the program already has.
func ExampleNew() {
	pool, err := pgxpool.New(context.Background(), "postgres://app@127.0.0.1:5432/app")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	backend, err := pglocker.New(pool)
	if err != nil {
		log.Fatal(err)
	}
	store := locker.NewStore(backend)
	defer store.Close() // closes backend, and leaves pool open: it is the caller's
	_, _ = store.Mutex("orders/42")
}

// Print the statements that make the table, for a role that may not.
func ExampleSchema() {
	s, err := pglocker.Schema("app_locks")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s)
	// Output:
	// CREATE TABLE IF NOT EXISTS "app_locks" (
	// 	key        bytea PRIMARY KEY,
	// 	owner      bytea NOT NULL,
	// 	holds      integer NOT NULL,
	// 	token      bigint NOT NULL,
	// 	expires_at timestamptz NOT NULL
	// );
	// CREATE SEQUENCE IF NOT EXISTS "app_locks_token";
}
