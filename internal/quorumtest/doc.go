// Package quorumtest serves the tests of packages multilock and redlock:
// sets of member stores (in-memory, or real Redis servers) whose clients can
// be partitioned, and a conformance harness that builds a combinator over
// fresh clients of every store.
package quorumtest
