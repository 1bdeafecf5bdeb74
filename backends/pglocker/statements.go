package pglocker

import "time"

// statements are the backend's SQL for its table. Each operation is one
// statement, so it runs in a transaction of its own, on the server's clock
// (clock_timestamp()), and compares the owner in its WHERE clauses: no
// client decides from something it read earlier. Leases are microseconds
// ($3), PostgreSQL's timestamp resolution.
type statements struct {
	tryLock, unlock, expire, expireBatch, inspect, forceUnlock string
}

// remainingMicros is a live row's remaining lease, rounded up and at least
// a microsecond, since 0 means unknown.
const remainingMicros = `GREATEST(1, ceil(extract(epoch FROM expires_at - clock_timestamp()) * 1e6))::bigint`

// lease is the expiry of a lease of $3 microseconds from now.
const lease = `clock_timestamp() + $3::float8 * interval '1 microsecond'`

func newStatements(t table) statements {
	notify := `pg_notify(` + quote(t.channel) + `, encode(key, 'hex'))`
	return statements{
		// The advisory lock on the key ($4, $5) orders the takings of one
		// key: a token drawn from the sequence before another taking of
		// the key began would be lower than that taking's and could
		// still be granted after it, were the draw not in the lock.
		tryLock: `WITH serial AS (SELECT pg_advisory_xact_lock($4, $5)),
taken AS (
	INSERT INTO ` + t.ident + ` AS l (key, owner, holds, token, expires_at)
	SELECT $1, $2, 1, nextval(` + quote(t.sequence) + `), ` + lease + ` FROM serial
	ON CONFLICT (key) DO UPDATE SET
		holds = CASE WHEN l.owner = excluded.owner AND l.expires_at > clock_timestamp() THEN l.holds + 1 ELSE 1 END,
		token = CASE WHEN l.owner = excluded.owner AND l.expires_at > clock_timestamp() THEN l.token ELSE excluded.token END,
		owner = excluded.owner,
		expires_at = excluded.expires_at
	WHERE l.owner = excluded.owner OR l.expires_at <= clock_timestamp()
	RETURNING holds, token)
SELECT true, holds, token, 0::bigint FROM taken
UNION ALL
SELECT false, 0, 0, ` + remainingMicros + ` FROM ` + t.ident + ` WHERE key = $1 AND NOT EXISTS (SELECT FROM taken)`,

		// cur locks the owner's row and reads its latest hold count, so
		// that the choice between one hold less and deletion is made on
		// the row as it is, not as the statement's snapshot had it. A
		// token $3 other than 0 names the hold: the owner's later hold
		// is left alone (see driver.HoldUnlocker).
		unlock: `WITH cur AS (
	SELECT key, holds FROM ` + t.ident + ` WHERE key = $1 AND owner = $2 AND expires_at > clock_timestamp()
		AND ($3::bigint = 0 OR token = $3::bigint) FOR UPDATE),
dropped AS (
	UPDATE ` + t.ident + ` AS l SET holds = cur.holds - 1 FROM cur WHERE l.key = cur.key AND cur.holds > 1 RETURNING 1),
deleted AS (
	DELETE FROM ` + t.ident + ` AS l USING cur WHERE l.key = cur.key AND cur.holds <= 1
	RETURNING pg_notify(` + quote(t.channel) + `, encode(l.key, 'hex')))
SELECT (SELECT count(*) FROM dropped) + (SELECT count(*) FROM deleted)`,

		expire: `UPDATE ` + t.ident + ` SET expires_at = ` + lease + `
WHERE key = $1 AND owner = $2 AND expires_at > clock_timestamp()`,

		expireBatch: `UPDATE ` + t.ident + ` AS l SET expires_at = clock_timestamp() + r.micros::float8 * interval '1 microsecond'
FROM unnest($1::bytea[], $2::bytea[], $3::bigint[]) WITH ORDINALITY AS r(key, owner, micros, i)
WHERE l.key = r.key AND l.owner = r.owner AND l.expires_at > clock_timestamp()
RETURNING r.i`,

		// Not held, the token is the sequence's last value: at least the
		// last holder's token, and below every later one.
		inspect: `SELECT l.owner, l.holds, l.token, l.remaining, s.last_value, s.is_called
FROM ` + t.sequence + ` AS s LEFT JOIN (
	SELECT owner, holds, token, ` + remainingMicros + ` AS remaining FROM ` + t.ident + `
	WHERE key = $1 AND expires_at > clock_timestamp()) AS l ON true`,

		forceUnlock: `WITH deleted AS (
	DELETE FROM ` + t.ident + ` WHERE key = $1
	RETURNING expires_at > clock_timestamp() AS live, ` + notify + `)
SELECT coalesce(bool_or(live), false) FROM deleted`,
	}
}

// quote makes a string literal of s, which holds no quote: table names are
// validated identifiers, and quoted ones only add double quotes.
func quote(s string) string { return "'" + s + "'" }

// micros is ttl in whole microseconds, rounded up: a lease is never
// shortened.
func micros(ttl time.Duration) int64 {
	return int64((ttl + time.Microsecond - 1) / time.Microsecond)
}
