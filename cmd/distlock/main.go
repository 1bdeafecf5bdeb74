// Command distlock takes distributed locks from the shell: it runs a command
// while holding a lock (like flock(1), but across machines), and inspects or
// breaks locks. Locks live in any store distlock has a backend for (Redis,
// etcd, memcached), or in a MultiLock or RedLock over several of them.
//
//	distlock run --backend redis://127.0.0.1:6379 nightly-report -- ./report.sh
//	distlock status nightly-report
//	distlock unlock --force nightly-report
//
// Run "distlock --help" for the flags, the environment and the exit statuses.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	a := &app{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	os.Exit(a.main(context.Background(), os.Args[1:]))
}

// app is the command's environment, kept apart from os for clarity.
type app struct {
	stdout, stderr io.Writer
	getenv         func(string) string
}

// main runs one invocation and returns its exit status.
func (a *app) main(ctx context.Context, args []string) int {
	if len(args) == 0 {
		a.usage(a.stderr)
		return exitUsage
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		return a.run(ctx, rest)
	case "status":
		return a.status(ctx, rest)
	case "unlock":
		return a.unlock(ctx, rest)
	case "schemes":
		return a.schemes(rest)
	case "help":
		return a.help(rest)
	case "-h", "-help", "--help":
		a.usage(a.stdout)
		return exitOK
	default:
		fmt.Fprintf(a.stderr, "distlock: unknown command %q\n\n", cmd)
		a.usage(a.stderr)
		return exitUsage
	}
}

// help prints the usage of the command it is given, or the overview.
func (a *app) help(args []string) int {
	if len(args) == 0 {
		a.usage(a.stdout)
		return exitOK
	}
	switch args[0] {
	case "run", "status", "unlock", "schemes":
		return a.main(context.Background(), []string{args[0], "--help"})
	}
	fmt.Fprintf(a.stderr, "distlock: no help for %q\n", args[0])
	return exitUsage
}

// errorf reports a failure on stderr, prefixed with the command's name
// once (errors of the library carry the prefix already).
func (a *app) errorf(format string, args ...any) {
	msg := strings.TrimPrefix(fmt.Sprintf(format, args...), "distlock: ")
	fmt.Fprintln(a.stderr, "distlock: "+msg)
}

// infof reports what a command did, on stdout.
func (a *app) infof(format string, args ...any) {
	fmt.Fprintf(a.stdout, format+"\n", args...)
}

// helpOutput is where a subcommand's flag set prints: stdout when help was
// asked for (before any "--"), stderr for usage errors.
func (a *app) helpOutput(args []string) io.Writer {
	for _, arg := range args {
		switch arg {
		case "--":
			return a.stderr
		case "-h", "-help", "--help", "--h":
			return a.stdout
		}
	}
	return a.stderr
}
