package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	var d []time.Duration
	for i := 100; i >= 1; i-- {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	l := summarize(d)
	if l.n != 100 || l.p50 != 50*time.Millisecond || l.p99 != 99*time.Millisecond || l.max != 100*time.Millisecond {
		t.Fatalf("summarize(1..100 ms) = %+v", l)
	}
	if l.mean != 50500*time.Microsecond {
		t.Fatalf("mean = %v, want 50.5ms", l.mean)
	}
	if got := summarize(nil); got.n != 0 {
		t.Fatalf("summarize(nil) = %+v", got)
	}
}

func TestFairness(t *testing.T) {
	for _, c := range []struct {
		counts []int
		want   float64
	}{
		{[]int{10, 10, 10, 10}, 1},
		{[]int{5, 15, 10, 10}, 0.5},
		{[]int{0, 20}, 0},
		{nil, 0},
	} {
		if got := fairness(c.counts); got != c.want {
			t.Errorf("fairness(%v) = %v, want %v", c.counts, got, c.want)
		}
	}
}

func TestWriteMarkdownKeepsTextAroundMarkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	r := &report{command: "cd bench && go run .", settings: settings{goroutines: 16}}
	if err := r.writeMarkdown(path); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	edited := "intro by hand\n" + string(first) + "analysis by hand\n"
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r.command = "cd bench && go run . -quick"
	if err := r.writeMarkdown(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	for _, want := range []string{"intro by hand\n", "analysis by hand\n", "go run . -quick", endMarker} {
		if !strings.Contains(got, want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, beginMarker) != 1 {
		t.Errorf("rewritten file has %d begin markers", strings.Count(got, beginMarker))
	}
}

func TestParseServerWork(t *testing.T) {
	info := "# Commandstats\r\n" +
		"cmdstat_evalsha:calls=10,usec=120,usec_per_call=12.00,rejected_calls=2,failed_calls=1\r\n" +
		"cmdstat_eval:calls=2,usec=30,usec_per_call=15.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_set:calls=7,usec=7,usec_per_call=1.00,rejected_calls=0,failed_calls=0\r\n" +
		"\r\n# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:0.250000\r\n"
	w := parseServerWork(info)
	want := serverWork{scripts: 11, scriptTime: 150 * time.Microsecond, cpu: 1750 * time.Millisecond}
	if w != want {
		t.Fatalf("parseServerWork = %+v, want %+v", w, want)
	}
}
