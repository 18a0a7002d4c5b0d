package bot

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

// A full queue answers 503 and forgets the delivery id, so that GitHub's
// redelivery of it is processed rather than taken for a duplicate.
func TestFullQueueIsRetried(t *testing.T) {
	api := newAPI(t)
	release := make(chan struct{})
	api.OnRequest = func(key string) {
		if key == dispatchPath {
			<-release
		}
	}
	cfg := testConfig(api.APIURL())
	cfg.Workers, cfg.Queue = 1, 1
	_, url, drain := startBot(t, cfg)
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before drain, which waits for the blocked job
	first := commandComment(t, api, 42, 7001, "alice")
	second := commandComment(t, api, 42, 7002, "alice")
	third := commandComment(t, api, 42, 7003, "alice")

	// The first job occupies the worker (its dispatch blocks); wait until
	// it has been taken off the queue, then fill the queue.
	if got := send(t, http.DefaultClient, url, signed("issue_comment", "first", first)); got != http.StatusAccepted {
		t.Fatalf("first: status = %d", got)
	}
	waitFor(t, func() bool { return api.Calls()[dispatchPath] == 1 })
	if got := send(t, http.DefaultClient, url, signed("issue_comment", "second", second)); got != http.StatusAccepted {
		t.Fatalf("second: status = %d", got)
	}
	if got := send(t, http.DefaultClient, url, signed("issue_comment", "third", third)); got != http.StatusServiceUnavailable {
		t.Fatalf("third with a full queue: status = %d, want 503", got)
	}
	free()
	waitFor(t, func() bool { return api.Calls()[dispatchPath] == 2 })
	// Neither the delivery id nor the comment was kept.
	if got := send(t, http.DefaultClient, url, signed("issue_comment", "third", third)); got != http.StatusAccepted {
		t.Errorf("redelivery of third: status = %d, want 202", got)
	}
	drain()
	if n := len(api.Dispatches()); n != 3 {
		t.Errorf("dispatches = %d, want 3", n)
	}
}

func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
