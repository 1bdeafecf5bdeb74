// Package conformance is the contract every distlock backend and combinator
// must pass, as an importable test suite.
//
// A backend author writes a Harness that makes independent clients of one
// store, and one test:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func(ctx context.Context, t *testing.T) (conformance.Harness, error) {
//			return newHarness(t)
//		})
//	}
//
// The suite runs its subtests in a fixed order, each under a timer so that a
// hung backend fails instead of hanging. Subtests of an optional capability
// (release notification, wait queue, inspection, force unlock, batched
// renewal, partitions) are skipped, with a message naming the capability, when the
// backend or harness does not implement the interface; the suite finds out
// by type assertion.
package conformance
