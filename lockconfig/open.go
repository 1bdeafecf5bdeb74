package lockconfig

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// Open validates c, opens every URL with driver.Open (concurrently), and
// returns a Store over the driver c describes: the one store in Single
// mode, or a MultiLock or RedLock over the stores. opts configure the Store
// as they do for locker.NewStore. Closing the Store closes every store it
// opened.
//
// Open opens all or nothing: when a URL fails to open, or the combinator
// rejects its members, the stores already opened are closed and the error
// names each failed member by its position and redacted URL.
func Open(ctx context.Context, c Config, opts ...locker.StoreOption) (*locker.Store, error) {
	d, err := openDriver(ctx, c)
	if err != nil {
		return nil, err
	}
	return locker.NewStore(d, opts...), nil
}

// OpenSpec is Open(ctx, Parse(spec), opts...).
func OpenSpec(ctx context.Context, spec string, opts ...locker.StoreOption) (*locker.Store, error) {
	c, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	return Open(ctx, c, opts...)
}

// openDriver returns the driver c describes, having opened every store or
// none.
func openDriver(ctx context.Context, c Config) (driver.Backend, error) {
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
	d, err := combinator(c, members)
	if err != nil {
		closeAll(members)
		return nil, fmt.Errorf("lockconfig: %s over %d stores: %w", c.mode(), len(members), err)
	}
	return d, nil
}

// openAll opens every URL, or none: on any failure it closes the drivers
// that did open and returns every failure.
func openAll(ctx context.Context, urls []string) ([]driver.Backend, error) {
	members := make([]driver.Backend, len(urls))
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, raw := range urls {
		wg.Go(func() {
			d, err := driver.Open(ctx, raw)
			switch {
			case err != nil && len(urls) == 1:
				errs[i] = err // driver.Open names the URL, redacted
				return
			case err != nil:
				errs[i] = fmt.Errorf("member %d of %d: %w", i+1, len(urls), err)
				return
			}
			members[i] = d
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

// closeAll closes the non-nil drivers. Close errors are dropped: the
// caller is already reporting the failure that made it give up, and a
// driver's Close does not release locks anyway.
func closeAll(ds []driver.Backend) {
	for _, d := range ds {
		if d != nil {
			_ = d.Close()
		}
	}
}
