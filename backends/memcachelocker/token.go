package memcachelocker

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
)

// nextToken increments the counter at key and returns its new value, which
// is above floor. A missing counter is created, seeded with the current
// time in microseconds (or floor, if higher), so that tokens keep rising
// when memcached lost or evicted the counter.
func (b *Backend) nextToken(key string, floor uint64) (uint64, error) {
	for range 3 {
		t, err := b.mc.Increment(key, 1)
		if err == nil {
			if t <= floor {
				// The counter was lost and seeded lower than a token it had
				// issued: lift it past that token.
				return b.mc.Increment(key, floor+1-t)
			}
			return t, nil
		}
		if !errors.Is(err, memcache.ErrCacheMiss) {
			return 0, err
		}
		seed := max(uint64(time.Now().UnixMicro()), floor)
		err = b.mc.Add(&memcache.Item{Key: key, Value: []byte(strconv.FormatUint(seed, 10))})
		if err != nil && !errors.Is(err, memcache.ErrNotStored) {
			return 0, err
		}
		// Created, or created by someone else meanwhile: increment it.
	}
	return 0, fmt.Errorf("the token counter kept vanishing")
}

// readCounter returns the counter's value in items, or 0.
func readCounter(items map[string]*memcache.Item, key string) uint64 {
	it, ok := items[key]
	if !ok {
		return 0
	}
	n, err := strconv.ParseUint(string(it.Value), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
