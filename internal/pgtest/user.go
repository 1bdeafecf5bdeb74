package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"sync"
	"syscall"
)

// serverUser is the account the servers run as when the tests run as root.
const serverUser = "distlock-pg"

var runAs = struct {
	once sync.Once
	cred *syscall.Credential // nil: run as the test process's own user
	err  error
}{}

// credential returns the user the servers run as: nil when the tests do not
// run as root (the servers run as the test's user), else an unprivileged
// account, since PostgreSQL refuses to run as root.
func credential() (*syscall.Credential, error) {
	runAs.once.Do(func() {
		if os.Geteuid() != 0 {
			return
		}
		runAs.cred, runAs.err = unprivileged()
	})
	return runAs.cred, runAs.err
}

// unprivileged finds "postgres" (the package's own account), or the
// package's user, creating it, or nobody.
func unprivileged() (*syscall.Credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		if u, err = user.Lookup(serverUser); err != nil {
			// Several test binaries may race to create it; whoever loses
			// finds it afterwards.
			_ = exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", serverUser).Run()
			if u, err = user.Lookup(serverUser); err != nil {
				u, err = user.Lookup("nobody")
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("no unprivileged user to run PostgreSQL as: %w", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}
