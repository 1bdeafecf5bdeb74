package main

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestSmoke runs the in-process sections with tiny settings against real
// redis-server processes and checks that they measured something sane. The
// sections that start a second process of the program (contention across
// two processes, etcd) need the command itself: run `go run . -quick`.
func TestSmoke(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server not installed (apt-get install -y redis-server)")
		}
		t.Skip("redis-server not installed (apt-get install -y redis-server)")
	}
	s := settings{
		ops: 200, rounds: 2, redlockOps: 50, instrOps: 50,
		goroutines: 4, hold: time.Millisecond, contention: 300 * time.Millisecond, procs: []int{1},
		scaleLocks: 2000, scaleHold: 1500 * time.Millisecond, scaleLease: 900 * time.Millisecond, scaleWorker: 8,
	}
	r := &report{}
	sections := map[string]bool{"uncontended": true, "instructions": true, "redlock": true, "contention": true, "redlock-contention": true, "scale": true}
	if err := measure(context.Background(), s, sections, r); err != nil {
		t.Fatal(err)
	}
	if r.rtt.p50 <= 0 {
		t.Errorf("PING round trip %v", r.rtt.p50)
	}
	if len(r.uncontended) != len(redisImpls)+1 || r.uncontended[0].name != "distlock" {
		t.Fatalf("uncontended results %+v", r.uncontended)
	}
	for _, x := range append(r.uncontended, r.redlock...) {
		if x.lat.n == 0 || x.lat.p50 <= 0 || x.lat.p99 < x.lat.p50 || x.allocs <= 0 || x.clientCPU <= 0 {
			t.Errorf("%s: implausible %+v", x.name, x)
		}
		// Every implementation unlocks by a script.
		if x.work.scripts < int64(x.cycles) || x.work.scriptTime <= 0 || x.unlWork.scripts < int64(x.splitCount) {
			t.Errorf("%s: implausible server work %+v", x.name, x)
		}
	}
	// Without valgrind the section says why it was skipped.
	if r.instructionsSkipped == "" {
		if len(r.instructions) != len(instructionImpls()) || r.instructions[0].name != "distlock" {
			t.Fatalf("instructions results %+v", r.instructions)
		}
		for _, x := range r.instructions {
			// A cycle runs at least one command, of thousands of instructions.
			if x.perCycle < 1000 {
				t.Errorf("%s: %.0f instructions per cycle", x.name, x.perCycle)
			}
		}
	}
	if len(r.contention) != len(redisImpls) {
		t.Fatalf("contention results %+v", r.contention)
	}
	if len(r.redlockContention) != len(redlockImpls) {
		t.Fatalf("RedLock contention results %+v", r.redlockContention)
	}
	if r.quorumMsg.n == 0 || r.quorumMsg.p50 <= 0 {
		t.Errorf("a release heard from a majority: %+v", r.quorumMsg)
	}
	for _, c := range append(r.contention, r.redlockContention...) {
		if c.overlaps != 0 || c.nerrors != 0 {
			t.Errorf("%s: %d overlapping holds, %d errors %q", c.name, c.overlaps, c.nerrors, c.errors)
		}
		if c.total == 0 || c.meanHold < s.hold {
			t.Errorf("%s: %d acquisitions, mean hold %v", c.name, c.total, c.meanHold)
		}
	}
	sc := r.scale
	if sc == nil || sc.heldOnServer != s.scaleLocks || sc.missed() != 0 || sc.renewals <= 0 {
		t.Fatalf("scale result %+v", sc)
	}
	var out nopWriter
	r.print(&out) // every table renders
	if out == 0 {
		t.Error("nothing printed")
	}
}

type nopWriter int

func (w *nopWriter) Write(p []byte) (int, error) { *w += nopWriter(len(p)); return len(p), nil }
