package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// serverWork is what redis-servers report having done, from INFO: the
// scripts they ran and how long those ran (commandstats), and the CPU the
// processes used. Differences of two readings give the work done between
// them.
type serverWork struct {
	scripts    int64         // script calls that ran: EVAL, EVALSHA and their read-only forms, FCALL
	scriptTime time.Duration // the time those calls ran, as commandstats counts it (whole µs per call)
	cpu        time.Duration // user and system CPU of the processes
}

func (w serverWork) sub(v serverWork) serverWork {
	return serverWork{scripts: w.scripts - v.scripts, scriptTime: w.scriptTime - v.scriptTime, cpu: w.cpu - v.cpu}
}

func (w serverWork) add(v serverWork) serverWork {
	return serverWork{scripts: w.scripts + v.scripts, scriptTime: w.scriptTime + v.scriptTime, cpu: w.cpu + v.cpu}
}

// scriptCommands are the commandstats entries of the commands that run a
// script. The commands a script calls are counted under their own names as
// well, so they are not added.
var scriptCommands = []string{"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"}

// serverMeter reads the work of the redis-servers a measurement uses, on
// clients of its own (its INFO calls are not scripts, and their CPU is
// small against a batch of cycles).
type serverMeter struct {
	clients []*redis.Client
}

func newServerMeter(addrs []string) *serverMeter {
	m := &serverMeter{}
	for _, a := range addrs {
		m.clients = append(m.clients, newRedisClient(a))
	}
	return m
}

func (m *serverMeter) close() {
	for _, c := range m.clients {
		_ = c.Close()
	}
}

// read returns the work of all the servers so far.
func (m *serverMeter) read(ctx context.Context) (serverWork, error) {
	var total serverWork
	for _, c := range m.clients {
		info, err := c.Info(ctx, "commandstats", "cpu").Result()
		if err != nil {
			return serverWork{}, fmt.Errorf("INFO commandstats: %w", err)
		}
		total = total.add(parseServerWork(info))
	}
	return total, nil
}

// parseServerWork reads the sections commandstats and cpu of an INFO
// reply.
func parseServerWork(info string) serverWork {
	var w serverWork
	for _, name := range scriptCommands {
		stat := infoField(info, "cmdstat_"+name) // calls=3,usec=41,usec_per_call=13.67,...
		// calls counts the failed ones (a NOSCRIPT reply among them),
		// not the rejected ones.
		w.scripts += statField(stat, "calls") - statField(stat, "failed_calls")
		w.scriptTime += time.Duration(statField(stat, "usec")) * time.Microsecond
	}
	secs := infoFloat(info, "used_cpu_user") + infoFloat(info, "used_cpu_sys")
	w.cpu = time.Duration(secs * float64(time.Second))
	return w
}

// statField returns the integer field name of a commandstats entry, 0 when
// it has none.
func statField(stat, name string) int64 {
	for f := range strings.SplitSeq(stat, ",") {
		if k, v, ok := strings.Cut(f, "="); ok && k == name {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}
