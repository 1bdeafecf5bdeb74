package quorumtest

import (
	"context"
	"fmt"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/noserver"
)

// NewUnreachableBackend implements conformance.Unreachable: a combinator
// none of whose members can be reached. The first member's store is at
// addr, every other's at the same port on another loopback address, which
// refuses connections as addr does (see conformance.Unreachable), so that
// the members stay distinct stores.
func (h *Harness) NewUnreachableBackend(ctx context.Context, addr string) (driver.Backend, error) {
	members := make([]driver.Backend, h.stores.Len())
	for i := range members {
		a := addr
		if i > 0 {
			var err error
			if a, err = noserver.Other(addr, i); err != nil {
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
