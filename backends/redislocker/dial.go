package redislocker

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/distlock/distlock/driver"
)

// probeDelay is how long a TLS handshake may go unanswered before the
// dialer asks, on a second connection, whether the server speaks plain
// Redis instead: a plain server never answers a ClientHello, so the
// handshake would otherwise last the whole dial timeout, once per go-redis
// dial attempt.
const probeDelay = 100 * time.Millisecond

// defaultDialTimeout is go-redis's, for URLs that set none.
const defaultDialTimeout = 5 * time.Second

// urlDialer dials the connections of a client opened from a URL, and turns
// the misconfigurations go-redis shows only as a hang or a lost connection
// into errors wrapping driver.ErrInvalid: rediss against a server without
// TLS, redis against a TLS port, a server that refuses the client with a
// -DENIED line (protected mode).
type urlDialer struct {
	tls     *tls.Config // nil for plain connections
	timeout time.Duration
}

func newURLDialer(tc *tls.Config, timeout time.Duration) *urlDialer {
	if timeout <= 0 {
		timeout = defaultDialTimeout
	}
	return &urlDialer{tls: tc, timeout: timeout}
}

// dial is a go-redis Options.Dialer.
func (d *urlDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	nd := net.Dialer{Timeout: d.timeout, KeepAlive: 5 * time.Minute}
	raw, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if d.tls == nil {
		return &plainConn{Conn: raw, network: network, addr: addr, timeout: d.timeout}, nil
	}
	conn, err := d.handshake(ctx, raw, network, addr)
	if err != nil {
		_ = raw.Close()
		return nil, err
	}
	return conn, nil
}

// handshake runs the TLS handshake on raw. While it goes unanswered past
// probeDelay, a second connection asks whether the server speaks plain
// Redis; if it does, the handshake is given up at once.
func (d *urlDialer) handshake(ctx context.Context, raw net.Conn, network, addr string) (net.Conn, error) {
	cfg := d.tls.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
	}
	conn := tls.Client(raw, cfg)
	hctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	answered := make(chan struct{})
	plain := make(chan bool, 1)
	go func() {
		select {
		case <-answered:
			plain <- false
			return
		case <-time.After(probeDelay):
		}
		isPlain := speaksPlain(hctx, network, addr)
		if isPlain {
			cancel()
		}
		plain <- isPlain
	}()
	err := conn.HandshakeContext(hctx)
	close(answered)
	if err == nil {
		cancel() // ends a probe under way
		<-plain
		return conn, nil
	}
	var rh tls.RecordHeaderError
	if <-plain || errors.As(err, &rh) {
		return nil, fmt.Errorf("%w: the server at %s does not speak TLS: use redis:// (or enable TLS on the server)", driver.ErrInvalid, addr)
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || isNetError(err) {
		return nil, fmt.Errorf("%w: TLS handshake with %s: %w", driver.ErrUnavailable, addr, err)
	}
	return nil, fmt.Errorf("%w: TLS handshake with %s failed: %v (check ca_file, cert_file and key_file)", driver.ErrInvalid, addr, err)
}

// isNetError reports a network failure (as opposed to a refused
// certificate).
func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}

// speaksPlain reports whether the server at addr answers an inline PING in
// plain RESP (+PONG, or an error such as -NOAUTH).
func speaksPlain(ctx context.Context, network, addr string) bool {
	var nd net.Dialer
	conn, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	b, err := bufio.NewReader(conn).ReadByte()
	return err == nil && (b == '+' || b == '-')
}

// speaksTLS reports whether the server at addr answers a TLS ClientHello
// with a TLS record (a handshake, or an alert such as "certificate
// required"), within timeout.
func speaksTLS(network, addr string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var nd net.Dialer
	raw, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return false
	}
	defer raw.Close()
	// Only whether TLS answers matters here, not whom: the certificate is
	// not checked, and nothing is sent over the connection.
	conn := tls.Client(raw, &tls.Config{InsecureSkipVerify: true})
	err = conn.HandshakeContext(ctx)
	var alert tls.AlertError
	return err == nil || errors.As(err, &alert)
}

// plainConn is a connection of redis://. It watches the first reply: a
// -DENIED line makes later failures of the connection ErrInvalid errors
// quoting it, and a connection closed before any reply is checked for a
// TLS server on the other end.
type plainConn struct {
	net.Conn
	network, addr string
	timeout       time.Duration

	mu      sync.Mutex
	replied bool   // some bytes were read
	denied  string // the -DENIED line, if the server sent one
}

// NetConn returns the connection underneath, as tls.Conn's does.
func (c *plainConn) NetConn() net.Conn { return c.Conn }

// SyscallConn exposes the socket underneath. go-redis checks a pooled
// connection's health on the outer connection only, and only through
// syscall.Conn: without it, a connection that a restarted server closed
// would be used, and fail with EOF, instead of being replaced.
func (c *plainConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("%w: %T has no socket", errors.ErrUnsupported, c.Conn)
	}
	return sc.SyscallConn()
}

// Read implements net.Conn.
func (c *plainConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	first := !c.replied
	if n > 0 && first {
		c.replied = true
		if bytes.HasPrefix(p[:n], []byte("-DENIED")) {
			line, _, _ := bytes.Cut(p[:n], []byte("\r\n"))
			c.denied = string(line[1:])
		}
	}
	denied := c.denied
	c.mu.Unlock()
	switch {
	case err == nil:
		return n, nil
	case denied != "":
		return n, refused(denied, err)
	case first && n == 0 && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) &&
		speaksTLS(c.network, c.addr, min(c.timeout, time.Second)):
		return n, fmt.Errorf("%w: the server at %s speaks TLS: use rediss:// (%w)", driver.ErrInvalid, c.addr, err)
	}
	return n, err
}

// Write implements net.Conn.
func (c *plainConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil {
		c.mu.Lock()
		denied := c.denied
		c.mu.Unlock()
		if denied != "" {
			return n, refused(denied, err)
		}
	}
	return n, err
}

// refused is the error of a connection the server refused with a -DENIED
// line.
func refused(denied string, err error) error {
	return fmt.Errorf("%w: the server refuses this client: %s (%w)", driver.ErrInvalid, denied, err)
}
