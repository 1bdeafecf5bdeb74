package etcdlocker

import (
	"fmt"
	"strconv"
	"strings"
)

// The first line of every lock value: it says the value is distlock's, and
// whether the key's lease is its own or shared with other keys (see
// leasePool), so that a key is recognised instead of misread. Older
// versions of the backend wrote only keys on leases of their own, and
// refuse keys on shared leases as foreign.
const (
	valueVersion = "distlock1"
	sharedTag    = "distlock1 shared"
)

// lockValue is what a lock's key holds.
type lockValue struct {
	owner string
	holds int
	// ttl is the lease length in seconds that the key's lease was granted
	// with; Expire renews a lease of the key's own as it is when asked for
	// the same length.
	ttl int64
	// shared says the key's lease is shared with other keys: nobody renews
	// it or revokes it because of this key.
	shared bool
}

// encode lays the value out as "tag\nholds\nttl\nowner": the owner comes
// last, so it may hold any bytes, newlines included.
func (v lockValue) encode() string {
	tag := valueVersion
	if v.shared {
		tag = sharedTag
	}
	return tag + "\n" + strconv.Itoa(v.holds) + "\n" + strconv.FormatInt(v.ttl, 10) + "\n" + v.owner
}

// decodeValue parses a lock value. It fails on a value that distlock did not
// write.
func decodeValue(b []byte) (lockValue, error) {
	parts := strings.SplitN(string(b), "\n", 4)
	if len(parts) != 4 || (parts[0] != valueVersion && parts[0] != sharedTag) {
		return lockValue{}, fmt.Errorf("key does not hold a distlock lock (value %.40q)", b)
	}
	holds, err := strconv.Atoi(parts[1])
	if err != nil || holds < 1 {
		return lockValue{}, fmt.Errorf("lock value has a bad hold count %q", parts[1])
	}
	ttl, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || ttl < 1 {
		return lockValue{}, fmt.Errorf("lock value has a bad lease %q", parts[2])
	}
	return lockValue{owner: parts[3], holds: holds, ttl: ttl, shared: parts[0] == sharedTag}, nil
}
