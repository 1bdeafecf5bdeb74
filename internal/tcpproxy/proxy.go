// Package tcpproxy is a small TCP proxy for fault-injection tests: it
// listens on a loopback port, forwards every connection to one target, and
// can cut, stall or heal the link on command, so a test can partition a
// client from a real server without touching the server.
package tcpproxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// Mode is how a Proxy treats its connections.
type Mode int

// The modes of a Proxy.
const (
	// Open forwards bytes both ways.
	Open Mode = iota
	// Cut closes every connection and closes new ones as soon as they are
	// accepted: clients see resets and EOFs.
	Cut
	// Stalled forwards nothing either way and keeps connections open, as a
	// network that drops packets: clients see timeouts. Bytes already read
	// from one side are delivered when the proxy heals.
	Stalled
	// RepliesStalled forwards client bytes to the target but nothing back:
	// requests run on the server, their replies are lost.
	RepliesStalled
)

// Proxy forwards TCP connections from a loopback port to a target. Its
// methods are safe for concurrent use.
type Proxy struct {
	target string
	ln     net.Listener
	wg     sync.WaitGroup

	mu       sync.Mutex
	mode     Mode
	changed  chan struct{} // closed and replaced at every mode change
	links    map[*link]struct{}
	closed   bool
	accepted int
}

// link is one proxied connection: the client side and the target side.
type link struct {
	client net.Conn
	// holdReplies and holdRequests are set by StallOpenReplies and
	// StallOpenRequests; guarded by Proxy.mu.
	holdReplies, holdRequests bool

	mu     sync.Mutex
	target net.Conn
	closed bool
}

// attach records the target side; it reports false, closing t, when the
// link was closed meanwhile.
func (l *link) attach(t net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = t.Close()
		return false
	}
	l.target = t
	return true
}

func (l *link) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	_ = l.client.Close()
	if l.target != nil {
		_ = l.target.Close()
	}
}

// Start listens on a free port of 127.0.0.1 and forwards connections to
// target ("host:port"). It fails only if it cannot listen. Close stops it.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("tcpproxy: listen for %s: %w", target, err)
	}
	p := &Proxy{
		target:  target,
		ln:      ln,
		changed: make(chan struct{}),
		links:   make(map[*link]struct{}),
	}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the proxy's address, "127.0.0.1:port": clients dial it
// instead of the target.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target returns the address the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

// Accepted returns how many client connections the proxy has accepted.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Mode returns the proxy's current mode.
func (p *Proxy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// Cut closes every open connection and, until Heal, closes new ones as soon
// as they are accepted.
func (p *Proxy) Cut() { p.set(Cut) }

// Stall stops forwarding in both directions until Heal. Connections stay
// open, new ones are accepted but get nothing through.
func (p *Proxy) Stall() { p.set(Stalled) }

// StallReplies forwards requests to the target but holds back everything
// the target sends until Heal: the server runs the commands, the client
// never sees the replies.
func (p *Proxy) StallReplies() { p.set(RepliesStalled) }

// StallOpenReplies holds back, until Heal, what the target sends on the
// connections open now; connections accepted later are served normally. A
// client that retries on a new connection after a lost reply gets through,
// so a test can tell whether a request ran twice.
func (p *Proxy) StallOpenReplies() {
	p.mu.Lock()
	for l := range p.links {
		l.holdReplies = true
	}
	p.mu.Unlock()
}

// StallOpenRequests holds back, until Heal, what the clients send on the
// connections open now; connections accepted later are served normally.
// The bytes held are delivered on Heal even if the client has closed its
// connection meanwhile, as a kernel delivers what was sent before a close:
// a request the client gave up on runs late, after requests it sent later
// on a new connection.
func (p *Proxy) StallOpenRequests() {
	p.mu.Lock()
	for l := range p.links {
		l.holdRequests = true
	}
	p.mu.Unlock()
}

// Heal forwards both ways again. Connections closed by Cut stay closed;
// stalled connections resume with the bytes they held.
func (p *Proxy) Heal() { p.set(Open) }

func (p *Proxy) set(m Mode) {
	p.mu.Lock()
	p.mode = m
	if m == Open {
		for l := range p.links {
			l.holdReplies, l.holdRequests = false, false
		}
	}
	close(p.changed)
	p.changed = make(chan struct{})
	var cut []*link
	if m == Cut {
		for l := range p.links {
			cut = append(cut, l)
		}
	}
	p.mu.Unlock()
	for _, l := range cut {
		l.close()
	}
}

// Close stops listening, closes every connection and waits for the proxy's
// goroutines to end. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	err := p.ln.Close()
	for _, l := range links {
		l.close()
	}
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.accepted++
		if p.closed || p.mode == Cut {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		l := &link{client: c}
		p.links[l] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(l)
	}
}

// serve dials the target for l and copies both ways until either side ends.
func (p *Proxy) serve(l *link) {
	defer p.wg.Done()
	defer func() {
		l.close()
		p.mu.Lock()
		delete(p.links, l)
		p.mu.Unlock()
	}()
	t, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	if !l.attach(t) {
		return
	}
	p.mu.Lock()
	gone := p.closed || p.mode == Cut
	p.mu.Unlock()
	if gone {
		return
	}
	done := make(chan struct{}, 2)
	go func() { p.pipe(l, t, l.client, false); done <- struct{}{} }()
	go func() { p.pipe(l, l.client, t, true); done <- struct{}{} }()
	<-done
	l.close()
	<-done
}

// pipe copies from src to dst, holding each chunk back while the mode says
// this direction is stalled. reply marks the target-to-client direction.
func (p *Proxy) pipe(l *link, dst, src net.Conn, reply bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.await(l, reply) {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return
			}
			// Half-close: pass the EOF on so the other side sees it.
			if tc, ok := dst.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			return
		}
	}
}

// await blocks while the direction is stalled. It reports false when the
// link must end (cut or proxy closed).
func (p *Proxy) await(l *link, reply bool) bool {
	for {
		p.mu.Lock()
		mode, changed, closed := p.mode, p.changed, p.closed
		held := reply && l.holdReplies || !reply && l.holdRequests
		p.mu.Unlock()
		switch {
		case closed || mode == Cut:
			return false
		case held:
		case mode == Open, mode == RepliesStalled && !reply:
			return true
		}
		<-changed
	}
}
