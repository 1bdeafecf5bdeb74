// Package etcdtest starts embedded etcd servers for tests: one member
// (Start) or a cluster of several (StartCluster), on free 127.0.0.1 ports,
// with data in the test's temporary directory and logs silenced.
//
// Members can be stopped and restarted while a test runs, to check what a
// lock does when a member (or the leader) goes away and quorum survives.
// Everything a Cluster starts is stopped by the test's cleanup.
//
// The servers tick fast (TickMs, ElectionMs): elections take well under a
// second and the smallest lease the server grants is MinLeaseTTL.
package etcdtest
