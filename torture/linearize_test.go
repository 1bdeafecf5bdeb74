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
)

// linTimeout bounds one linearizability check; histories of a few hundred
// holds take well under a second.
const linTimeout = time.Minute

// mutexOp is an operation on the lock: an acquisition by client, whose
// output is the hold's token, or a release by client.
type mutexOp struct {
	acquire bool
	client  int
	hold    int
}

// mutexState is the sequential mutex the history must match: who holds it
// (-1: nobody) and the last token handed out, which every acquisition must
// exceed. An acquisition without a token (0) is checked for exclusion only;
// the audit counts it.
type mutexState struct {
	holder int
	last   uint64
}

// mutexModel is a mutex whose acquisitions hand out rising tokens.
var mutexModel = porcupine.Model{
	Init: func() any { return mutexState{holder: -1} },
	Step: func(state, input, output any) (bool, any) {
		s, op := state.(mutexState), input.(mutexOp)
		if op.acquire {
			token := output.(uint64)
			if s.holder != -1 || token != 0 && token <= s.last {
				return false, s
			}
			return true, mutexState{holder: op.client, last: max(s.last, token)}
		}
		if s.holder != op.client {
			return false, s
		}
		return true, mutexState{holder: -1, last: s.last}
	},
	DescribeOperation: func(input, output any) string {
		op := input.(mutexOp)
		if op.acquire {
			return fmt.Sprintf("acquire(c%d) -> token %d [hold %d]", op.client, output.(uint64), op.hold)
		}
		return fmt.Sprintf("release(c%d) [hold %d]", op.client, op.hold)
	},
	DescribeState: func(state any) string {
		s := state.(mutexState)
		if s.holder == -1 {
			return fmt.Sprintf("free (last token %d)", s.last)
		}
		return fmt.Sprintf("held by c%d (token %d)", s.holder, s.last)
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
			Input:    mutexOp{acquire: true, client: h.client, hold: h.id},
			Call:     int64(h.lockCall),
			Output:   h.token,
			Return:   int64(h.lockReturn),
		})
		rel := porcupine.Operation{
			ClientId: h.client,
			Input:    mutexOp{client: h.client, hold: h.id},
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

// checkLinearizable checks the holds against the mutex model. On failure
// it writes porcupine's visualisation to an HTML file and returns a
// description naming it.
func checkLinearizable(t *testing.T, holds []*hold) (ok bool, detail string) {
	t.Helper()
	res, info := porcupine.CheckOperationsVerbose(mutexModel, operations(holds), linTimeout)
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
	if err := porcupine.VisualizePath(mutexModel, info, path); err != nil {
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
