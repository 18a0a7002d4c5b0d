package bot

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/internal/fakegh"
)

// TestTricklesDoNotStarveSignedDeliveries: 64 connections post forged
// deliveries (a well-formed signature of nothing) announcing a 1000-byte
// body that they send a byte every 20 ms, and 16 more send their headers
// that slowly; each reconnects as soon as the server lets go. Meanwhile
// 100 signed deliveries arrive over two seconds. Every signed delivery
// must be accepted within 5 s, every trickle dropped within about its
// deadline.
func TestTricklesDoNotStarveSignedDeliveries(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const (
		bodyTrickles   = 64
		headerTrickles = 16
		trickleLen     = 1000
		deliveries     = 100
		pace           = 20 * time.Millisecond // between signed deliveries
		acceptWithin   = 5 * time.Second
	)
	api := newAPI(t)
	// The fake's pull requests are set before any request.
	var reqs []*http.Request
	for i := range deliveries {
		api.PRs[i+1] = fakegh.PR{Number: i + 1, HeadSHA: prHead}
		body := commandComment(t, api, i+1, int64(5000+i), "alice")
		reqs = append(reqs, signed("issue_comment", fmt.Sprint("signed-", i), body).request(t, "http://bot"))
	}
	cfg := testConfig(api.APIURL())
	cfg.Queue = deliveries
	s, addr, stop := serveBot(t, cfg, readLimits{header: time.Second, grace: 500 * time.Millisecond, rate: defaultLimits.rate})
	for _, req := range reqs {
		req.URL.Host = addr
	}

	stopTrickles := make(chan struct{})
	var (
		mu        sync.Mutex
		results   = map[bool][]postResult{} // by "the headers trickle"
		tricklers sync.WaitGroup
	)
	for i := range bodyTrickles + headerTrickles {
		headers := i >= bodyTrickles
		tricklers.Go(func() {
			for j := 0; ; j++ {
				select {
				case <-stopTrickles:
					return
				default:
				}
				head := requestHead(fmt.Sprintf("trickle-%d-%d", i, j), "issue_comment", "sha256="+strings.Repeat("0", 64), trickleLen)
				p := slowPost{upfront: head, rest: []byte(strings.Repeat(" ", trickleLen)), chunk: 1, every: pace}
				if headers {
					p.upfront, p.rest = nil, append(head, p.rest...)
				}
				r := p.send(addr, stopTrickles)
				mu.Lock()
				results[headers] = append(results[headers], r)
				mu.Unlock()
			}
		})
	}
	time.Sleep(200 * time.Millisecond) // every trickle is under way

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}, Timeout: 30 * time.Second}
	took := make([]time.Duration, deliveries)
	codes := make([]int, deliveries)
	var senders sync.WaitGroup
	for i, req := range reqs {
		time.Sleep(pace)
		senders.Go(func() {
			start := time.Now()
			resp, err := client.Do(req)
			took[i] = time.Since(start)
			if err != nil {
				t.Errorf("signed delivery %d: %v", i, err)
				return
			}
			resp.Body.Close()
			codes[i] = resp.StatusCode
		})
	}
	senders.Wait()
	close(stopTrickles)
	tricklers.Wait()
	stop()
	client.CloseIdleConnections()

	for i, code := range codes {
		if code != http.StatusAccepted || took[i] > acceptWithin {
			t.Errorf("signed delivery %d: status %d after %v, want 202 within %v", i, code, took[i].Round(time.Millisecond), acceptWithin)
		}
	}
	slices.Sort(took)
	t.Logf("signed deliveries: median %v, slowest %v", took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
	if n := len(api.Dispatches()); n != deliveries {
		t.Errorf("dispatches = %d, want %d", n, deliveries)
	}
	checkDropped(t, "body trickle", results[false], s.limits.bodyTime(0))
	checkDropped(t, "header trickle", results[true], s.limits.header)
	if left := s.unverified.left.Load(); left != maxUnverified {
		t.Errorf("budget left = %d, want all of it, %d", left, maxUnverified)
	}
}

