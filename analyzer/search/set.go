package search

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/culprit-dev/culprit/diffhunks"
)

// A set of hunks is a sorted slice without duplicates, so that equal sets
// have equal keys and trial.Result.Reverted can be compared directly.

// norm returns ids sorted, without duplicates, in a fresh slice.
func norm(ids []diffhunks.ID) []diffhunks.ID {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// union returns the sorted union of two sets.
func union(a, b []diffhunks.ID) []diffhunks.ID {
	return norm(append(slices.Clone(a), b...))
}

// minus returns the elements of a that are not in b.
func minus(a, b []diffhunks.ID) []diffhunks.ID {
	out := make([]diffhunks.ID, 0, len(a))
	for _, id := range a {
		if !slices.Contains(b, id) {
			out = append(out, id)
		}
	}
	return out
}

// key names a sorted set for the memo tables.
func key(ids []diffhunks.ID) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(id)))
	}
	return b.String()
}

// split cuts units into n contiguous chunks whose lengths differ by at most
// one, the first chunks taking the extra elements, as ddmin does. n must be
// between 1 and len(units).
func split[T any](units []T, n int) [][]T {
	out := make([][]T, 0, n)
	start := 0
	for i := range n {
		size := len(units) / n
		if i < len(units)%n {
			size++
		}
		out = append(out, units[start:start+size])
		start += size
	}
	return out
}

// partition cuts the sorted set ids into n subsets of consecutive ids.
func partition(ids []diffhunks.ID, n int) [][]diffhunks.ID {
	return split(ids, n)
}

// memo computes each key's value at most once, even when several goroutines
// ask for the same key at the same time: the later callers wait for the
// first one's answer.
type memo[T any] struct {
	mu sync.Mutex
	m  map[string]*cell[T]
}

type cell[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// get returns the value for k, calling f to compute it if no caller has yet.
// hit reports whether the value was already known or being computed.
func (m *memo[T]) get(k string, f func() (T, error)) (v T, hit bool, err error) {
	m.mu.Lock()
	if m.m == nil {
		m.m = make(map[string]*cell[T])
	}
	if c, ok := m.m[k]; ok {
		m.mu.Unlock()
		<-c.done
		return c.v, true, c.err
	}
	c := &cell[T]{done: make(chan struct{})}
	m.m[k] = c
	m.mu.Unlock()
	c.v, c.err = f()
	close(c.done)
	return c.v, false, c.err
}

// known returns the value for k if it was computed already, without
// computing it or waiting for a computation under way.
func (m *memo[T]) known(k string) (v T, ok bool) {
	m.mu.Lock()
	c, found := m.m[k]
	m.mu.Unlock()
	if !found {
		return v, false
	}
	select {
	case <-c.done:
		return c.v, c.err == nil
	default:
		return v, false
	}
}

// put records a value computed elsewhere, unless k already has one.
func (m *memo[T]) put(k string, v T) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = make(map[string]*cell[T])
	}
	if _, ok := m.m[k]; ok {
		return
	}
	c := &cell[T]{done: make(chan struct{}), v: v}
	close(c.done)
	m.m[k] = c
}
