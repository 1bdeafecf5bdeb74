package redislocker_test

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// startTLS starts a redis-server with a plain port and a TLS port that
// requires client certificates, and returns the TLS address and the
// certificates.
func startTLS(t *testing.T) (*redistest.Server, string, certs) {
	t.Helper()
	c := makeCerts(t, t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	srv := redistest.Start(t, redistest.WithArgs(
		"--tls-port", strconv.Itoa(port),
		"--tls-cert-file", c.serverCert, "--tls-key-file", c.serverKey,
		"--tls-ca-cert-file", c.ca, "--tls-auth-clients", "yes"))
	return srv, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), c
}

func tlsQuery(c certs) string {
	return "?ca_file=" + url.QueryEscape(c.ca) + "&cert_file=" + url.QueryEscape(c.clientCert) + "&key_file=" + url.QueryEscape(c.clientKey)
}

// TestTLSWithCAAndClientCertificate locks over TLS with a private CA and a
// client certificate named in the URL.
func TestTLSWithCAAndClientCertificate(t *testing.T) {
	_, addr, c := startTLS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := driver.Open(ctx, "rediss://"+addr+"/"+tlsQuery(c))
	require.NoError(t, err)
	defer b.Close()
	o := locker.NewOwner()
	g, err := b.TryLock(ctx, driver.Request{Key: "tls", Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	require.NoError(t, b.Unlock(ctx, "tls", o))

	// Without the CA the server's certificate is not trusted: a
	// configuration error, not an unknown outcome.
	untrusted, err := driver.Open(ctx, "rediss://"+addr+"/?cert_file="+url.QueryEscape(c.clientCert)+"&key_file="+url.QueryEscape(c.clientKey))
	require.NoError(t, err)
	defer untrusted.Close()
	_, err = untrusted.TryLock(ctx, driver.Request{Key: "tls", Owner: o, TTL: time.Minute})
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.Contains(t, err.Error(), "ca_file")
}

// TestTLSMismatch: rediss against a plain port and redis against a TLS
// port fail fast with ErrInvalid saying which side speaks TLS.
func TestTLSMismatch(t *testing.T) {
	srv, addr, c := startTLS(t)
	for _, tc := range []struct{ url, says string }{
		{"rediss://" + srv.Addr() + "/" + tlsQuery(c), "does not speak TLS"},
		{"redis://" + addr, "speaks TLS: use rediss://"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		b, err := driver.Open(ctx, tc.url)
		require.NoError(t, err)
		start := time.Now()
		_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute})
		took := time.Since(start)
		require.ErrorIs(t, err, locker.ErrInvalid, tc.url)
		assert.Contains(t, err.Error(), tc.says)
		assert.Less(t, took, 5*time.Second, "%s: within the dial timeout", tc.url)
		require.NoError(t, b.Close())
		cancel()
	}
}

// TestTLSParameters: the TLS files need rediss, go together, and must
// exist.
func TestTLSParameters(t *testing.T) {
	c := makeCerts(t, t.TempDir())
	for _, tc := range []struct{ url, says string }{
		{"redis://h:1/?ca_file=" + url.QueryEscape(c.ca), "needs a rediss scheme"},
		{"redis+cluster://h:1?ca_file=" + url.QueryEscape(c.ca), "needs a rediss scheme"},
		{"rediss://h:1/?cert_file=" + url.QueryEscape(c.clientCert), "go together"},
		{"rediss://h:1/?ca_file=/nonexistent/ca.pem", "ca_file"},
		{"rediss://h:1/?ca_file=" + url.QueryEscape(c.clientKey), "no PEM certificate"},
		{"rediss://h:1/?cert_file=" + url.QueryEscape(c.clientCert) + "&key_file=" + url.QueryEscape(c.serverKey), "client certificate"},
	} {
		_, err := driver.Open(context.Background(), tc.url)
		require.ErrorIs(t, err, locker.ErrInvalid, tc.url)
		assert.Contains(t, err.Error(), tc.says, tc.url)
	}
	for _, u := range []string{
		"rediss://h:1/" + tlsQuery(c),
		"rediss+cluster://h:1,h:2" + tlsQuery(c),
		"rediss+sentinel://h:1/m" + tlsQuery(c),
	} {
		b, err := driver.Open(context.Background(), u)
		require.NoError(t, err, u)
		require.NoError(t, b.Close())
	}
}

// deniedLine is what a Redis server in protected mode sends a client from
// another host before closing the connection (abridged).
const deniedLine = "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user.\r\n"

// TestProtectedModeReason: a server that refuses the client with a -DENIED
// line (protected mode, which a loopback client never meets, so a listener
// plays the server here) is ErrInvalid quoting the server's reason, not a
// broken pipe.
func TestProtectedModeReason(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan struct{})
	go func() {
		defer close(served)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			// As Redis does: the line at once, then close without reading.
			_, _ = conn.Write([]byte(deniedLine))
			_ = conn.Close()
		}
	}()
	defer func() {
		_ = ln.Close()
		<-served
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := driver.Open(ctx, "redis://"+ln.Addr().String())
	require.NoError(t, err)
	defer b.Close()
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute})
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.Contains(t, err.Error(), "protected mode")
}
