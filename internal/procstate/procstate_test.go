package procstate

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestStoppedReadsTheStateField(t *testing.T) {
	assert.True(t, stopped([]byte("42 (memcached) T 1 2 3")))
	assert.True(t, stopped([]byte("42 (a) b) t 1")))
	assert.False(t, stopped([]byte("42 (redis-server) S 1 2 3")))
	assert.False(t, stopped([]byte("42 (T) R 1")))
	assert.False(t, stopped([]byte("garbage")))
}

func TestWaitStopped(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	require.NoError(t, cmd.Start())
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	assert.Error(t, WaitStopped(cmd.Process.Pid, 50*time.Millisecond), "a running process is not stopped")
	require.NoError(t, cmd.Process.Signal(syscall.SIGSTOP))
	require.NoError(t, WaitStopped(cmd.Process.Pid, 5*time.Second))
}

func TestStateAndGroupReadTheirFields(t *testing.T) {
	state, group, ok := stateAndGroup([]byte("42 (a) b) S 1 40 40 0"))
	assert.True(t, ok)
	assert.Equal(t, byte('S'), state)
	assert.Equal(t, 40, group)
	_, _, ok = stateAndGroup([]byte("garbage"))
	assert.False(t, ok)
}

func TestWaitGroupGone(t *testing.T) {
	// A shell leading its own group, with a child that outlives it
	// unless killed with the group.
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	pgid := cmd.Process.Pid
	assert.Error(t, WaitGroupGone(pgid, 50*time.Millisecond), "a running group is not gone")
	require.NoError(t, syscall.Kill(-pgid, syscall.SIGKILL))
	_ = cmd.Wait()
	require.NoError(t, WaitGroupGone(pgid, 5*time.Second))
}
