package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/distlock/distlock/driver"
)

const overview = `distlock takes distributed locks from the shell.

Usage:
  distlock run [flags] NAME -- CMD [ARG...]   run CMD while holding the lock NAME
  distlock status [flags] NAME                show who holds NAME
  distlock unlock --force [flags] NAME        break the lock NAME, whoever holds it
  distlock schemes                            list the backend URL schemes
  distlock help COMMAND                       show a command's flags

The lock store is given by --backend URL (repeat it with --redlock or
--multilock to use several stores), by --config FILE, or by $DISTLOCK_BACKEND,
which takes the same forms as a config file on one line, for example
  DISTLOCK_BACKEND=redis://127.0.0.1:6379
  DISTLOCK_BACKEND="redlock: redis://a:6379 redis://b:6379 redis://c:6379"

Backend URL schemes: %s

Examples:
  # Run the nightly report on one machine at a time; skip it if another runs it.
  distlock run --backend redis://127.0.0.1:6379 --wait 0 nightly-report -- ./report.sh

  # Wait up to a minute for the lock, held by a majority of three Redis masters.
  distlock run --redlock --wait 1m \
      --backend redis://a:6379 --backend redis://b:6379 --backend redis://c:6379 \
      deploy -- make deploy

  # Many readers at once, or one writer: the backup waits until no report reads.
  distlock run --read  reports -- ./report.sh
  distlock run --write reports -- ./backup.sh

  # At most four encoders at a time across the fleet.
  distlock run --permits 4 encoders -- ./encode.sh

  # Who holds it? Break it.
  distlock status deploy
  distlock unlock --force deploy

` + exitStatuses

const exitStatuses = `Exit statuses of run:
  CMD's own    CMD ran while the lock was held; 128+N if a signal N killed it
  64           usage or configuration error (bad flag, unknown URL scheme, wrong password, TLS mismatch); CMD did not run
  69           the lock store could not be reached or failed; CMD did not run
  75           the lock was not acquired within --wait; CMD did not run
  76           the lock was lost while CMD ran (CMD was stopped), or was no
               longer held when CMD finished
  126, 127     CMD could not be executed, or was not found
  128+N        a signal N interrupted the wait for the lock; CMD did not run
status exits 0 when the lock is held and 1 when it is free; unlock --force
exits 0 when it broke a lock and 1 when none was held; both use 64 and 69 as
run does.
`

func (a *app) usage(w io.Writer) {
	fmt.Fprintf(w, overview, strings.Join(driver.Schemes(), ", "))
}

func (a *app) schemes(args []string) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
			fmt.Fprintln(a.stdout, "usage: distlock schemes\n\nPrints the backend URL schemes this distlock knows, one a line.")
			return exitOK
		}
		a.errorf("schemes takes no arguments")
		return exitUsage
	}
	for _, s := range driver.Schemes() {
		fmt.Fprintln(a.stdout, s)
	}
	return exitOK
}

func runUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprint(w, `usage: distlock run [flags] NAME -- CMD [ARG...]

Runs CMD while holding the lock NAME, like flock(1) across machines. It waits
for the lock (bounded by --wait), starts CMD in a process group of its own
and releases the lock when CMD exits. While CMD runs the lease is renewed
every third of --watchdog, unless --lease fixes it. If the lock is lost (a
renewal finds it gone or cannot reach the store before the lease ends, a
fixed lease runs out, someone forces it open), CMD's process group gets
SIGTERM and, --grace later, SIGKILL, and run exits with 76. SIGINT, SIGTERM
and SIGHUP sent to distlock are forwarded to CMD's process group.

CMD gets $DISTLOCK_NAME (the lock's name) and $DISTLOCK_TOKEN (the hold's
fencing token: pass it to the resource you protect, which should refuse
tokens lower than one it has seen).

NAME is a mutex unless --read or --write makes it a read-write lock (many
readers or one writer; a read hold's token is the last writer's), or
--permits N a semaphore of N permits. The three are kept apart: the mutex
NAME, the read-write lock NAME and the semaphore NAME never exclude each
other. Stores without shared locks (memcached, PostgreSQL) refuse --read,
--write and --permits with status 64.

Flags:
`)
	fs.PrintDefaults()
	fmt.Fprint(w, "\n"+exitStatuses)
}

func statusUsage(fs *flag.FlagSet) {
	fmt.Fprint(fs.Output(), `usage: distlock status [flags] NAME

Prints whether NAME is held, by which owner, its hold count, its remaining
lease and its fencing token; of a read-write lock (--rw) or a semaphore
(--permits N), every holder. Exits 0 when held, 1 when free.

Flags:
`)
	fs.PrintDefaults()
}

func unlockUsage(fs *flag.FlagSet) {
	fmt.Fprint(fs.Output(), `usage: distlock unlock --force [flags] NAME

Deletes the lock NAME whoever holds it (every hold of a read-write lock
with --rw, of a semaphore with --permits N). A "distlock run" holding it notices
at its next renewal (within a third of its --watchdog lease) and stops its
CMD. Exits 0 when a lock was broken, 1 when none was held.

Flags:
`)
	fs.PrintDefaults()
}
