package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The server's work per uncontended cycle, counted in instructions rather
// than timed: INFO commandstats gives whole microseconds per call, and on a
// shared VM the same build's script time moves by a third from run to run
// (see BENCHMARKS.md, Missed 1), more than most changes to a script do.
// Valgrind's callgrind counts the instructions redis-server runs, which
// move by under one percent (Lua's garbage collector, and the layout of
// the server's hash tables, seeded afresh at each start).

// instrResult is one implementation's server instructions per uncontended
// lock+unlock cycle on one Redis.
type instrResult struct {
	name     string
	perCycle float64
	cycles   int
}

// instructionImpls are the implementations the section counts: those of
// section 1 but rueidislock, whose first lock did not return from a
// server run by callgrind (it waited in its lock's select, the server
// idle); redislock, the one the target names, and redsync are counted.
func instructionImpls() []implementation {
	return slices.DeleteFunc(slices.Clone(redisImpls), func(i implementation) bool { return i.name == "rueidislock" })
}

// callgrindCollects is the redis-server function whose instructions are
// counted, with everything it calls: the dispatch of one client command
// (lookup, ACL check, the command or script and the commands it calls),
// not the reading of the request or the writing of the reply.
const callgrindCollects = "processCommand"

// errNoCallgrind reports that valgrind's callgrind is not installed: the
// section is skipped, and says so.
var errNoCallgrind = errors.New("valgrind not found (apt-get install -y valgrind)")

// callgrindTools returns the paths of valgrind and callgrind_control.
func callgrindTools() (valgrind, control string, err error) {
	if valgrind, err = exec.LookPath("valgrind"); err != nil {
		return "", "", errNoCallgrind
	}
	if control, err = exec.LookPath("callgrind_control"); err != nil {
		return "", "", errNoCallgrind
	}
	return valgrind, control, nil
}

// runInstructions counts, for each implementation in turn, on a
// redis-server of its own run by callgrind, the instructions of cycles
// lock+unlock cycles after a warm-up.
func runInstructions(ctx context.Context, impls []implementation, cycles int) ([]instrResult, error) {
	valgrind, control, err := callgrindTools()
	if err != nil {
		return nil, err
	}
	out := make([]instrResult, 0, len(impls))
	for _, impl := range impls {
		n, err := countInstructions(ctx, valgrind, control, impl, cycles)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", impl.name, err)
		}
		out = append(out, instrResult{name: impl.name, perCycle: float64(n) / float64(cycles), cycles: cycles})
	}
	return out, nil
}

// countInstructions returns the instructions redis-server ran in
// callgrindCollects during cycles lock+unlock cycles of impl.
func countInstructions(ctx context.Context, valgrind, control string, impl implementation, cycles int) (int64, error) {
	dir, err := os.MkdirTemp("", "distlock-bench-callgrind-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	outFile := filepath.Join(dir, "callgrind.out")
	srv, err := startRedisUnder(ctx, []string{valgrind, "--tool=callgrind", "--callgrind-out-file=" + outFile,
		"--toggle-collect=" + callgrindCollects})
	if err != nil {
		return 0, err
	}
	defer srv.stop()
	h, err := impl.open([]string{srv.addr}, "bench/instructions/"+impl.name)
	if err != nil {
		return 0, err
	}
	defer h.close()
	cycle := func() error {
		release, err := h.acquire(ctx)
		if err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if err := release(ctx); err != nil {
			return fmt.Errorf("unlock: %w", err)
		}
		return nil
	}
	// The warm-up loads the scripts and makes the connections.
	for range 50 {
		if err := cycle(); err != nil {
			return 0, err
		}
	}
	pid := strconv.Itoa(srv.cmd.Process.Pid)
	if err := exec.CommandContext(ctx, control, "--zero", pid).Run(); err != nil {
		return 0, fmt.Errorf("callgrind_control --zero: %w", err)
	}
	for range cycles {
		if err := cycle(); err != nil {
			return 0, err
		}
	}
	if err := exec.CommandContext(ctx, control, "--dump", pid).Run(); err != nil {
		return 0, fmt.Errorf("callgrind_control --dump: %w", err)
	}
	return dumpedTotal(ctx, outFile+".1")
}

// dumpedTotal waits for the callgrind dump file (written by the server
// after callgrind_control returns) and returns its total instructions.
func dumpedTotal(ctx context.Context, file string) (int64, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := readTotal(file)
		if err == nil {
			return n, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return 0, fmt.Errorf("callgrind dump %s: %w", file, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// errNoTotal reports a dump file without its total (yet).
var errNoTotal = errors.New("no totals line")

// readTotal reads the "totals:" line of a callgrind dump, which ends it.
func readTotal(file string) (int64, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "totals:"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errNoTotal
}

// instructionsTable is the table of the instructions section.
func instructionsTable(rs []instrResult) *table {
	t := &table{title: "1b. Server instructions per uncontended lock+unlock cycle, 1 Redis (callgrind)",
		header: []string{"implementation", "instructions/cycle", "vs distlock"}}
	for _, x := range rs {
		t.add(x.name, fmt.Sprintf("%.0f", x.perCycle), ratio(x.perCycle, rs[0].perCycle))
	}
	t.note("instructions = what redis-server ran in %s (a client command's dispatch: lookup, ACL check, the command or script and the commands it calls; "+
		"not reading the request or writing the reply), counted by valgrind's callgrind over %d cycles after a warm-up, on a server of each implementation's own; "+
		"within one percent from run to run of a build, where the script time of section 1 moves by a third with the machine's load", callgrindCollects, rs[0].cycles)
	return t
}

// instructionsSummary adds the instructions section's summary row to t:
// distlock against redislock, held to the script time's target.
func (r *report) instructionsSummary(t *table) {
	const where = "1. uncontended, 1 Redis, server instructions per cycle (callgrind)"
	if r.instructionsSkipped != "" {
		t.add(where, "skipped: "+r.instructionsSkipped, "", "", "", "")
		return
	}
	rs := r.instructions
	if rs == nil {
		return
	}
	for _, p := range rs[1:] {
		if p.name != "redislock" {
			continue
		}
		q := rs[0].perCycle / p.perCycle
		t.add(where, fmt.Sprintf("%.0f", rs[0].perCycle), fmt.Sprintf("%.0f %s", p.perCycle, p.name), fmt.Sprintf("%.2f×", q),
			fmt.Sprintf("≤ %.1f×", targetScriptTime), yesNo(q <= targetScriptTime))
	}
}
