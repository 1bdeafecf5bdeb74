package pglocker

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/distlock/distlock/driver"
)

// More SQLSTATEs that say what the user must fix.
const (
	readOnly        = "25006" // read_only_sql_transaction: a standby, or a read-only role
	invalidPassword = "28P01"
	invalidAuthSpec = "28000" // no pg_hba.conf entry, no such role
	undefinedDB     = "3D000"
	programLimit    = "54000" // program_limit_exceeded: a key too long for the table's index
)

// failed gives an error of a call the package's name, once (the Store names
// the operation and the lock), classified by what it says of the call:
//   - the server refused the statement for a reason no retry fixes (a
//     wrong password, a missing privilege, a read-only server, a missing
//     database or table): ErrInvalid, saying what to fix; the statement
//     did not run;
//   - no connection could be made, or pgx knows it sent nothing:
//     ErrUnavailable;
//   - anything else (a connection lost with the statement in flight, a
//     context that ended meanwhile) may have committed: the outcome is
//     unknown, and the error wraps none of the sentinels.
//
// ErrNotHeld and ErrClosed, and errors already classified, are returned
// as they are.
func failed(err error) error {
	switch {
	case err == nil || err == driver.ErrNotHeld || err == driver.ErrClosed:
		return err
	case errors.Is(err, driver.ErrInvalid) || errors.Is(err, driver.ErrUnavailable):
		return err
	}
	if why := misconfigured(err); why != "" {
		return fmt.Errorf("pglocker: %w: %s (server said: %v)", driver.ErrInvalid, why, serverSaid(err))
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) {
		return fmt.Errorf("pglocker: %w: cannot reach the server, nothing was sent: %w", driver.ErrUnavailable, err)
	}
	return fmt.Errorf("pglocker: outcome unknown: %w", err)
}

// misconfigured returns what the user must fix when err is a server error
// that refused the statement (or the connection) before anything ran, or ""
// when it is not one.
func misconfigured(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return ""
	}
	switch pe.Code {
	case invalidPassword:
		return "authentication failed: check the user and password in the URL (postgres://user:password@host/db) or the pool's config"
	case invalidAuthSpec:
		return "the server refused the connection: check the user, the database and the server's pg_hba.conf"
	case undefinedDB:
		return "the database does not exist"
	case insufficientPriv:
		return "the role lacks a privilege the backend needs: SELECT, INSERT, UPDATE and DELETE on its table, and USAGE and SELECT on its sequence (see the package doc)"
	case readOnly:
		return "the server is read-only (a standby, or default_transaction_read_only for the role): connect to the primary"
	case undefinedTable:
		return "the table or its sequence is missing (see Schema)"
	case programLimit:
		return "the request exceeds a limit of the server (a lock name this long cannot be stored)"
	}
	return ""
}

// serverSaid is the server's message of err.
func serverSaid(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + " " + pe.Message
	}
	return err.Error()
}

// cannotCreate is the error of a table the backend may not make.
func cannotCreate(t table, err error) error {
	return fmt.Errorf("pglocker: %w: the table %s is missing and the role may not create it (%s); have it made with:\n%s",
		driver.ErrInvalid, t.name, serverSaid(err), t.schema())
}
