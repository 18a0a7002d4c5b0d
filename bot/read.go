package bot

import (
	"errors"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

// maxBody bounds a delivery's body, read before its signature is checked.
// GitHub sends up to 25 MB, but the events handled here (issue_comment,
// workflow_run, ping) are a few kilobytes; a larger body is refused unread.
const maxBody = 1 << 20

// maxUnverified bounds the memory of bodies being read, whose signature
// is not checked yet: what anyone who can reach the server can make it
// hold.
const maxUnverified = 16 << 20

// readLimits bound how long a delivery may take to arrive. Anyone can open
// a connection, so every phase that waits for the sender has a deadline.
type readLimits struct {
	// header bounds the request line and headers, a few hundred bytes.
	header time.Duration
	// grace is how long a body may take to start: a round trip or two.
	grace time.Duration
	// rate is the bytes per second a body must average after grace.
	rate int64
}

// defaultLimits fit GitHub, which sends a few kilobytes from a data
// centre, with room for a 1 MiB body at 64 KiB/s (half a megabit, a slow
// but real link): 19 s. A trickle is dropped after about 3 s.
var defaultLimits = readLimits{header: 5 * time.Second, grace: 3 * time.Second, rate: 64 << 10}

// bodyTime is how long a body may have taken once n bytes have arrived.
func (l readLimits) bodyTime(n int64) time.Duration {
	return l.grace + time.Duration(n)*time.Second/time.Duration(l.rate)
}

// request bounds a whole request, as http.Server.ReadTimeout: headers and
// the largest body. The handler's own deadlines are tighter; this one
// covers requests that never reach it, such as a post to another path,
// whose body the server reads (up to 256 KiB) before answering 404.
func (l readLimits) request() time.Duration {
	return l.header + l.bodyTime(maxBody)
}

// budget is a count of bytes that can be taken and given back without
// waiting: taking more than is left fails.
type budget struct{ left atomic.Int64 }

func newBudget(n int64) *budget {
	b := new(budget)
	b.left.Store(n)
	return b
}

func (b *budget) take(n int64) bool {
	if b.left.Add(-n) < 0 {
		b.left.Add(n)
		return false
	}
	return true
}

func (b *budget) give(n int64) { b.left.Add(n) }

// Errors of readBody, for the log.
var (
	errSlowBody   = errors.New("body arrived too slowly")
	errBodyMemory = errors.New("too many bodies being read")
)

// firstChunk is the buffer a body is first read into. It is taken from
// the budget before any byte arrives, so it is kept near what net/http
// already spends on every connection (a 4 KiB read buffer), well below
// what would let idle connections use the budget up.
const firstChunk = 512

// readBody reads r's body before anything vouches for its sender, under
// two rules that keep a sender from holding what others need:
//
//   - Time: the body must average s.limits.rate bytes a second after
//     s.limits.grace, checked by a read deadline moved on before every
//     read. A trickle is dropped after about grace, whatever length it
//     announced; a 1 MiB body on a slow link still arrives.
//   - Memory: the buffer grows as bytes arrive, each growth taken from
//     s.unverified, which all bodies being read share. A trickle holds
//     the few bytes it sent, not one of a few slots, so it cannot make a
//     delivery that arrives at once wait or be refused; only senders
//     that send megabytes can use the budget up, and for at most the
//     time those take to arrive.
//
// It returns the body and a func that gives its memory back, or the
// status to answer and why.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, release func(), code int, err error) {
	rc := http.NewResponseController(w)
	// A ResponseRecorder has no connection and nothing to bound.
	bounded := true
	setDeadline := func(t time.Time) error {
		if !bounded {
			return nil
		}
		err := rc.SetReadDeadline(t)
		if errors.Is(err, http.ErrNotSupported) {
			bounded = false
			return nil
		}
		return err
	}
	// One byte more than the body can have, so that a read reaches EOF or
	// MaxBytesReader's error.
	limit := int64(maxBody) + 1
	if r.ContentLength >= 0 {
		limit = min(limit, r.ContentLength+1)
	}
	var held int64
	release = func() { s.unverified.give(held) }
	src := http.MaxBytesReader(w, r.Body, maxBody)
	start := time.Now()
	for {
		if len(body) == cap(body) {
			size := min(max(2*int64(cap(body)), firstChunk), limit)
			if !s.unverified.take(size - int64(cap(body))) {
				release()
				return nil, nil, http.StatusServiceUnavailable, errBodyMemory
			}
			held = size
			body = append(make([]byte, 0, size), body...)
		}
		if err := setDeadline(start.Add(s.limits.bodyTime(int64(len(body))))); err != nil {
			release()
			return nil, nil, http.StatusInternalServerError, err
		}
		n, err := src.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			release()
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				return nil, nil, http.StatusRequestEntityTooLarge, err
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return nil, nil, http.StatusRequestTimeout, errSlowBody
			}
			return nil, nil, http.StatusBadRequest, err
		}
	}
	// Nothing more is read in this request; the server sets the next
	// request's deadline itself.
	if err := setDeadline(time.Time{}); err != nil {
		release()
		return nil, nil, http.StatusInternalServerError, err
	}
	return body, release, 0, nil
}
