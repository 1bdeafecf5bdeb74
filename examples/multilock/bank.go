package main

import (
	"fmt"
	"sync"
	"time"
)

// bank is the resource the locks protect. Its balances are read and written
// in separate steps, with a pause between, as a remote store's would be:
// two transfers on one account that were not serialized by a lock would
// lose one of their updates.
type bank struct {
	mu       sync.Mutex // guards the map, not the read-modify-write
	balances map[string]int
}

func newBank(balances map[string]int) *bank {
	return &bank{balances: balances}
}

func (b *bank) get(account string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.balances[account]
}

func (b *bank) set(account string, amount int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.balances[account] = amount
}

// move transfers amount; the caller must hold both accounts' locks.
func (b *bank) move(from, to string, amount int) {
	f, t := b.get(from), b.get(to)
	time.Sleep(time.Millisecond) // a round trip to the store
	b.set(from, f-amount)
	b.set(to, t+amount)
}

func (b *bank) total() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	sum := 0
	for _, v := range b.balances {
		sum += v
	}
	return sum
}

func (b *bank) String() string {
	return fmt.Sprintf("alice %d, bob %d", b.get("alice"), b.get("bob"))
}
