package locker

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// item is a timeQueue value for the test.
type item struct {
	at    time.Time
	index int
}

func (it *item) due() time.Time { return it.at }
func (it *item) place() *int    { return &it.index }

// TestTimeQueueKeepsPlaces pushes, moves and removes items at random and
// checks, after every step, that each item knows its place, and at the end
// that the items come out in the order of their times.
func TestTimeQueueKeepsPlaces(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Unix(0, 0)
	var q timeQueue[*item]
	var out []*item // items not in the queue
	for range 50 {
		out = append(out, &item{index: -1})
	}
	check := func(step int) {
		t.Helper()
		for i, it := range q {
			if it.index != i {
				t.Fatalf("step %d: item at %d says it is at %d", step, i, it.index)
			}
		}
		for _, it := range out {
			if it.index != -1 {
				t.Fatalf("step %d: an item out of the queue says it is at %d", step, it.index)
			}
		}
	}
	for step := range 2000 {
		switch op := rng.IntN(3); {
		case op == 0 && len(out) > 0:
			it := out[len(out)-1]
			out = out[:len(out)-1]
			it.at = base.Add(time.Duration(rng.IntN(1000)))
			heap.Push(&q, it)
		case op == 1 && len(q) > 0:
			it := q[rng.IntN(len(q))]
			it.at = base.Add(time.Duration(rng.IntN(1000)))
			heap.Fix(&q, it.index)
		case op == 2 && len(q) > 0:
			it := q[rng.IntN(len(q))]
			heap.Remove(&q, it.index)
			out = append(out, it)
		}
		check(step)
	}
	var times []time.Time
	for q.Len() > 0 {
		it := heap.Pop(&q).(*item)
		out = append(out, it)
		times = append(times, it.at)
	}
	check(-1)
	if !slices.IsSortedFunc(times, time.Time.Compare) {
		t.Fatalf("items came out of time order: %v", times)
	}
}
