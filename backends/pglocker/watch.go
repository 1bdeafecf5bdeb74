package pglocker

import (
	"context"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/distlock/distlock/driver"
)

// Watch implements driver.Notifier through the backend's listening
// connection: fn is called when a release of key is notified (an Unlock's
// last hold, a ForceUnlock), and after the connection had to be made again.
// Watch returns once LISTEN is in effect, or fails when that takes longer
// than the call timeout or ctx. An expiry is not notified: a waiter's sleep
// is bounded by the holder's remaining lease instead. fn runs on the
// listener's goroutine: it must not block, nor call stop.
func (b *Backend) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	if err := driver.CheckKey(key); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, driver.Invalid("nil callback")
	}
	ctx, end, err := b.call(ctx)
	if err != nil {
		return nil, err
	}
	defer end.End()
	c := driver.NewCallback(fn)
	hexKey := hex.EncodeToString([]byte(key))
	up, ok := b.listen.add(hexKey, c)
	if !ok {
		return nil, driver.ErrClosed
	}
	var once sync.Once
	stop := func() { once.Do(func() { b.listen.remove(hexKey, c) }) }
	select {
	case <-up:
		return stop, nil
	case <-ctx.Done():
		stop()
		if b.guard.Closed() {
			return nil, driver.ErrClosed
		}
		return nil, fmt.Errorf("pglocker: %w: no listening connection to the server: %w", driver.ErrUnavailable, ctx.Err())
	}
}
