package tcpproxy

import (
	"fmt"
	"sync"
)

// Clients gives every client of one server a proxy of its own, so that a
// test can cut a single client off the server: the shape of a conformance
// harness's Partition and Heal.
type Clients struct {
	target string

	mu      sync.Mutex
	proxies map[any]*Proxy
}

// NewClients returns an empty set of proxies to target.
func NewClients(target string) *Clients {
	return &Clients{target: target, proxies: make(map[any]*Proxy)}
}

// Connect starts a proxy for a new client, calls open with the address the
// client must dial, and records the client open returns. When open fails the
// proxy is closed.
func (c *Clients) Connect(open func(addr string) (any, error)) (any, error) {
	p, err := Start(c.target)
	if err != nil {
		return nil, err
	}
	client, err := open(p.Addr())
	if err != nil {
		p.Close()
		return nil, err
	}
	c.mu.Lock()
	c.proxies[client] = p
	c.mu.Unlock()
	return client, nil
}

// Cut cuts client's connections and refuses new ones, until Heal.
func (c *Clients) Cut(client any) error {
	p, err := c.proxy(client)
	if err == nil {
		p.Cut()
	}
	return err
}

// Stall holds client's connections open and forwards nothing, as a paused
// server or a blackholed link would, until Heal.
func (c *Clients) Stall(client any) error {
	p, err := c.proxy(client)
	if err == nil {
		p.Stall()
	}
	return err
}

// Heal lets client reach the server again.
func (c *Clients) Heal(client any) error {
	p, err := c.proxy(client)
	if err == nil {
		p.Heal()
	}
	return err
}

// Close closes every proxy.
func (c *Clients) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.proxies {
		p.Close()
	}
}

func (c *Clients) proxy(client any) (*Proxy, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.proxies[client]
	if !ok {
		return nil, fmt.Errorf("tcpproxy: not a client of this set: %T", client)
	}
	return p, nil
}
