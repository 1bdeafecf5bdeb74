package redislocker

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/driver"
)

// Health checking and reconnection of a pub/sub connection.
const (
	// pingInterval is how long the connection may stay silent before it is
	// pinged; a ping unanswered for another interval means it is dead.
	pingInterval = time.Second
	// minBackoff and maxBackoff bound the wait between reconnections.
	minBackoff = 20 * time.Millisecond
	maxBackoff = time.Second
)

// subscriber is one pub/sub connection and the goroutine that reads it.
// On a Cluster it serves the channels of one hash slot, which keeps every
// SSUBSCRIBE (go-redis resubscribes all channels in one command) within a
// slot and routes the connection to the slot's master.
type subscriber struct {
	n    *notifier
	slot int
	// channels maps each subscribed channel to its watchers; guarded by
	// n.mu.
	channels map[string]map[*driver.Callback]struct{}
	// unsubscribing counts the unsubscribe confirmations still due on the
	// current connection, per channel; guarded by n.mu. Any other
	// unsubscribe came from the server.
	unsubscribing map[string]int

	psMu sync.Mutex
	ps   *redis.PubSub // replaced when the connection is rebuilt

	started bool // guarded by n.opMu
	quit    chan struct{}
	done    chan struct{}
}

func newSubscriber(n *notifier, slot int) *subscriber {
	return &subscriber{
		n:             n,
		slot:          slot,
		channels:      make(map[string]map[*driver.Callback]struct{}),
		unsubscribing: make(map[string]int),
		ps:            n.newPubSub(),
		quit:          make(chan struct{}),
		done:          make(chan struct{}),
	}
}

// start runs the read loop once; the caller holds n.opMu.
func (s *subscriber) start() {
	if !s.started {
		s.started = true
		go s.loop()
	}
}

// close ends the read loop and the connection; the caller holds n.opMu.
func (s *subscriber) close() {
	close(s.quit)
	s.psMu.Lock()
	_ = s.ps.Close()
	s.psMu.Unlock()
	if s.started {
		<-s.done
	}
}

func (s *subscriber) subscribe(ctx context.Context, channel string) {
	s.psMu.Lock()
	defer s.psMu.Unlock()
	if s.n.b.cluster != nil {
		_ = s.ps.SSubscribe(ctx, channel)
	} else {
		_ = s.ps.Subscribe(ctx, channel)
	}
}

func (s *subscriber) unsubscribe(ctx context.Context, channel string) {
	s.psMu.Lock()
	defer s.psMu.Unlock()
	s.n.mu.Lock()
	s.unsubscribing[channel]++
	s.n.mu.Unlock()
	var err error
	if s.n.b.cluster != nil {
		err = s.ps.SUnsubscribe(ctx, channel)
	} else {
		err = s.ps.Unsubscribe(ctx, channel)
	}
	if err != nil { // no confirmation will come
		s.n.unsolicited(s, channel)
	}
}

func (s *subscriber) pubsub() *redis.PubSub {
	s.psMu.Lock()
	defer s.psMu.Unlock()
	return s.ps
}

func (s *subscriber) quitting() bool {
	select {
	case <-s.quit:
		return true
	default:
		return false
	}
}

// loop reads the connection: a message or a subscription confirmation
// calls the channel's watchers. A connection that fails, or stays silent
// through a ping, is rebuilt and every channel subscribed again; the
// confirmations then call every watcher, covering releases missed while it
// was down.
func (s *subscriber) loop() {
	defer close(s.done)
	pinged := false
	backoff := time.Duration(0)
	for {
		ps := s.pubsub()
		msg, err := ps.ReceiveTimeout(context.Background(), pingInterval)
		if s.quitting() {
			return
		}
		if err != nil {
			if isTimeout(err) && !pinged {
				ctx, cancel := context.WithTimeout(context.Background(), pingInterval)
				_ = ps.Ping(ctx)
				cancel()
				pinged = true
				continue
			}
			// Dead connection, error reply, or a ping unanswered.
			if !s.sleep(backoff) {
				return
			}
			backoff = min(max(2*backoff, minBackoff), maxBackoff)
			s.rebuild()
			pinged = false
			continue
		}
		pinged = false
		switch m := msg.(type) {
		case *redis.Message:
			backoff = 0
			s.n.fire(s, m.Channel, turnOf(m.Payload))
		case *redis.Subscription:
			switch m.Kind {
			case "subscribe", "ssubscribe":
				backoff = 0
				s.n.fire(s, m.Channel, driver.Turn{})
			case "unsubscribe", "sunsubscribe":
				// The server drops shard channels whose slot moved; a
				// channel still watched must be subscribed again.
				if s.n.unsolicited(s, m.Channel) {
					s.rebuild()
				}
			}
		}
	}
}

// rebuild replaces the pub/sub connection with a new one subscribed to
// every watched channel. Subscribing may fail while the server is away;
// the next read then retries the connection.
func (s *subscriber) rebuild() {
	if s.n.b.cluster != nil {
		// The slot may have moved: have the client reload the slot map.
		s.n.b.cluster.ReloadState(context.Background())
	}
	s.psMu.Lock()
	defer s.psMu.Unlock()
	if s.quitting() {
		return
	}
	_ = s.ps.Close()
	s.ps = s.n.newPubSub()
	s.n.mu.Lock()
	clear(s.unsubscribing)
	s.n.mu.Unlock()
	chs := s.n.channelsOf(s)
	if len(chs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), subscribeTimeout)
	defer cancel()
	if s.n.b.cluster != nil {
		_ = s.ps.SSubscribe(ctx, chs...)
	} else {
		_ = s.ps.Subscribe(ctx, chs...)
	}
}

// sleep waits d, reporting false if the subscriber was closed meanwhile.
func (s *subscriber) sleep(d time.Duration) bool {
	if d <= 0 {
		return !s.quitting()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.quit:
		return false
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
