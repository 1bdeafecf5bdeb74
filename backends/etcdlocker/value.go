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
//
// The keys of shared locks (see shared.go) add attributes to the line: a
// waiter's entry says so, and a semaphore's keys carry their permits and
// the semaphore's limit. A mutex's line never has them, so a mutex's value
// reads as it always has.
const (
	valueVersion = "distlock1"
	sharedTag    = "distlock1 shared"
)

// Attributes of a shared lock's value (see encode).
const (
	sharedAttr  = "shared"
	waitingAttr = "waiting"
	permitsAttr = "permits="
	tokenAttr   = "token="
)

// lockValue is what a lock's key holds.
type lockValue struct {
	owner string
	// holds is the hold count; 0 for a waiter's entry, which holds nothing.
	holds int
	// ttl is the lease length in seconds that the key's lease was granted
	// with; Expire renews a lease of the key's own as it is when asked for
	// the same length.
	ttl int64
	// shared says the key's lease is shared with other keys: nobody renews
	// it or revokes it because of this key.
	shared bool
	// waiting marks a waiter's entry of a shared lock.
	waiting bool
	// permits and limit are a semaphore hold's (or waiter's) permits and
	// the semaphore's limit; 0 for other keys.
	permits, limit int
	// token is a write hold's or a semaphore hold's fencing token; 0 for
	// other keys (a mutex's token is its key's creation revision).
	token uint64
}

// encode lays the value out as "tag\nholds\nttl\nowner": the owner comes
// last, so it may hold any bytes, newlines included. The tag is
// "distlock1", then "shared", "waiting", "permits=P/L" and "token=T" where
// they apply.
func (v lockValue) encode() string {
	tag := valueVersion
	if v.shared {
		tag = sharedTag
	}
	if v.waiting {
		tag += " " + waitingAttr
	}
	if v.limit > 0 {
		tag += " " + permitsAttr + strconv.Itoa(v.permits) + "/" + strconv.Itoa(v.limit)
	}
	if v.token > 0 {
		tag += " " + tokenAttr + strconv.FormatUint(v.token, 10)
	}
	return tag + "\n" + strconv.Itoa(v.holds) + "\n" + strconv.FormatInt(v.ttl, 10) + "\n" + v.owner
}

// decodeValue parses a lock value. It fails on a value that distlock did not
// write.
func decodeValue(b []byte) (lockValue, error) {
	parts := strings.SplitN(string(b), "\n", 4)
	var v lockValue
	if len(parts) != 4 || !v.decodeTag(parts[0]) {
		return lockValue{}, fmt.Errorf("key does not hold a distlock lock (value %.40q)", b)
	}
	holds, err := strconv.Atoi(parts[1])
	if err != nil || (holds < 1 && !v.waiting) || (holds != 0 && v.waiting) {
		return lockValue{}, fmt.Errorf("lock value has a bad hold count %q", parts[1])
	}
	ttl, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || ttl < 1 {
		return lockValue{}, fmt.Errorf("lock value has a bad lease %q", parts[2])
	}
	v.owner, v.holds, v.ttl = parts[3], holds, ttl
	return v, nil
}

// decodeTag sets the attributes of tag, the value's first line, and
// reports whether it is one distlock writes.
func (v *lockValue) decodeTag(tag string) bool {
	fields := strings.Split(tag, " ")
	if fields[0] != valueVersion {
		return false
	}
	fields = fields[1:]
	// The attributes come in encode's order, each at most once.
	if len(fields) > 0 && fields[0] == sharedAttr {
		v.shared, fields = true, fields[1:]
	}
	if len(fields) > 0 && fields[0] == waitingAttr {
		v.waiting, fields = true, fields[1:]
	}
	if len(fields) > 0 && strings.HasPrefix(fields[0], permitsAttr) {
		p, l, ok := strings.Cut(fields[0][len(permitsAttr):], "/")
		permits, perr := strconv.Atoi(p)
		limit, lerr := strconv.Atoi(l)
		if !ok || perr != nil || lerr != nil || permits < 1 || permits > limit {
			return false
		}
		v.permits, v.limit, fields = permits, limit, fields[1:]
	}
	if len(fields) > 0 && strings.HasPrefix(fields[0], tokenAttr) {
		token, err := strconv.ParseUint(fields[0][len(tokenAttr):], 10, 64)
		if err != nil || token == 0 {
			return false
		}
		v.token, fields = token, fields[1:]
	}
	return len(fields) == 0
}
