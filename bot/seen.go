package bot

import (
	"container/list"
	"sync"
)

// seenSet is a bounded set of recently added keys. When full, the oldest key
// is forgotten, so memory stays constant however long the server runs; a
// key evicted that way can be accepted again, which only matters for
// redeliveries older than the last max keys.
type seenSet struct {
	mu    sync.Mutex
	max   int
	order *list.List // of string, oldest first
	items map[string]*list.Element
}

func newSeenSet(max int) *seenSet {
	if max < 1 {
		max = 1
	}
	return &seenSet{max: max, order: list.New(), items: make(map[string]*list.Element)}
}

// add records key and reports whether it was absent. Checking and recording
// happen under one lock so that two concurrent deliveries of one id cannot
// both be accepted.
func (s *seenSet) add(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[key]; ok {
		return false
	}
	if s.order.Len() >= s.max {
		oldest := s.order.Front()
		s.order.Remove(oldest)
		delete(s.items, oldest.Value.(string))
	}
	s.items[key] = s.order.PushBack(key)
	return true
}

// remove forgets key, so that a later delivery of it is processed: used when
// the work it stood for was refused or failed.
func (s *seenSet) remove(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.items[key]; ok {
		s.order.Remove(e)
		delete(s.items, key)
	}
}

func (s *seenSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order.Len()
}
