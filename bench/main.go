// Command bench measures distlock against other Go lock libraries on real
// servers it starts itself: redis-server processes on loopback ports, an
// embedded etcd in a child process and a PostgreSQL server. It prints its tables and writes them to
// BENCHMARKS.md.
//
//	cd bench && go run . -quick      # about a minute; prints only
//	cd bench && go run .             # about three minutes; also writes ../BENCHMARKS.md
//
// See BENCHMARKS.md for what each section measures.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"
)

// settings are the command's flags.
type settings struct {
	quick       bool
	only        string
	out         string
	cpuProfile  string
	ops         int
	instrOps    int
	rounds      int
	redlockOps  int
	goroutines  int
	hold        time.Duration
	contention  time.Duration
	etcdOps     int
	pgOps       int
	scaleLocks  int
	scaleHold   time.Duration
	scaleLease  time.Duration
	scaleWorker int
	readers     int
	writers     int
	writerPause time.Duration
	// procs lists the process counts of the contention runs.
	procs []int
}

// quickDefaults are the flag values -quick uses unless a flag is given.
var quickDefaults = map[string]string{
	"ops":         "3000",
	"instr-ops":   "300",
	"rounds":      "6",
	"redlock-ops": "1500",
	"contention":  "2s",
	"etcd-ops":    "600",
	"pg-ops":      "600",
	"scale-hold":  "12s",
	"scale-lease": "6s",
	"out":         "",
}

func main() {
	s := settings{procs: []int{1, 2}}
	var serveEtcdMode, workerMode bool
	var w contentionSpec
	var workerAddrs string
	flag.BoolVar(&s.quick, "quick", false, "a short run (about a minute); prints only, unless -out is given")
	flag.StringVar(&s.only, "only", "uncontended,instructions,redlock,contention,redlock-contention,readmostly,etcd,postgres,scale", "comma-separated sections to run")
	flag.StringVar(&s.out, "out", "../BENCHMARKS.md", "Markdown file to write the results into (empty: none)")
	flag.StringVar(&s.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.IntVar(&s.ops, "ops", 20000, "uncontended lock+unlock cycles per implementation, 1 Redis")
	flag.IntVar(&s.instrOps, "instr-ops", 1000, "uncontended cycles per implementation counted by callgrind (section instructions; needs valgrind)")
	flag.IntVar(&s.rounds, "rounds", 20, "rounds the uncontended cycles are split into, interleaving implementations")
	flag.IntVar(&s.redlockOps, "redlock-ops", 10000, "uncontended cycles per implementation, RedLock over 5 Redis")
	flag.IntVar(&s.goroutines, "goroutines", 16, "contending goroutines, each with its own clients (1 Redis and RedLock)")
	flag.DurationVar(&s.hold, "hold", time.Millisecond, "how long a contending goroutine holds the lock")
	flag.BoolVar(&holdsByNanosleep, "hold-nanosleep", false, "sleep each hold in the nanosleep system call, which network events in the process cannot lengthen, instead of time.Sleep (Linux; see BENCHMARKS.md, Missed 5)")
	flag.DurationVar(&s.contention, "contention", 5*time.Second, "duration of each contention run (1 Redis and RedLock)")
	flag.IntVar(&s.etcdOps, "etcd-ops", 3000, "uncontended cycles per etcd implementation")
	flag.IntVar(&s.pgOps, "pg-ops", 3000, "uncontended cycles per PostgreSQL implementation")
	flag.IntVar(&s.scaleLocks, "scale-locks", 100000, "locks held at once with the watchdog")
	flag.DurationVar(&s.scaleHold, "scale-hold", 60*time.Second, "how long the scale run holds its locks")
	flag.DurationVar(&s.scaleLease, "scale-lease", 30*time.Second, "watchdog lease of the scale run (renewed every third)")
	flag.IntVar(&s.scaleWorker, "scale-parallel", 32, "goroutines taking and releasing the scale run's locks")
	flag.IntVar(&s.readers, "readers", 15, "reading goroutines of the read-mostly run")
	flag.IntVar(&s.writers, "writers", 1, "writing goroutines of the read-mostly run")
	flag.DurationVar(&s.writerPause, "writer-pause", 10*time.Millisecond, "how long a writer of the read-mostly run waits after each write")
	// Modes of the child processes this program starts.
	flag.BoolVar(&serveEtcdMode, "serve-etcd", false, "internal: serve etcd until stdin closes")
	flag.BoolVar(&workerMode, "contention-worker", false, "internal: run contention goroutines for a parent")
	flag.StringVar(&w.impl, "w.impl", "", "internal")
	flag.StringVar(&workerAddrs, "w.addr", "", "internal")
	flag.StringVar(&w.key, "w.key", "", "internal")
	flag.IntVar(&w.goroutines, "w.goroutines", 0, "internal")
	flag.DurationVar(&w.hold, "w.hold", 0, "internal")
	flag.DurationVar(&w.duration, "w.duration", 0, "internal")
	flag.Parse()
	w.addrs = strings.Split(workerAddrs, ",")
	if holdsByNanosleep && nanosleep == nil {
		fmt.Fprintln(os.Stderr, "bench: -hold-nanosleep: the nanosleep system call is used on Linux only")
		os.Exit(2)
	}

	var err error
	switch {
	case serveEtcdMode:
		err = serveEtcd()
	case workerMode:
		err = serveWorker(w)
	default:
		if s.quick {
			applyQuick()
		}
		err = run(s)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// applyQuick sets the quick defaults of the flags not given.
func applyQuick() {
	given := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for name, v := range quickDefaults {
		if !given[name] {
			_ = flag.Set(name, v)
		}
	}
}

// run runs the selected sections and reports them.
func run(s settings) error {
	if s.cpuProfile != "" {
		f, err := os.Create(s.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	sections := map[string]bool{}
	for _, name := range strings.Split(s.only, ",") {
		sections[strings.TrimSpace(name)] = true
	}
	r := &report{command: reproduceCommand(), started: time.Now(), loadBefore: loadAverage()}
	if err := measure(context.Background(), s, sections, r); err != nil {
		return err
	}
	r.loadAfter = loadAverage()
	r.elapsed = time.Since(r.started)
	r.print(os.Stdout)
	if s.out != "" {
		if err := r.writeMarkdown(s.out); err != nil {
			return err
		}
		fmt.Printf("\nwrote %s\n", s.out)
	}
	return nil
}

// reproduceCommand is the command line of this run.
func reproduceCommand() string {
	return strings.TrimSpace("cd bench && go run . " + strings.Join(os.Args[1:], " "))
}
