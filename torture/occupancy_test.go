package torture

import "github.com/distlock/distlock/driver"

// occupancy is what is inside the resource at one instant: how many holds,
// how many of them write (a mutex's hold is a write hold), and how many
// semaphore permits they take. Both the audit and the linearizability
// model judge an entry by it.
type occupancy struct {
	holds, writers, permits int
}

// admits reports whether a hold that takes sh may enter beside what is
// inside: a write hold only alone, a read hold beside no write hold, a
// semaphore's hold while its permits and those taken are within the limit.
func (o occupancy) admits(sh driver.Share) bool {
	switch sh.Mode {
	case driver.Write:
		return o.holds == 0
	case driver.Read:
		return o.writers == 0
	}
	return o.permits+sh.Permits <= sh.Limit
}

// with returns the occupancy once a hold that takes sh has entered, and
// without once it has left.
func (o occupancy) with(sh driver.Share) occupancy { return o.add(sh, 1) }

func (o occupancy) without(sh driver.Share) occupancy { return o.add(sh, -1) }

func (o occupancy) add(sh driver.Share, n int) occupancy {
	o.holds += n
	if sh.Mode == driver.Write {
		o.writers += n
	}
	o.permits += n * sh.Permits
	return o
}
