package memcachelocker

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// valueVersion starts every item the backend writes, so an item holding
// something else is recognised instead of misread.
const valueVersion = "distlock1"

// lockItem is what a lock's item holds: a hold, or a tombstone (free).
type lockItem struct {
	// free marks a tombstone: the lock was released; token is the last
	// holder's.
	free bool

	owner string
	holds int
	// token is 0 while the acquisition has not written its token yet.
	token uint64
	// expiry is the lease's end by the writer's clock, in Unix nanoseconds.
	expiry int64
	// nonce identifies the acquisition: it is new on every free-to-held
	// transition and kept by every later change of the hold.
	nonce string
}

// encode lays a hold out as "distlock1\nH\nholds\ntoken\nexpiry\nnonce\nowner"
// (the owner last, so it may hold any bytes) and a tombstone as
// "distlock1\nF\ntoken".
func (v lockItem) encode() []byte {
	if v.free {
		return []byte(valueVersion + "\nF\n" + strconv.FormatUint(v.token, 10))
	}
	return []byte(strings.Join([]string{
		valueVersion, "H",
		strconv.Itoa(v.holds),
		strconv.FormatUint(v.token, 10),
		strconv.FormatInt(v.expiry, 10),
		v.nonce,
		v.owner,
	}, "\n"))
}

// decodeItem parses an item the backend wrote.
func decodeItem(b []byte) (lockItem, error) {
	bad := func(why string) (lockItem, error) {
		return lockItem{}, fmt.Errorf("item is not a distlock lock (%s): %.40q", why, b)
	}
	parts := strings.SplitN(string(b), "\n", 7)
	if len(parts) < 3 || parts[0] != valueVersion {
		return bad("no header")
	}
	switch {
	case parts[1] == "F" && len(parts) == 3:
		token, err := strconv.ParseUint(parts[2], 10, 64)
		if err != nil {
			return bad("token")
		}
		return lockItem{free: true, token: token}, nil
	case parts[1] == "H" && len(parts) == 7:
		holds, err := strconv.Atoi(parts[2])
		if err != nil || holds < 1 {
			return bad("hold count")
		}
		token, err := strconv.ParseUint(parts[3], 10, 64)
		if err != nil {
			return bad("token")
		}
		expiry, err := strconv.ParseInt(parts[4], 10, 64)
		if err != nil {
			return bad("expiry")
		}
		return lockItem{owner: parts[6], holds: holds, token: token, expiry: expiry, nonce: parts[5]}, nil
	}
	return bad("kind")
}

// remaining is the hold's lease left at now, or 0 when it has passed.
func (v lockItem) remaining(now time.Time) time.Duration {
	return max(time.Unix(0, v.expiry).Sub(now), 0)
}
