package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/distlock/distlock/locker"
)

// statusReport is what "status" prints.
type statusReport struct {
	Lock      string        `json:"lock"`
	Held      bool          `json:"held"`
	Holder    string        `json:"holder,omitempty"`
	Label     string        `json:"label,omitempty"`
	Holds     int           `json:"holds,omitempty"`
	Remaining time.Duration `json:"-"`
	// RemainingMS is Remaining in milliseconds, for JSON.
	RemainingMS int64  `json:"remaining_ms,omitempty"`
	Token       uint64 `json:"token"`
	// Holders are the holds of a read-write lock or a semaphore, and Limit
	// a semaphore's permits while in use.
	Holders []holderReport `json:"holders,omitempty"`
	Limit   int            `json:"limit,omitempty"`
}

// holderReport is one hold of a read-write lock or a semaphore.
type holderReport struct {
	Owner       string `json:"owner"`
	Label       string `json:"label,omitempty"`
	Write       bool   `json:"write,omitempty"`
	Holds       int    `json:"holds"`
	Permits     int    `json:"permits,omitempty"`
	RemainingMS int64  `json:"remaining_ms"`
	// Token is the hold's fencing token; 0 when the store does not say.
	Token uint64 `json:"token,omitempty"`
}

func (a *app) status(ctx context.Context, args []string) int {
	var bf backendFlags
	var k kind
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(a.helpOutput(args))
	bf.register(fs)
	k.registerInspect(fs)
	asJSON := fs.Bool("json", false, "print the state as one JSON object")
	fs.Usage = func() { statusUsage(fs) }
	name, code := parseNameArgs(a, fs, "status", args)
	if code >= 0 {
		return code
	}
	m, store, code := a.openLock(ctx, &bf, k, name)
	if code != exitOK {
		return code
	}
	defer store.Close()

	ctx, cancel := context.WithTimeout(ctx, bf.timeout)
	defer cancel()
	st, err := m.inspect(ctx)
	if err != nil {
		a.errorf("%v", err)
		if errors.Is(err, errors.ErrUnsupported) {
			return exitUsage
		}
		return exitUnavailable
	}
	r := statusReport{Lock: name, Held: st.Held, Holder: st.Owner, Label: st.Label, Holds: st.Holds, Remaining: st.Remaining, Token: st.Token, Limit: st.Limit}
	for _, h := range st.Holders {
		r.Holders = append(r.Holders, holderReport{Owner: h.Owner, Label: h.Label, Write: h.Write, Holds: h.Holds, Permits: h.Permits,
			RemainingMS: h.Remaining.Milliseconds(), Token: h.Token})
	}
	if *asJSON {
		r.RemainingMS = r.Remaining.Milliseconds()
		out, _ := json.Marshal(r)
		fmt.Fprintln(a.stdout, string(out))
	} else {
		r.print(a)
	}
	if !st.Held {
		return exitFree
	}
	return exitOK
}

func (r statusReport) print(a *app) {
	w := tabwriter.NewWriter(a.stdout, 0, 0, 1, ' ', 0)
	fmt.Fprintf(w, "lock:\t%s\n", r.Lock)
	switch {
	case r.Held && r.Holders != nil:
		fmt.Fprintf(w, "held:\tyes\n")
		if r.Limit > 0 {
			fmt.Fprintf(w, "permits:\t%d\n", r.Limit)
		}
		for _, h := range r.Holders {
			fmt.Fprintf(w, "holder:\t%s\n", h.describe())
		}
	case r.Held:
		fmt.Fprintf(w, "held:\tyes\n")
		fmt.Fprintf(w, "holder:\t%s\n", r.Holder)
		if r.Label != "" {
			fmt.Fprintf(w, "label:\t%s\n", r.Label)
		}
		fmt.Fprintf(w, "holds:\t%d\n", r.Holds)
		fmt.Fprintf(w, "remaining:\t%v\n", r.Remaining.Round(time.Millisecond))
	default:
		fmt.Fprintf(w, "held:\tno\n")
	}
	fmt.Fprintf(w, "token:\t%d\n", r.Token)
	w.Flush()
}

// parseNameArgs parses flags and the one NAME argument of "status" and
// "unlock". It returns -1 to go on, or the exit status.
func parseNameArgs(a *app, fs *flag.FlagSet, cmd string, args []string) (string, int) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", exitOK
		}
		return "", exitUsage
	}
	rest := fs.Args()
	if len(rest) > 1 && len(rest[1]) > 0 && rest[1][0] == '-' {
		// Flags after NAME.
		if err := fs.Parse(rest[1:]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return "", exitOK
			}
			return "", exitUsage
		}
		rest = append(rest[:1], fs.Args()...)
	}
	if len(rest) != 1 || rest[0] == "" {
		a.errorf("%s: want exactly one lock NAME (distlock %s --help)", cmd, cmd)
		return "", exitUsage
	}
	return rest[0], -1
}

// openLock opens the Store the flags describe and the lock k names from
// it. The caller closes the Store.
func (a *app) openLock(ctx context.Context, bf *backendFlags, k kind, name string) (lock, *locker.Store, int) {
	if err := k.problem(); err != nil {
		a.errorf("%v", err)
		return lock{}, nil, exitUsage
	}
	store, code := bf.open(ctx, a)
	if code != exitOK {
		return lock{}, nil, code
	}
	m, err := k.open(store, name)
	if err != nil {
		store.Close()
		a.errorf("%v", err)
		return lock{}, nil, exitUsage
	}
	return m, store, exitOK
}

// describe is one line on a hold of a read-write lock or a semaphore.
func (h holderReport) describe() string {
	what := "read"
	switch {
	case h.Write:
		what = "write"
	case h.Permits > 0:
		what = fmt.Sprintf("%d permits", h.Permits)
	}
	d := fmt.Sprintf("%s, %s", h.Owner, what)
	if h.Label != "" {
		d += ", label " + h.Label
	}
	d = fmt.Sprintf("%s, holds %d, %v left", d, h.Holds, (time.Duration(h.RemainingMS) * time.Millisecond))
	if h.Token != 0 {
		d += fmt.Sprintf(", token %d", h.Token)
	}
	return d
}
