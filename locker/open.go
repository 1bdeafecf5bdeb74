package locker

import (
	"context"

	"github.com/distlock/distlock/driver"
)

// Open returns the Backend a URL describes (see driver.Open).
func Open(ctx context.Context, rawURL string) (Backend, error) {
	return driver.Open(ctx, rawURL)
}
