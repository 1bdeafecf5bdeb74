package etcdlocker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"

	"github.com/distlock/distlock/driver"
)

// maxCauseInError bounds the text of a cause quoted from gRPC or etcd,
// which may repeat what was sent.
const maxCauseInError = 300

// failed gives an error of a call the package's name, once (the Store names
// the operation and the lock), classified: a request too large for the
// server or the client's message limit was refused before it was applied
// (ErrInvalid); a call that found no connection was never sent
// (ErrUnavailable); anything else keeps its meaning (an unknown outcome
// stays one). ErrNotHeld and ErrClosed, which say all there is to say, are
// returned as they are, as are the kit's argument checks, which never reach
// failed.
func failed(err error) error {
	switch {
	case err == nil || err == driver.ErrNotHeld || err == driver.ErrClosed:
		return err
	case tooLarge(err):
		return fmt.Errorf("etcdlocker: %w: the request is larger than etcd accepts (a lock name this long cannot be stored): %s",
			driver.ErrInvalid, cut(err.Error()))
	case notSent(err):
		return fmt.Errorf("etcdlocker: %w: cannot reach etcd, nothing was sent: %s", driver.ErrUnavailable, cut(err.Error()))
	case refusedUser(err):
		return fmt.Errorf("etcdlocker: %w: %s", driver.ErrInvalid, userAdvice(err))
	}
	return fmt.Errorf("etcdlocker: %w", err)
}

// refusedUser reports whether etcd refused the client's user before it
// applied anything: credentials it does not accept, or a user without
// permission on the keys.
func refusedUser(err error) bool {
	e := rpctypes.Error(err)
	return errors.Is(e, rpctypes.ErrAuthFailed) || errors.Is(e, rpctypes.ErrPermissionDenied) ||
		errors.Is(e, rpctypes.ErrUserEmpty) || errors.Is(e, rpctypes.ErrAuthNotEnabled)
}

// userAdvice says what to fix for an error refusedUser accepts.
func userAdvice(err error) string {
	if errors.Is(rpctypes.Error(err), rpctypes.ErrPermissionDenied) {
		return "etcd refused the user: it needs readwrite permission on the backend's prefix (" + err.Error() + ")"
	}
	return "authentication failed: check the user and password in the URL (etcd://user:password@host) or the client's Username and Password (" + err.Error() + ")"
}

// cut shortens a quoted cause.
func cut(s string) string {
	if len(s) > maxCauseInError {
		return s[:maxCauseInError] + "…"
	}
	return s
}

// tooLarge reports whether err refused a request for its size: the client
// would not send it (ResourceExhausted, over the message limit) or the
// server would not apply it (request too large).
func tooLarge(err error) bool {
	if errors.Is(rpctypes.Error(err), rpctypes.ErrRequestTooLarge) {
		return true
	}
	s, ok := status.FromError(err)
	return ok && s.Code() == codes.ResourceExhausted && strings.Contains(s.Message(), "larger than max")
}

// notSent reports whether err is gRPC's failure to find a connection for
// the call, so it was never sent. A connection lost during the call is
// Unavailable too, but says nothing of dialing.
func notSent(err error) bool {
	s, ok := status.FromError(err)
	if !ok || s.Code() != codes.Unavailable {
		return false
	}
	msg := s.Message()
	return strings.Contains(msg, "Error while dialing") || strings.Contains(msg, "there is no address available") ||
		strings.Contains(msg, "there is no connection available")
}

// connect waits for a connection to etcd: it returns ErrUnavailable when the
// client has no connection to etcd and cannot make one before ctx ends. The
// etcd client would otherwise hold the call until its context ends (it
// waits for a connection), and report that as a deadline, an unknown
// outcome, though nothing was sent.
//
// A client whose connections failed waits out a backoff before it tries
// again, so when none is ready begin dials the endpoints itself: if none
// answers, the call fails at once; if one does (the server is back), the
// client is told to reconnect now, and the call waits for that.
func (b *Backend) connect(ctx context.Context) error {
	conn := b.cli.ActiveConnection()
	retried := false
	for {
		state := conn.GetState()
		switch state {
		case connectivity.Ready:
			return nil
		case connectivity.TransientFailure:
			if retried || !b.anyEndpointAnswers(ctx) {
				return fmt.Errorf("%w: cannot connect to etcd at %v, nothing was sent", driver.ErrUnavailable, b.cli.Endpoints())
			}
			retried = true
			conn.ResetConnectBackoff()
		case connectivity.Shutdown:
			return fmt.Errorf("%w: the etcd client is closed", driver.ErrClosed)
		case connectivity.Idle:
			conn.Connect()
		}
		if !conn.WaitForStateChange(ctx, state) {
			return fmt.Errorf("%w: no connection to etcd at %v before the deadline, nothing was sent: %w",
				driver.ErrUnavailable, b.cli.Endpoints(), ctx.Err())
		}
	}
}

// probeTimeout bounds each endpoint's dial in anyEndpointAnswers.
const probeTimeout = time.Second

// anyEndpointAnswers reports whether a TCP connection to one of the
// client's endpoints can be made now.
func (b *Backend) anyEndpointAnswers(ctx context.Context) bool {
	for _, ep := range b.cli.Endpoints() {
		host := ep
		if u, err := url.Parse(ep); err == nil && u.Host != "" {
			host = u.Host
		}
		dctx, cancel := context.WithTimeout(ctx, probeTimeout)
		var d net.Dialer
		conn, err := d.DialContext(dctx, "tcp", host)
		cancel()
		if err == nil {
			_ = conn.Close()
			return true
		}
	}
	return false
}
