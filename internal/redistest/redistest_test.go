package redistest_test

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/distlock/distlock/internal/redistest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestStartIsEmptyAndLoopback(t *testing.T) {
	s := redistest.Start(t)
	assert.True(t, strings.HasPrefix(s.Addr(), "127.0.0.1:"), s.Addr())
	assert.True(t, s.Running())
	n, err := s.Do("DBSIZE")
	require.NoError(t, err)
	assert.EqualValues(t, 0, n)
	reply, err := s.Do("CONFIG", "GET", "appendonly")
	require.NoError(t, err)
	assert.Equal(t, []any{"appendonly", "no"}, reply)
	reply, err = s.Do("CONFIG", "GET", "save")
	require.NoError(t, err)
	assert.Equal(t, []any{"save", ""}, reply, "no snapshots either")
	_, err = s.Do("NOSUCHCOMMAND")
	var re redistest.ReplyError
	assert.ErrorAs(t, err, &re)
}

func TestRestartWithoutPersistenceLosesData(t *testing.T) {
	s := redistest.Start(t)
	port := s.Port()
	_, err := s.Do("SET", "k", "v")
	require.NoError(t, err)
	s.Restart()
	assert.Equal(t, port, s.Port(), "a restart keeps the port")
	v, err := s.Do("GET", "k")
	require.NoError(t, err)
	assert.Nil(t, v, "a server without persistence comes back empty")
}

func TestRestartWithAppendOnlyKeepsData(t *testing.T) {
	s := redistest.Start(t, redistest.WithAppendOnly())
	_, err := s.Do("SET", "k", "v")
	require.NoError(t, err)
	s.Restart()
	v, err := s.Do("GET", "k")
	require.NoError(t, err)
	assert.Equal(t, "v", v)
}

func TestKill(t *testing.T) {
	s := redistest.Start(t)
	s.Kill()
	assert.False(t, s.Running())
	_, err := s.Do("PING")
	assert.Error(t, err, "a killed server must not answer")
	s.Kill() // killing twice is harmless
}

func TestStopAndCont(t *testing.T) {
	s := redistest.Start(t)
	s.Stop()
	c, err := net.Dial("tcp", s.Addr())
	require.NoError(t, err, "a paused server still accepts (the kernel does)")
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(300*time.Millisecond)))
	_, err = c.Write([]byte("PING\r\n"))
	require.NoError(t, err)
	_, err = bufio.NewReader(c).ReadString('\n')
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout(), "a paused server answers nothing")
	s.Cont()
	reply, err := s.Do("PING")
	require.NoError(t, err)
	assert.Equal(t, "PONG", reply)
}

func TestReplica(t *testing.T) {
	m := redistest.Start(t)
	r := redistest.StartReplica(t, m)
	info, err := r.Info("replication")
	require.NoError(t, err)
	assert.Equal(t, "slave", info["role"])
	_, err = m.Do("SET", "k", "v")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		v, err := r.Do("GET", "k")
		return err == nil && v == "v"
	}, 10*time.Second, 10*time.Millisecond, "the replica must receive the master's writes")
}

func TestCluster(t *testing.T) {
	c := redistest.StartCluster(t, 3)
	require.Len(t, c.Addrs(), 3)
	for _, s := range c.Servers() {
		reply, err := s.Do("CLUSTER", "INFO")
		require.NoError(t, err)
		assert.Contains(t, reply, "cluster_state:ok")
	}
	// A key lives on exactly one master: the others redirect.
	moved := 0
	for _, s := range c.Servers() {
		_, err := s.Do("SET", "{tag}k", "v")
		if err != nil {
			assert.Contains(t, err.Error(), "MOVED")
			moved++
		}
	}
	assert.Equal(t, 2, moved)
}

func TestSentinel(t *testing.T) {
	m := redistest.Start(t)
	s := redistest.StartSentinel(t, m, "mymaster")
	reply, err := s.Do("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster")
	require.NoError(t, err)
	assert.Equal(t, []any{"127.0.0.1", strconv.Itoa(m.Port())}, reply)
}

func TestTwoReplicasBothAcknowledge(t *testing.T) {
	m := redistest.Start(t)
	redistest.StartReplica(t, m)
	redistest.StartReplica(t, m)
	info, err := m.Info("replication")
	require.NoError(t, err)
	assert.Equal(t, "2", info["connected_slaves"])
	n, err := m.Do("DBSIZE")
	require.NoError(t, err)
	assert.EqualValues(t, 0, n, "the replication probe leaves nothing behind")
}
