// Package memcachedtest runs real memcached servers for tests: each Server
// is a memcached process (the Debian package "memcached") listening on a
// free 127.0.0.1 port, killed when the test ends.
//
// Servers can be killed, restarted empty on the same port (as a crash and a
// restart of memcached lose every item), and paused with SIGSTOP, so tests
// can check what a lock does when its store forgets it or stops answering.
//
// A missing memcached binary skips the test with an install hint, or fails
// it when the environment variable CI is set.
package memcachedtest