// TestBodyDeadlineFollowsItsRate: a 1 MiB body that arrives faster than
// the minimum rate is read, one slower is cut, and so is one that starts
// fast and stops: what it sent early buys it only the time that took at
// the minimum rate.
func TestBodyDeadlineFollowsItsRate(t *testing.T) {
	if testing.Short() {
		t.Skip("takes seconds")
	}
	// The defaults scaled by 16: a 1 MiB body may take 1.3 s.
	lim := readLimits{header: time.Second, grace: 300 * time.Millisecond, rate: 1 << 20}
	body := []byte(`{"zen":"` + strings.Repeat("z", maxBody-11) + `"}`)
	tests := []struct {
		name       string
		upfront    int // body bytes sent with the headers
		chunk      int // then so many bytes
		every      time.Duration
		wantStatus int
		within     time.Duration // the deadline it is cut at
	}{
		{name: "four times the rate", chunk: 64 << 10, every: 16 * time.Millisecond, wantStatus: http.StatusOK},
		// Cut when grace + n/rate = t for n = t × 256 KiB/s: at 0.4 s.
		{name: "a quarter of the rate", chunk: 16 << 10, every: 64 * time.Millisecond, wantStatus: http.StatusRequestTimeout,
			within: 400 * time.Millisecond},
		{name: "a fast start, then nothing", upfront: 256 << 10, wantStatus: http.StatusRequestTimeout,
			within: lim.bodyTime(256 << 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newAPI(t)
			s, addr, stop := serveBot(t, testConfig(api.APIURL()), lim)
			head := requestHead("d-1", "ping", sign(testSecret, body), len(body))
			p := slowPost{upfront: append(head, body[:tt.upfront]...), rest: body[tt.upfront:], chunk: tt.chunk, every: tt.every}
			r := p.send(addr, nil)
			stop()
			if r.status != tt.wantStatus {
				t.Errorf("status %d after %v (%d bytes sent), want %d", r.status, r.held.Round(time.Millisecond), tt.upfront+r.sent, tt.wantStatus)
			}
			// Cut at the deadline: not before grace, nor long after.
			if tt.within > 0 && (r.held < lim.grace/2 || r.held > tt.within+slack) {
				t.Errorf("cut after %v, want at %v", r.held.Round(time.Millisecond), tt.within)
			}
			if left := s.unverified.left.Load(); left != maxUnverified {
				t.Errorf("budget left = %d, want all of it, %d", left, maxUnverified)
			}
		})
	}
}

// slack is the time beyond a deadline that a busy machine may take to
// notice it.
const slack = 1500 * time.Millisecond

// serveBot serves cfg with the deadlines lim on a loopback address, with
// the production http.Server of Serve. stop shuts it down.
func serveBot(t *testing.T, cfg Config, lim readLimits) (s *Server, addr string, stop func()) {
	t.Helper()
	s, err := New(cfg, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	s.limits = lim
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	stopped := false
	stop = func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
	t.Cleanup(stop)
	return s, ln.Addr().String(), stop
}

// checkDropped checks that the server ended every connection of rs that
// the test did not, within deadline, and logs how.
func checkDropped(t *testing.T, kind string, rs []postResult, deadline time.Duration) {
	t.Helper()
	var held []time.Duration
	statuses := map[int]int{}
	sent := 0
	for _, r := range rs {
		if r.stopped {
			continue
		}
		held = append(held, r.held)
		statuses[r.status]++
		sent = max(sent, r.sent)
		if r.held > deadline+slack {
			t.Errorf("a %s held its connection for %v, want it dropped at %v", kind, r.held.Round(time.Millisecond), deadline)
		}
	}
	if len(held) == 0 {
		t.Errorf("no %s was dropped", kind)
		return
	}
	slices.Sort(held)
	t.Logf("%ss: %d connections dropped by the server (answers %v; 0 = closed without one), held %v to %v (median %v), at most %d bytes sent; %d ended by the test",
		kind, len(held), statuses, held[0].Round(time.Millisecond), held[len(held)-1].Round(time.Millisecond),
		held[len(held)/2].Round(time.Millisecond), sent, len(rs)-len(held))
}

// requestHead is the request line and headers of a delivery.
func requestHead(id, event, signature string, length int) []byte {
	return fmt.Appendf(nil, "POST /webhook HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"+
		"X-GitHub-Event: %s\r\nX-GitHub-Delivery: %s\r\nX-Hub-Signature-256: %s\r\n\r\n", length, event, id, signature)
}

// slowPost is a request sent over its own connection at a chosen pace:
// upfront at once, then rest chunk bytes at a time, every so often (chunk
// 0: never).
type slowPost struct {
	upfront, rest []byte
	chunk         int
	every         time.Duration
}

// postResult is what became of a slowPost.
type postResult struct {
	held    time.Duration // from the upfront bytes until the server answered or closed the connection
	status  int           // its answer; 0 if it closed without one, -1 if it could not be reached
	sent    int           // bytes of rest sent
	stopped bool          // stop was closed first
}

// send posts p to addr and waits for the server's answer, or its closing
// the connection, or stop.
func (p slowPost) send(addr string, stop <-chan struct{}) postResult {
	var r postResult
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		r.status = -1
		return r
	}
	defer conn.Close()
	if _, err := conn.Write(p.upfront); err != nil {
		r.status = -1
		return r
	}
	start := time.Now()
	answered := make(chan int, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	var tick <-chan time.Time
	if p.chunk > 0 {
		ticker := time.NewTicker(p.every)
		defer ticker.Stop()
		tick = ticker.C
	}
	for {
		select {
		case code := <-answered:
			r.held, r.status = time.Since(start), code
			return r
		case <-stop:
			r.held, r.stopped = time.Since(start), true
			conn.Close()
			<-answered
			return r
		case <-tick:
			n := min(p.chunk, len(p.rest)-r.sent)
			// A failed write means the server closed the connection; the
			// reader reports it.
			if _, err := conn.Write(p.rest[r.sent : r.sent+n]); err == nil {
				r.sent += n
			}
		}
	}
}
