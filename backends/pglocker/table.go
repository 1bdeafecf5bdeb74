package pglocker

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/distlock/distlock/driver"
)

// DefaultTable is the table of leases unless WithTable names another.
const DefaultTable = "distlock_locks"

// tokenSuffix names the table's sequence of fencing tokens.
const tokenSuffix = "_token"

// maxIdentifier is PostgreSQL's longest identifier, in bytes.
const maxIdentifier = 63

// identifier is a table name the backend accepts: a plain identifier, or a
// schema and one, with nothing that needs quoting but case.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// table is a validated table name and what the backend's statements need
// of it.
type table struct {
	name     string // as the user gave it: "locks" or "schema.locks"
	ident    string // quoted for SQL
	sequence string // quoted for SQL
	channel  string // the NOTIFY channel: the name as given
	lockSpan int32  // the first key of the advisory locks TryLock takes
}

// parseTable validates name, which is "table" or "schema.table", each part
// a plain identifier that leaves room for the sequence's suffix.
func parseTable(name string) (table, error) {
	parts := strings.Split(name, ".")
	if len(parts) > 2 {
		return table{}, fmt.Errorf("pglocker: %w: table %q: want name or schema.name", driver.ErrInvalid, name)
	}
	for _, p := range parts {
		if !identifier.MatchString(p) {
			return table{}, fmt.Errorf("pglocker: %w: table %q: each part must be letters, digits and _, not starting with a digit", driver.ErrInvalid, name)
		}
	}
	last := parts[len(parts)-1]
	if len(last)+len(tokenSuffix) > maxIdentifier || len(parts[0]) > maxIdentifier {
		return table{}, fmt.Errorf("pglocker: %w: table %q: at most %d bytes a part (and the table's %d, for its sequence %s)",
			driver.ErrInvalid, name, maxIdentifier, maxIdentifier-len(tokenSuffix), last+tokenSuffix)
	}
	seq := append(parts[:len(parts)-1:len(parts)-1], last+tokenSuffix)
	h := fnv.New32a()
	h.Write([]byte(name))
	return table{
		name:     name,
		ident:    pgx.Identifier(parts).Sanitize(),
		sequence: pgx.Identifier(seq).Sanitize(),
		channel:  name,
		lockSpan: int32(h.Sum32()),
	}, nil
}

// Schema returns the statements that make the backend's table and
// sequence, for a user who must run them before the backend can (a role
// that may use the table but not create it). The backend runs them itself
// on first use when the table is missing.
func Schema(tableName string) (string, error) {
	t, err := parseTable(tableName)
	if err != nil {
		return "", err
	}
	return t.schema(), nil
}

// schema is the DDL of the table: keys and owners are bytes, since they
// are opaque strings of any bytes, which text cannot hold.
func (t table) schema() string {
	return `CREATE TABLE IF NOT EXISTS ` + t.ident + ` (
	key        bytea PRIMARY KEY,
	owner      bytea NOT NULL,
	holds      integer NOT NULL,
	token      bigint NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE SEQUENCE IF NOT EXISTS ` + t.sequence + `;`
}
