package lockconfig

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// Open validates c, opens every URL with locker.Open (concurrently), and
// returns the backend c describes: the one store in Single mode, or a
// MultiLock or RedLock over the stores. Closing the returned backend closes
// every store it opened.
//
// Open opens all or nothing: when a URL fails to open, or the combinator
// rejects its members, the stores already opened are closed and the error
// names each failed member by its position and redacted URL.
func Open(ctx context.Context, c Config) (driver.Backend, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	members, err := openAll(ctx, c.URLs)
	if err != nil {
		return nil, err
	}
	if c.mode() == Single {
		return members[0], nil
	}
	b, err := combine(c, members)
	if err != nil {
		closeAll(members)
		return nil, fmt.Errorf("lockconfig: %s over %d stores: %w", c.mode(), len(members), err)
	}
	return b, nil
}

// OpenSpec is Open(ctx, Parse(spec)).
func OpenSpec(ctx context.Context, spec string) (driver.Backend, error) {
	c, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	return Open(ctx, c)
}

// openAll opens every URL, or none: on any failure it closes the backends
// that did open and returns every failure.
func openAll(ctx context.Context, urls []string) ([]driver.Backend, error) {
	members := make([]driver.Backend, len(urls))
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, raw := range urls {
		wg.Go(func() {
			b, err := locker.Open(ctx, raw)
			switch {
			case err != nil && len(urls) == 1:
				errs[i] = err // locker.Open names the URL, redacted
				return
			case err != nil:
				errs[i] = fmt.Errorf("member %d of %d: %w", i+1, len(urls), err)
				return
			}
			members[i] = b
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		closeAll(members)
		if len(urls) == 1 {
			return nil, errs[0]
		}
		return nil, fmt.Errorf("lockconfig: %w", err)
	}
	return members, nil
}

// closeAll closes the non-nil backends. Close errors are dropped: the
// caller is already reporting the failure that made it give up, and a
// backend's Close does not release locks anyway.
func closeAll(bs []driver.Backend) {
	for _, b := range bs {
		if b != nil {
			_ = b.Close()
		}
	}
}
