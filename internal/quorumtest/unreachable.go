package quorumtest

import (
	"context"
	"fmt"
	"net"

	"github.com/distlock/distlock/driver"
)

// NewUnreachableBackend implements conformance.Unreachable: a combinator
// none of whose members can be reached. The first member's store is at
// addr, every other's at a loopback port of its own that was just closed,
// so that the members stay distinct stores.
func (h *Harness) NewUnreachableBackend(ctx context.Context, addr string) (driver.Backend, error) {
	members := make([]driver.Backend, h.stores.Len())
	for i := range members {
		a := addr
		if i > 0 {
			var err error
			if a, err = closedPort(); err != nil {
				closeAll(members)
				return nil, err
			}
		}
		m, err := h.stores.Unreachable(ctx, i, a)
		if err != nil {
			closeAll(members)
			return nil, fmt.Errorf("unreachable client of store %d: %w", i, err)
		}
		members[i] = m
	}
	return h.combined(members)
}

// closedPort returns a loopback address that was listening a moment ago
// and is closed now, so that a connection to it is refused.
func closedPort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}
