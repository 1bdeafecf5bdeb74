package quorum

import (
	"errors"
	"fmt"

	"github.com/distlock/distlock/driver"
)

// checkBound refuses a semaphore view whose holders the quorum would not
// bound as the semaphore does, with an error wrapping ErrInvalid (no retry
// fixes it) and errors.ErrUnsupported (the combinator cannot keep that
// kind of semaphore, as driver.Sharer says of a kind a store cannot keep).
//
// Each member lets c = Limit/Permits holds of the view in at once, and a
// holder needs q of the M members. A quorum of every member (a MultiLock)
// keeps the bound: every holder is on every member, so at most c hold. A
// majority does not: with 3 members of 2 permits and holds of 1, the
// holders A on {1,2}, B on {1,3} and C on {2,3} fit every member. Counting
// places, H holders take H·q of the M·c there are, so at most
// floor(M·c/q) hold at once, and the view is allowed only when that is at
// most c: when c·(M-q) < q, in practice c = 1 (every hold takes more than
// half the permits), or c = 2 for 3 of 4 members.
//
// Then, too, no more than Limit permits are held at once, whatever the
// Permits of the holders (views of one semaphore may differ): every
// allowed hold takes more than Limit/(k+1) permits, for k the largest c
// allowed, and any k+1 holders, each missing from at most M-q members,
// miss together at most (k+1)·(M-q) < M of them, so they share a member,
// which cannot fit them all. So at most k hold, and they too share a
// member, which fits all their permits.
func (c *combinator) checkBound(s driver.Share) error {
	if s.Mode != driver.Permits {
		return nil
	}
	m, q := len(c.template), c.needed
	per := s.Limit / s.Permits // holds of the view one member lets in
	bound := m * per / q
	if bound <= per {
		return nil
	}
	k := (q - 1) / (m - q) // the largest c allowed; m > q here
	return fmt.Errorf("%w: a semaphore of %d permits taken %d at a time over %d members, %d needed for a hold: "+
		"each member lets %d holds in, so up to floor(%d×%d/%d) = %d holders could hold at once, more than %d; "+
		"over these members a hold must take more than %d of the %d permits, "+
		"or use a lock that needs every member (a MultiLock), which keeps the bound (%w)",
		driver.ErrInvalid, s.Limit, s.Permits, m, q, per, m, per, q, bound, per, s.Limit/(k+1), s.Limit, errors.ErrUnsupported)
}
