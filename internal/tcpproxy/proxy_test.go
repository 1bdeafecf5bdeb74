package tcpproxy_test

import (
	"bufio"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/distlock/distlock/internal/tcpproxy"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// echoServer answers every line with the same line and records what it got.
type echoServer struct {
	ln net.Listener
	wg sync.WaitGroup

	mu    sync.Mutex
	lines []string
	conns []net.Conn
}

func startEcho(t *testing.T) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &echoServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					s.mu.Lock()
					s.lines = append(s.lines, line)
					s.mu.Unlock()
					if _, err := io.WriteString(c, line); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			_ = c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *echoServer) received() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lines)
}

func start(t *testing.T, target string) *tcpproxy.Proxy {
	t.Helper()
	p, err := tcpproxy.Start(target)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// roundTrip sends a line and reads the answer within d.
func roundTrip(c net.Conn, line string, d time.Duration) (string, error) {
	if err := c.SetDeadline(time.Now().Add(d)); err != nil {
		return "", err
	}
	if _, err := io.WriteString(c, line+"\n"); err != nil {
		return "", err
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	return got, err
}

func TestForwards(t *testing.T) {
	echo := startEcho(t)
	p := start(t, echo.ln.Addr().String())
	assert.Equal(t, echo.ln.Addr().String(), p.Target())
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	got, err := roundTrip(c, "hello", 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, "hello\n", got)
	assert.Equal(t, 1, p.Accepted())
	assert.Equal(t, tcpproxy.Open, p.Mode())
}

func TestCutDropsAndRefuses(t *testing.T) {
	echo := startEcho(t)
	p := start(t, echo.ln.Addr().String())
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	_, err = roundTrip(c, "before", 5*time.Second)
	require.NoError(t, err)

	p.Cut()
	_, err = roundTrip(c, "during", 5*time.Second)
	assert.Error(t, err, "an open connection must be dropped by Cut")
	c2, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c2.Close()
	_, err = roundTrip(c2, "new during cut", 5*time.Second)
	assert.Error(t, err, "a new connection must be refused while cut")

	p.Heal()
	c3, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c3.Close()
	got, err := roundTrip(c3, "after", 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, "after\n", got)
}

func TestStallHoldsBytesUntilHeal(t *testing.T) {
	echo := startEcho(t)
	p := start(t, echo.ln.Addr().String())
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	_, err = roundTrip(c, "warm-up", 5*time.Second)
	require.NoError(t, err)

	p.Stall()
	_, err = roundTrip(c, "stalled", 300*time.Millisecond)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout(), "a stalled link times out rather than failing")
	assert.Equal(t, 1, echo.received(), "nothing reaches the server while stalled")

	p.Heal()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	got, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "stalled\n", got, "the held bytes are delivered after Heal")
}

func TestStallRepliesRunsRequests(t *testing.T) {
	echo := startEcho(t)
	p := start(t, echo.ln.Addr().String())
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()

	p.StallReplies()
	_, err = roundTrip(c, "request", 300*time.Millisecond)
	require.Error(t, err, "the reply must not get through")
	require.Eventually(t, func() bool { return echo.received() == 1 }, 5*time.Second, 10*time.Millisecond,
		"the request must reach the server")
}

func TestCloseEndsEverything(t *testing.T) {
	echo := startEcho(t)
	p, err := tcpproxy.Start(echo.ln.Addr().String())
	require.NoError(t, err)
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	_, err = roundTrip(c, "x", 5*time.Second)
	require.NoError(t, err)
	p.Stall()
	require.NoError(t, p.Close())
	require.NoError(t, p.Close(), "closing twice")
	_, err = roundTrip(c, "after close", 2*time.Second)
	assert.Error(t, err)
	_, err = net.DialTimeout("tcp", p.Addr(), time.Second)
	assert.Error(t, err, "the proxy must stop listening")
}

func TestStallOpenRepliesSparesNewConnections(t *testing.T) {
	echo := startEcho(t)
	p := start(t, echo.ln.Addr().String())
	old := warmConn(t, p)
	defer old.Close()

	p.StallOpenReplies()
	_, err := roundTrip(old, "lost", 300*time.Millisecond)
	require.Error(t, err, "the open connection's reply is held")
	assertFreshServed(t, p)
	assert.Equal(t, 3, echo.received(), "every request reached the server")

	p.Heal()
	require.NoError(t, old.SetDeadline(time.Now().Add(5*time.Second)))
	got, err := bufio.NewReader(old).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "lost\n", got, "the held reply arrives after Heal")
}

func TestStallOpenRequestsDeliversThemLate(t *testing.T) {
	echo := startEcho(t)
	p := start(t, echo.ln.Addr().String())
	old := warmConn(t, p)

	p.StallOpenRequests()
	_, err := roundTrip(old, "late", 300*time.Millisecond)
	require.Error(t, err, "the open connection's request is held")
	require.NoError(t, old.Close(), "the client gives up on it")
	assertFreshServed(t, p)
	assert.Equal(t, 2, echo.received(), "the held request has not reached the server")

	p.Heal()
	assert.Eventually(t, func() bool { return echo.received() == 3 }, 5*time.Second, 10*time.Millisecond,
		"the held request reaches the server after Heal, though its client closed")
}

// warmConn returns a connection through p that has made one round trip.
func warmConn(t *testing.T, p *tcpproxy.Proxy) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	_, err = roundTrip(c, "warm-up", 5*time.Second)
	require.NoError(t, err)
	return c
}

// assertFreshServed checks that a new connection through p is served.
func assertFreshServed(t *testing.T, p *tcpproxy.Proxy) {
	t.Helper()
	fresh, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer fresh.Close()
	got, err := roundTrip(fresh, "fresh", 5*time.Second)
	require.NoError(t, err, "a new connection is served")
	assert.Equal(t, "fresh\n", got)
}
