package etcdlocker

import (
	"strings"
	"time"

	"github.com/distlock/distlock/driver"
)

// view is a view of the backend's shared locks (see Backend.Share): its
// calls are the backend's, on the read-write locks or the semaphores, with
// holds in one mode.
type view struct {
	b     *Backend
	share driver.Share
	// space is the namespace of the view's locks: rwSpace or semSpace.
	space string
	// letter names the view's mode in its hold keys.
	letter string
}

var (
	_ driver.Sharer        = (*Backend)(nil)
	_ driver.Backend       = (*view)(nil)
	_ driver.Notifier      = (*view)(nil)
	_ driver.Dequeuer      = (*view)(nil)
	_ driver.Inspector     = (*view)(nil)
	_ driver.ForceUnlocker = (*view)(nil)
	_ driver.BatchExpirer  = (*view)(nil)
	_ driver.Fencer        = (*view)(nil)
	_ driver.Granular      = (*view)(nil)
	_ driver.Endpointer    = (*view)(nil)
)

// Share implements driver.Sharer: the view of the backend's read-write
// locks (Mode driver.Read or driver.Write) or semaphores (driver.Permits)
// that s describes, with every capability of the backend's mutexes but
// driver.HoldUnlocker, and Dequeue for the wait lists. (A view's release
// is a transaction guarded by the hold key's revision as it was, so one
// that reaches etcd late cannot drop a later hold: it has no need to name
// the hold.) It fails with driver.ErrInvalid for a malformed s, and with
// driver.ErrClosed after Close.
func (b *Backend) Share(s driver.Share) (driver.Backend, error) {
	if err := driver.CheckShare(s); err != nil {
		return nil, err
	}
	if b.guard.Closed() {
		return nil, driver.ErrClosed
	}
	v := &view{b: b, share: s, space: rwSpace}
	switch s.Mode {
	case driver.Read:
		v.letter = readLetter
	case driver.Write:
		v.letter = writeLetter
	case driver.Permits:
		v.space, v.letter = semSpace, permitsLetter
	}
	return v, nil
}

// Close implements driver.Backend: it closes the backend, and with it every
// view of it.
func (v *view) Close() error { return v.b.Close() }

// Granularity implements driver.Granular: etcd leases count in whole
// seconds.
func (v *view) Granularity() time.Duration { return v.b.Granularity() }

// Endpoint implements driver.Endpointer: the backend's.
func (v *view) Endpoint() string { return v.b.Endpoint() }

// The layout of shared locks' keys. Every key of the lock name in space
// begins with its base, prefix + "\x00" + space + "/" + escaped name + "/":
//
//	base + "h/" + mode letter + "/" + owner  one owner's hold in a mode
//	base + "q/" + owner                      a waiting writer, or a semaphore's waiter
//	base + "t"                               the token counter
//
// A mutex's key is the prefix and its name: the NUL byte keeps shared locks
// out of the way of every mutex whose name does not begin with one. The
// name is escaped ('%' and '/' as %25 and %2F) so that no lock's base is
// the beginning of another's; the owner comes last and needs no escaping.
const (
	sharedMarker = "\x00"
	rwSpace      = "rw"
	semSpace     = "sem"

	readLetter    = "r"
	writeLetter   = "w"
	permitsLetter = "p"

	holdsPart   = "h/"
	waitersPart = "q/"
	tokenPart   = "t"
)

// lockKeys are the etcd keys of one shared lock.
type lockKeys struct {
	base string
}

// keys returns the keys of the view's lock name.
func (v *view) keys(name string) lockKeys {
	return lockKeys{base: v.b.prefix + sharedMarker + v.space + "/" + escapeName(name) + "/"}
}

// hold is owner's hold key in the mode of letter.
func (k lockKeys) hold(letter, owner string) string {
	return k.base + holdsPart + letter + "/" + owner
}

// holds is the prefix of every hold key; holdsOf that of the holds in the
// mode of letter.
func (k lockKeys) holds() string                { return k.base + holdsPart }
func (k lockKeys) holdsOf(letter string) string { return k.base + holdsPart + letter + "/" }

// waiter is owner's waiter key; waiters the prefix of all of them.
func (k lockKeys) waiter(owner string) string { return k.base + waitersPart + owner }
func (k lockKeys) waiters() string            { return k.base + waitersPart }

// token is the key whose mod revision is the lock's token counter.
func (k lockKeys) token() string { return k.base + tokenPart }

// nameEscaper escapes '%' and '/' in a lock name.
var nameEscaper = strings.NewReplacer("%", "%25", "/", "%2F")

// escapeName escapes '%' and '/' in name.
func escapeName(name string) string {
	if !strings.ContainsAny(name, "%/") {
		return name
	}
	return nameEscaper.Replace(name)
}
