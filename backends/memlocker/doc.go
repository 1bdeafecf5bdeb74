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
// Importing the package registers the "mem" scheme with locker.Open:
//
//	mem://NAME
//
// opens a new Client of the store called NAME in this process; every Open of
// the same NAME reaches the same Store, so Mutexes opened from one URL
// contend, and different names are independent stores (NAME may be empty).
// The stores live as long as the process: a mem URL never reaches another
// process. The URL takes no user, port, path, query parameter or fragment;
// any of them is an error wrapping locker.ErrInvalid.
package memlocker
