// Package lockconfig opens a *locker.Store from configuration: one store, or
// several stores combined into a MultiLock (all must agree) or a RedLock (a
// majority must agree), described by a list of URLs. A program switches
// between "one Redis", "five Redis masters" and "two Redis and an etcd"
// without code changes:
//
//	store, err := lockconfig.OpenSpec(ctx, os.Getenv("LOCKS"))
//	...
//	defer store.Close()
//	m, err := store.Mutex("nightly-report")
//
// # Forms
//
// A Config can be written as a spec string (for a flag or an environment
// variable), as a plain text file, or as JSON:
//
//	redis://10.0.0.1:6379
//	redlock: redis://10.0.0.1:6379 redis://10.0.0.2:6379 redis://10.0.0.3:6379
//	multilock: redis://10.0.0.1:6379, etcd://10.0.0.9:2379
//	redlock restart_guard=1m: redis://10.0.0.1:6379 redis://10.0.0.2:6379 redis://10.0.0.3:6379
//
//	# locks.conf: a mode line (optional for one URL), then URLs
//	redlock:
//	redis://10.0.0.1:6379
//	redis://10.0.0.2:6379
//	redis://10.0.0.3:6379
//
//	{"mode": "redlock", "urls": ["redis://10.0.0.1:6379", "redis://10.0.0.2:6379", "redis://10.0.0.3:6379"],
//	 "member_timeout": "50ms", "restart_guard": "1m"}
//
// The head before the colon is the mode and, for combinators, settings:
// member_timeout bounds each member call, restart_guard sets a RedLock's
// restart guard (see Config).
// URLs are separated by white space or by commas; a comma separates only
// where the next URL's scheme follows it, so a comma inside a URL is kept.
// Each URL is opened with driver.Open, so the backend packages whose schemes
// are used must be imported (for their side effect of registering).
//
// # Errors
//
// Bad configuration (an unknown mode, no URL, several URLs without a mode,
// the same URL twice, an unknown scheme) is an error wrapping
// locker.ErrInvalid. Open opens every member or none: when one fails, those
// already opened are closed before it returns. Errors never contain a URL's
// password.
package lockconfig
