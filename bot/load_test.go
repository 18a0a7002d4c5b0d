package bot

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/culprit-dev/culprit/internal/fakegh"
)

// TestLoad sends 1,000 signed deliveries from 50 concurrent senders over
// loopback: 800 distinct /culprit commands, 50 edited comments (ignored),
// 100 replays of commands and 50 bad signatures. Senders retry on 503 as
// GitHub's redelivery would.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const (
		commands       = 800
		edits          = 50
		replays        = 100
		badSigs        = 50
		senders        = 50
		total          = commands + edits + replays + badSigs
		sanityP99      = 2 * time.Second
		goroutineSlack = 5
	)
	before := runtime.NumGoroutine()

	api := newAPI(t)
	cfg := testConfig(api.APIURL())
	cfg.Workers, cfg.Queue = 8, 128
	s, err := New(cfg, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()

	prComment := fixture(t, "issue_comment_pr_created.json")
	edited := fixture(t, "issue_comment_pr_edited.json")
	var all []delivery
	for i := range commands {
		api.PRs[i+1] = fakegh.PR{Number: i + 1, HeadSHA: prHead}
		all = append(all, signed("issue_comment", fmt.Sprintf("cmd-%d", i), commandComment(t, api, i+1, int64(5000+i), "alice")))
	}
	for i := range edits {
		all = append(all, signed("issue_comment", fmt.Sprintf("edit-%d", i), edited))
	}
	for i := range replays {
		all = append(all, all[i*commands/replays])
	}
	for i := range badSigs {
		all = append(all, delivery{event: "issue_comment", id: fmt.Sprintf("bad-%d", i), body: prComment, signature: sign("wrong", prComment)})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: senders}, Timeout: 10 * time.Second}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		statuses  = map[int]int{}
		busy      int
	)
	work := make(chan delivery)
	var wg sync.WaitGroup
	start := time.Now()
	for range senders {
		wg.Go(func() {
			for d := range work {
				for attempt := 0; ; attempt++ {
					t0 := time.Now()
					code := send(t, client, url, d)
					took := time.Since(t0)
					mu.Lock()
					latencies = append(latencies, took)
					if code == http.StatusServiceUnavailable {
						busy++
					}
					mu.Unlock()
					if code != http.StatusServiceUnavailable || attempt == 200 {
						mu.Lock()
						statuses[code]++
						mu.Unlock()
						break
					}
					// Back off as a redelivery would, with jitter.
					time.Sleep(time.Duration(min(attempt+1, 10)*(5+rand.IntN(5))) * time.Millisecond)
				}
			}
		})
	}
	// Meanwhile, posts of GitHub's largest size with a forged signature:
	// half announce their length (refused unread), half are chunked (read
	// up to maxBody, then refused). Their bodies are generated, not held.
	var bigWG sync.WaitGroup
	bigCodes := make([]int, bigPosts)
	for i := range bigPosts {
		bigWG.Go(func() {
			body := io.LimitReader(zeros{}, bigSize)
			req, err := http.NewRequest(http.MethodPost, url+"/webhook", body)
			if err != nil {
				t.Error(err)
				return
			}
			if i%2 == 0 {
				req.ContentLength = bigSize
			} else {
				req.ContentLength = -1
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-GitHub-Event", "issue_comment")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("big-%d", i))
			req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
			resp, err := client.Do(req)
			if err != nil {
				bigCodes[i] = -1 // the server closed the connection mid-body
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			bigCodes[i] = resp.StatusCode
		})
	}
	for _, d := range all {
		work <- d
	}
	close(work)
	wg.Wait()
	bigWG.Wait()
	for i, code := range bigCodes {
		if code != -1 && code != http.StatusRequestEntityTooLarge && code != http.StatusServiceUnavailable {
			t.Errorf("unsigned 25 MiB post %d: status %d, want 413 or 503 (or the connection closed)", i, code)
		}
	}
	sendTime := time.Since(start)

	stop()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	client.CloseIdleConnections()
	api.Close()

	wantStatuses := map[int]int{
		http.StatusAccepted:     commands,
		http.StatusOK:           replays,
		http.StatusNoContent:    edits,
		http.StatusUnauthorized: badSigs,
	}
	if fmt.Sprint(statuses) != fmt.Sprint(wantStatuses) {
		t.Errorf("final statuses = %v, want %v", statuses, wantStatuses)
	}
	perPR := map[string]int{}
	for _, d := range api.Dispatches() {
		perPR[d.Inputs["pr-number"]]++
	}
	for i := range commands {
		if n := perPR[strconv.Itoa(i+1)]; n != 1 {
			t.Errorf("PR %d: %d dispatches, want exactly 1", i+1, n)
		}
	}
	if len(perPR) != commands {
		t.Errorf("dispatched for %d PRs, want %d", len(perPR), commands)
	}

	slices.Sort(latencies)
	p50 := latencies[len(latencies)/2]
	p99 := latencies[len(latencies)*99/100]
	t.Logf("%d deliveries (%d requests, %d answered 503 and retried) in %v: p50 %v, p99 %v, max %v",
		total, len(latencies), busy, sendTime.Round(time.Millisecond), p50, p99, latencies[len(latencies)-1])
	if p99 > sanityP99 {
		t.Errorf("p99 reply time %v exceeds the %v budget", p99, sanityP99)
	}

	deadline := time.Now().Add(5 * time.Second)
	after := runtime.NumGoroutine()
	for after > before+goroutineSlack && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		after = runtime.NumGoroutine()
	}
	t.Logf("goroutines: %d before, %d after shutdown", before, after)
	if hwm := peakRSS(t); hwm > 0 {
		// The test process holds the bot, the senders and the fake API.
		t.Logf("peak resident memory of the test process: %.1f MB; unsigned big posts: %v", float64(hwm)/1e6, bigCodes)
		if hwm > 100e6 {
			t.Errorf("peak resident memory %.1f MB, want under 100 MB", float64(hwm)/1e6)
		}
	}
	if after > before+goroutineSlack {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutine leak: %d before, %d after shutdown\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// BenchmarkWebhook measures a /culprit delivery end to end in process:
// signature check, decoding, dedupe, queueing, and the worker's three API
// calls against the fake API.
func BenchmarkWebhook(b *testing.B) {
	api := newAPI(b)
	cfg := testConfig(api.APIURL())
	cfg.Workers, cfg.Queue, cfg.DedupeSize = 8, 1024, 1<<16
	s, err := New(cfg, discardLogger())
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	// Each delivery is of a comment of its own, or it would be a
	// duplicate: the fixture's comment id replaced, and signed again.
	body := fixture(b, "issue_comment_pr_created.json")
	commentID := []byte(strconv.Itoa(commandCommentID))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		id := commandCommentID + int64(i)
		api.PutIssueComment(42, id, "alice", "/culprit")
		own := bytes.Replace(body, commentID, strconv.AppendInt(nil, id, 10), 1)
		d := signed("issue_comment", "bench-"+strconv.Itoa(i), own)
		for {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, d.request(b, ""))
			if rec.Code == http.StatusAccepted {
				break
			}
			if rec.Code != http.StatusServiceUnavailable {
				b.Fatalf("status %d", rec.Code)
			}
			runtime.Gosched()
		}
	}
	b.StopTimer()
	if err := s.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
}

const (
	bigPosts = 8
	bigSize  = 25 << 20
)

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// peakRSS is the process's peak resident set size in bytes (VmHWM), 0
// where /proc does not say.
func peakRSS(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM: %v", err)
			}
			return kb * 1024
		}
	}
	return 0
}
