package locker

import "crypto/rand"

// NewOwner returns a fresh owner identity: 128 random bits from crypto/rand,
// as 26 base32 characters. Owner identities must be unguessable, or another
// process could unlock or extend a lock it does not hold.
func NewOwner() string {
	return rand.Text()
}
