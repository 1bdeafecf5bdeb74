package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// sharedPart is a part of the contract of shared locks (driver.Sharer),
// run when the store keeps the kind of shared lock its Share names.
type sharedPart struct {
	name  string
	share driver.Share
	// kind names the capability in the message of a skip.
	kind  string
	cases []testCase
	// views runs the cases as the mutex contract, on a harness whose
	// backends are views share of the store's (see viewHarness); else
	// they are the shared-lock cases, on the store's own backends.
	views bool
}

// sharedParts are the shared-lock parts, in the order they run, after the
// mutex cases.
var sharedParts = []sharedPart{
	{name: "WriteViewIsAMutex", share: driver.Share{Mode: driver.Write}, kind: "read-write locks", cases: writeViewCases, views: true},
	{name: "PermitViewIsAMutex", share: driver.Share{Mode: driver.Permits, Limit: 1, Permits: 1}, kind: "semaphores", cases: permitViewCases, views: true},
	{name: "ReadWrite", share: driver.Share{Mode: driver.Read}, kind: "read-write locks", cases: rwCases},
	{name: "Semaphore", share: driver.Share{Mode: driver.Permits, Limit: 2, Permits: 1}, kind: "semaphores", cases: semCases},
	{name: "RWMutex", share: driver.Share{Mode: driver.Read}, kind: "read-write locks", cases: rwMutexCases},
	{name: "SemaphoreAcquire", share: driver.Share{Mode: driver.Permits, Limit: 2, Permits: 1}, kind: "semaphores", cases: semStoreCases},
}

// runShared runs the shared-lock parts, each case under a guard of its
// own, and skips a part, naming the capability, when the store does not
// keep its kind of shared lock.
func (s *suite) runShared(t *testing.T) {
	for _, p := range sharedParts {
		t.Run(p.name, func(t *testing.T) {
			s.skipUnshared(t, p)
			run := s
			if p.views {
				run = s.viewSuite(p.share)
			}
			for _, c := range p.cases {
				t.Run(c.name, func(t *testing.T) { run.guard(t, c) })
			}
		})
	}
}

// skipUnshared skips the part when the store's backend is no Sharer, or
// its Share fails with errors.ErrUnsupported for the part's kind.
func (s *suite) skipUnshared(t *testing.T, p sharedPart) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
	defer cancel()
	sr, ok := s.backend(ctx, t).(driver.Sharer)
	if !ok {
		t.Skipf("backend has no %s (driver.Sharer)", p.kind)
	}
	_, err := sr.Share(p.share)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("backend has no %s (driver.Sharer: %v)", p.kind, err)
	}
	require.NoError(t, err, "Share(%+v)", p.share)
}

// viewSuite returns the suite run over views share of the store's
// backends: the mutex cases then check that such a view is a mutex.
func (s *suite) viewSuite(share driver.Share) *suite {
	return &suite{h: viewHarness{parent: s.h, share: share}, prefix: s.prefix, unit: s.unit, long: s.long}
}

// viewHarness makes views share of the clients its parent makes. It has
// none of the parent's optional capabilities: those act on the parent's
// clients, not on views.
type viewHarness struct {
	parent Harness
	share  driver.Share
}

func (h viewHarness) NewBackend(ctx context.Context) (driver.Backend, error) {
	b, err := h.parent.NewBackend(ctx)
	if err != nil {
		return nil, err
	}
	sr, ok := b.(driver.Sharer)
	if !ok {
		_ = b.Close()
		return nil, fmt.Errorf("a client of the store is no driver.Sharer: %T", b)
	}
	v, err := sr.Share(h.share)
	if err != nil {
		_ = b.Close()
		return nil, fmt.Errorf("Share(%+v): %w", h.share, err)
	}
	return v, nil
}

func (h viewHarness) Granularity() time.Duration { return h.parent.Granularity() }

// Close leaves the parent to the run that made it.
func (h viewHarness) Close() {}
