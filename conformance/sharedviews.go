package conformance

import (
	"fmt"
	"slices"
)

// A Write view of a read-write lock, and a view of a semaphore of one
// permit whose holds take it, are mutexes: these subsets of the mutex
// cases run on them. The others are left out because they check nothing
// a view does differently:
//   - CancelWhileWaiting, UnlockAfterExpiry, StaleReentry, WaiterAtExpiry,
//     HolderLabel and Unsupported check the Store's own bookkeeping over
//     the Backend methods, which the mutex cases have covered already;
//   - Partition, DoneByDeadline, ContextBound, CloseDuringACall and
//     Unreachable need the harness to cut, stall or misdirect a client,
//     and a harness acts on its own clients, not on views of them;
//   - WaitQueue needs a Queuer, and a view never is one;
//   - StoreClose is the Store's, whatever its driver.
//
// The semaphore's view leaves out Inspection, since a semaphore has no
// writer, so its State names no Owner (see driver.State), and the
// Semaphore part inspects it instead; and WatchdogRenews, which takes
// seconds to check the Store's watchdog over Expire and ExpireBatch: the
// Write view has checked the watchdog over a view, and ExpireOnlyByOwner
// and BatchRenewal check the semaphore's renewals at the driver.

// writeViewCases are the mutex cases a Write view must pass.
var writeViewCases = mutexCases("Granularity", "AcquireRelease", "ContendedTryFails", "UnlockNotHeld",
	"Reentry", "FencingTokens", "LeaseExpiry", "ExpireOnlyByOwner", "MutualExclusion", "WaitThenAcquire",
	"WatchdogRenews", "LostLeaseClosesDone", "ReleaseNotification", "Inspection", "ForceUnlock",
	"BatchRenewal", "HoldUnlock", "OddKeys", "InvalidInput", "UseAfterClose")

// permitViewCases are the mutex cases a view of a semaphore of one permit
// must pass.
var permitViewCases = slices.DeleteFunc(slices.Clone(writeViewCases), func(c testCase) bool {
	return c.name == "Inspection" || c.name == "WatchdogRenews"
})

// mutexCases returns the mutex cases of the names given, in the suite's
// order.
func mutexCases(names ...string) []testCase {
	var picked []testCase
	for _, c := range cases {
		if slices.Contains(names, c.name) {
			picked = append(picked, c)
		}
	}
	if len(picked) != len(names) {
		panic(fmt.Sprintf("conformance: %d of the view cases %q are no mutex cases", len(names)-len(picked), names))
	}
	return picked
}
