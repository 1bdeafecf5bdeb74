package torture

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/distlock/distlock/driver"
)

// linTimeout bounds one linearizability check; histories of a few hundred
// holds take well under a second.
const linTimeout = time.Minute

// maxClients is the most clients a scenario may have: the model keeps who
// holds the lock in a word's bits.
const maxClients = 64

// lockOp is an operation on the lock: an acquisition by client of what
// share says, whose output is the hold's token, or that hold's release.
type lockOp struct {
	acquire bool
	client  int
	hold    int
	share   driver.Share
}

// lockState is the sequential lock the history must match: what is inside
// (see occupancy), which clients hold it (a client holds one hold at a
// time), and the last token taken from the counter (see follows).
type lockState struct {
	in      occupancy
	clients uint64
	last    uint64
}

// follows reports whether a hold of mode may carry token after last, the
// last token taken from the counter: a write hold's (a mutex's) rises
// above it; a read hold carries at least it, the counter as it is; a
// semaphore's is at least it, since on a combinator acquisitions whose
// attempts overlap may share a token (the audit checks that a token rises
// above those of acquisitions that ended before its attempt began). A
// write or semaphore hold's token 0 is none: the audit counts it, the
// model checks such a hold for exclusion only.
func follows(mode driver.Mode, token, last uint64) bool {
	switch mode {
	case driver.Write:
		return token == 0 || token > last
	case driver.Permits:
		return token == 0 || token >= last
	}
	return token >= last
}

// lockModel is a mutex, read-write lock or semaphore (whichever the
// operations' shares say) whose acquisitions hand out rising tokens.
var lockModel = porcupine.Model{
	Init: func() any { return lockState{} },
	Step: func(state, input, output any) (bool, any) {
		s, op := state.(lockState), input.(lockOp)
		bit := uint64(1) << op.client
		if !op.acquire {
			if s.clients&bit == 0 {
				return false, s
			}
			return true, lockState{in: s.in.without(op.share), clients: s.clients &^ bit, last: s.last}
		}
		token := output.(uint64)
		if s.clients&bit != 0 || !s.in.admits(op.share) || !follows(op.share.Mode, token, s.last) {
			return false, s
		}
		if op.share.Mode != driver.Read && token != 0 {
			s.last = token
		}
		return true, lockState{in: s.in.with(op.share), clients: s.clients | bit, last: s.last}
	},
	DescribeOperation: func(input, output any) string {
		op := input.(lockOp)
		if op.acquire {
			return fmt.Sprintf("acquire(c%d, %v) -> token %d [hold %d]", op.client, op.share.Mode, output.(uint64), op.hold)
		}
		return fmt.Sprintf("release(c%d, %v) [hold %d]", op.client, op.share.Mode, op.hold)
	},
	DescribeState: func(state any) string {
		s := state.(lockState)
		if s.clients == 0 {
			return fmt.Sprintf("free (last token %d)", s.last)
		}
		return fmt.Sprintf("%d holds (%d writing, %d permits) by clients %b (last token %d)",
			s.in.holds, s.in.writers, s.in.permits, s.clients, s.last)
	},
}

// operations turns holds into porcupine operations. A release is the
// Unlock call when it succeeded; a lost lease is a release somewhere
// between the acquisition's return and the Unlock that reported the loss;
// an Unlock in an unknown state is a release at an unknown time after it
// was called (the lease ends it at the latest, at a time the client cannot
// know).
func operations(holds []*hold) []porcupine.Operation {
	ops := make([]porcupine.Operation, 0, 2*len(holds))
	for _, h := range holds {
		ops = append(ops, porcupine.Operation{
			ClientId: h.client,
			Input:    lockOp{acquire: true, client: h.client, hold: h.id, share: h.share},
			Call:     int64(h.lockCall),
			Output:   h.token,
			Return:   int64(h.lockReturn),
		})
		rel := porcupine.Operation{
			ClientId: h.client,
			Input:    lockOp{client: h.client, hold: h.id, share: h.share},
			Call:     int64(h.unlockCall),
			Return:   int64(h.unlockReturn),
		}
		switch h.outcome {
		case lost:
			rel.Call = int64(h.lockReturn)
		case unknown:
			rel.Return = math.MaxInt64
		}
		ops = append(ops, rel)
	}
	return ops
}

// checkLinearizable checks the holds against the lock model. On failure
// it writes porcupine's visualisation to an HTML file and returns a
// description naming it.
func checkLinearizable(t *testing.T, holds []*hold) (ok bool, detail string) {
	t.Helper()
	res, info := porcupine.CheckOperationsVerbose(lockModel, operations(holds), linTimeout)
	switch res {
	case porcupine.Ok:
		return true, "ok"
	case porcupine.Unknown:
		return false, fmt.Sprintf("check timed out after %v", linTimeout)
	}
	path, err := visualisationPath(t)
	if err != nil {
		return false, fmt.Sprintf("not linearizable (no visualisation: %v)", err)
	}
	if err := porcupine.VisualizePath(lockModel, info, path); err != nil {
		return false, fmt.Sprintf("not linearizable (no visualisation: %v)", err)
	}
	return false, "not linearizable; visualisation: " + path
}

// visualisationPath returns where a failed check's visualisation goes: the
// test's artifact directory when go test runs with -artifacts, else
// -torture.out (files there outlive the test).
func visualisationPath(t *testing.T) (string, error) {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".html"
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		return filepath.Join(t.ArtifactDir(), name), nil
	}
	dir, err := outDir()
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, strings.TrimSuffix(name, ".html")+"-*.html")
	if err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}
