package etcdlocker

import (
	"fmt"
	"strconv"
	"strings"
)

// valueVersion starts every lock value, so a key that holds something else
// is recognised instead of misread.
const valueVersion = "distlock1"

// lockValue is what a lock's key holds.
type lockValue struct {
	owner string
	holds int
	// ttl is the lease length in seconds that the key's lease was granted
	// with; Expire renews the lease as it is when asked for the same length.
	ttl int64
}

// encode lays the value out as "distlock1\nholds\nttl\nowner": the owner comes
// last, so it may hold any bytes, newlines included.
func (v lockValue) encode() string {
	return valueVersion + "\n" + strconv.Itoa(v.holds) + "\n" + strconv.FormatInt(v.ttl, 10) + "\n" + v.owner
}

// decodeValue parses a lock value. It fails on a value that distlock did not
// write.
func decodeValue(b []byte) (lockValue, error) {
	parts := strings.SplitN(string(b), "\n", 4)
	if len(parts) != 4 || parts[0] != valueVersion {
		return lockValue{}, fmt.Errorf("etcdlocker: key does not hold a distlock lock (value %.40q)", b)
	}
	holds, err := strconv.Atoi(parts[1])
	if err != nil || holds < 1 {
		return lockValue{}, fmt.Errorf("etcdlocker: lock value has a bad hold count %q", parts[1])
	}
	ttl, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || ttl < 1 {
		return lockValue{}, fmt.Errorf("etcdlocker: lock value has a bad lease %q", parts[2])
	}
	return lockValue{owner: parts[3], holds: holds, ttl: ttl}, nil
}
