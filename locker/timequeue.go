package locker

import "time"

// queued is what a timeQueue holds: a pointer to a value that is due at
// a time and keeps its own place in the queue, so that it leaves or moves
// in O(log n) without a search.
type queued interface {
	// due is when the value is due.
	due() time.Time
	// place is the value's index in the queue, -1 when it is in none.
	place() *int
}

// timeQueue is a min-heap by due time, for container/heap: the Store's
// leases by deadline (expiry.go) and the watchdog's renewals by next
// renewal (watchdog.go).
type timeQueue[T queued] []T

func (q timeQueue[T]) Len() int           { return len(q) }
func (q timeQueue[T]) Less(i, j int) bool { return q[i].due().Before(q[j].due()) }
func (q timeQueue[T]) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	*q[i].place() = i
	*q[j].place() = j
}

func (q *timeQueue[T]) Push(x any) {
	v := x.(T)
	*v.place() = len(*q)
	*q = append(*q, v)
}

func (q *timeQueue[T]) Pop() any {
	old := *q
	last := len(old) - 1
	v := old[last]
	var none T
	old[last] = none
	*v.place() = -1
	*q = old[:last]
	return v
}
