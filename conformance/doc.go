// Package conformance is the contract every distlock driver and combinator
// must pass, as an importable test suite.
//
// A driver author writes a Harness whose NewBackend returns a new,
// independent client of one store as a driver.Backend, and one test:
//
//	type harness struct{ store *mystore.Server }
//
//	func (h *harness) NewBackend(ctx context.Context) (driver.Backend, error) {
//		return mystore.New(h.store.Addr())
//	}
//	func (h *harness) Granularity() time.Duration { return time.Millisecond }
//	func (h *harness) Close()                     { h.store.Stop() }
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func(ctx context.Context, t *testing.T) (conformance.Harness, error) {
//			return &harness{store: mystore.Start(t)}, nil
//		})
//	}
//
// The harness hands out drivers, never Stores: the suite calls the drivers
// directly where it checks the driver contract, and makes the Stores a
// program would (locker.NewStore, one per client) where it checks what a
// Store needs of its driver: waiting, renewal, the loss of a lease, Close.
// Mutexes that must share a Store's state (shared-owner holds, one
// subscription, one watchdog) come from one Store. The suite closes the
// clients and Stores it makes. A harness may add Partitioner, Staller and
// Unreachable to let the suite cut, stall or point a client at nothing; a
// Staller also lets it check that a driver's Close ends a call the store
// does not answer. Bad input must fail before anything is sent, with
// ErrInvalid in the kit's words (driver.CheckRequest and the others).
//
// The suite runs its subtests in a fixed order, each under a timer so that
// a hung driver fails instead of hanging. It finds a driver's optional
// capabilities (release notification, wait queue, inspection, force
// unlock, batched renewal) by type assertion on the driver, and skips their
// subtests, with a message naming the capability, when the driver does not
// implement the interface; the harness's capabilities likewise. One
// subtest wraps the driver so that it hides every optional capability, to
// check that a Store then still locks, waits and renews, and that
// inspection and force unlock fail with errors.ErrUnsupported.
//
// After the mutex cases come the parts of shared locks (driver.Sharer),
// for each kind the driver's Share does not refuse with
// errors.ErrUnsupported: the mutex cases that a Write view and a view of a
// semaphore of one permit must pass as mutexes, the rules of read-write
// locks and of semaphores at the driver, and what a Store's RWMutex and
// Semaphore need of them (exclusion checked by a resource, waiting woken by
// a release, Downgrade without a gap, loss closing Done).
package conformance
