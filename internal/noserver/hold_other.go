//go:build !unix

package noserver

import "net"

// hold, where a socket cannot be bound without listening from Go, listens
// and closes at once: the port is free again, and another program may be
// given it meanwhile.
func hold() (int, func(), error) {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		return 0, nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	return port, func() {}, ln.Close()
}
