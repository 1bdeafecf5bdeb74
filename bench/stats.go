package main

import (
	"runtime"
	"slices"
	"time"
)

// latencies summarises a sample of durations.
type latencies struct {
	n             int
	p50, p99, max time.Duration
	mean          time.Duration
}

// summarize sorts d in place and returns its percentiles (nearest rank).
func summarize(d []time.Duration) latencies {
	if len(d) == 0 {
		return latencies{}
	}
	slices.Sort(d)
	var sum time.Duration
	for _, v := range d {
		sum += v
	}
	return latencies{
		n:    len(d),
		p50:  percentile(d, 0.50),
		p99:  percentile(d, 0.99),
		max:  d[len(d)-1],
		mean: sum / time.Duration(len(d)),
	}
}

// percentile returns the q-quantile of sorted d by nearest rank.
func percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(q*float64(len(d))+0.5) - 1
	return d[min(max(i, 0), len(d)-1)]
}

// fairness returns the smallest count relative to the mean of counts: 1 when
// every goroutine got the same share, 0 when one got none.
func fairness(counts []int) float64 {
	if len(counts) == 0 {
		return 0
	}
	total, least := 0, counts[0]
	for _, c := range counts {
		total += c
		least = min(least, c)
	}
	if total == 0 {
		return 0
	}
	return float64(least) / (float64(total) / float64(len(counts)))
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
