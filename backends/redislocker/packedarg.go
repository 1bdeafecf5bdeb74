package redislocker

import "encoding/binary"

// The scripts of a mutex take their arguments packed in one (see
// tryLockSrc): little-endian 64-bit integers (struct's 'I8'), then
// strings, each after its 32-bit length ('i4c0', which takes any bytes).
// The callers build it in a buffer of argRoom bytes on their stack, which
// holds it whole unless the owner is long, and copy it out once.

// argRoom is the size of the callers' buffers.
const argRoom = 128

// appendNum appends v, which is not negative.
func appendNum(p []byte, v int64) []byte {
	return binary.LittleEndian.AppendUint64(p, uint64(v))
}

// appendStr appends s after its length.
func appendStr(p []byte, s string) []byte {
	return append(binary.LittleEndian.AppendUint32(p, uint32(len(s))), s...)
}
