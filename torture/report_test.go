package torture

import (
	"fmt"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// resultRow is one scenario's line in the table.
type resultRow struct {
	config, lock, fault string
	exclusive           bool
	faults              int
	audit
	errs, gaveUp int
	lin          string
	took         time.Duration
}

// resultTable collects the rows of every scenario run by this process.
type resultTable struct {
	mu   sync.Mutex
	rows []resultRow
}

var results resultTable

func (rt *resultTable) add(r resultRow) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.rows = append(rt.rows, r)
}

// render returns the table, or "" when no scenario ran.
func (rt *resultTable) render() string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.rows) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintln(&b, "distlock torture: each row is one configuration and lock under one fault; see package torture's documentation.")
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "config\tlock\tfault\texclusion\tfaults\tacquired\tlost\toverlaps\tclock overlaps\twrites\tstale rejected\tstale accepted\tbad tokens\tstale reads\tno token\terrors\tlate grants\tDone lag\tlinearizable\ttime\t")
	for _, r := range rt.rows {
		promise := "promised"
		if !r.exclusive {
			promise = "not promised"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%v\t%s\t%v\t\n",
			r.config, r.lock, r.fault, promise, r.faults, r.acquired, r.lost, r.overlaps, r.clockOverlaps, r.writes,
			r.rejected, r.staleAccepted, r.badTokens, r.staleReads, r.noToken, r.errs, r.lateGrants,
			r.maxDoneLag.Round(time.Millisecond), r.lin, r.took.Round(100*time.Millisecond))
	}
	_ = w.Flush()
	fmt.Fprint(&b, `columns: the lock (mutex, rw: read-write lock, semaphore); faults injected; holds acquired;
holds whose lease was lost before Unlock; valid holds that entered beside holds they must exclude;
holds that did so only because this machine's wall clock, which Redis and PostgreSQL keep leases by, stepped forward
between the two by at least their overlap (a clock jump, which ends leases early; not counted as overlaps);
writes accepted (write holds write); stale writes the fenced resource turned away,
and stale writes it accepted (always 0, or the run fails); pairs of holds whose tokens did not rise;
read holds with a token older than a write granted before them;
holds granted with token 0, without a fencing token (always 0, or the run fails);
calls that ended in an unknown state; leases already past their deadline when Lock returned; how long after a lease's deadline its Done channel closed, at most;
the linearizability check (run where exclusion is promised).`)
	return b.String()
}
