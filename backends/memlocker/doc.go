// Package memlocker is distlock's in-memory reference backend, for tests and
// examples. It has the exact semantics the conformance suite expects
// (re-entry, expiry, fencing tokens, release notification, inspection,
// force unlock, batched renewal), an injectable clock so tests move time
// without sleeping, and per-client fault injection: failed calls, latency,
// replies lost after the operation ran, and partitions.
//
// A Store is the server; each Client is one connection to it with faults of
// its own. Locks live only in the process's memory.
//
// # URLs
//
// Importing the package registers nothing; see package locker's Open for the
// "mem" scheme once it exists.
package memlocker
