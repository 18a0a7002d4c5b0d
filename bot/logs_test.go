package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every log line of a delivery carries its id; once decoded, also the
// repository and pull request, including the lines the worker writes.
func TestLogsIdentifyTheDelivery(t *testing.T) {
	api := newAPI(t)
	var buf bytes.Buffer
	s, err := New(testConfig(api.APIURL()), slog.New(slog.NewJSONHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	send(t, http.DefaultClient, hs.URL, signed("issue_comment", "delivery-77", fixture(t, "issue_comment_pr_created.json")))
	hs.Close()
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	var msgs []string
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var line map[string]any
		if err := dec.Decode(&line); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, line["msg"].(string))
		if line["delivery"] != "delivery-77" || line["repo"] != "octo-org/calc" || line["pr"] != float64(42) {
			t.Errorf("log line lacks delivery, repo or pr: %v", line)
		}
	}
	// The worker may log before the handler's own line: the job is queued
	// before the answer is written.
	slices.Sort(msgs)
	if len(msgs) != 2 || msgs[0] != "accepted" || msgs[1] != "explanation dispatched" {
		t.Errorf("log messages = %q, want accepted and explanation dispatched", msgs)
	}
}

// A delivery refused for its signature is logged with the address it came
// from, so that forged posts can be traced; other lines carry no address.
func TestUnauthorizedLogsTheRemoteAddress(t *testing.T) {
	body := fixture(t, "issue_comment_pr_created.json")
	tests := []struct {
		name     string
		delivery delivery
		want     map[string]any // the fields of the one log line checked
	}{
		{"wrong signature", delivery{event: "issue_comment", id: "d-1", body: body, signature: sign("guess", body)},
			map[string]any{"level": "WARN", "msg": "Unauthorized", "status": float64(401), "remote": "203.0.113.7:4242"}},
		{"missing signature", delivery{event: "issue_comment", id: "d-1", body: body},
			map[string]any{"level": "WARN", "msg": "Unauthorized", "status": float64(401), "remote": "203.0.113.7:4242"}},
		{"missing delivery id", signed("issue_comment", "", body),
			map[string]any{"level": "WARN", "msg": "missing X-GitHub-Delivery", "status": float64(400), "remote": nil}},
		{"accepted", signed("issue_comment", "d-1", body),
			map[string]any{"level": "INFO", "msg": "accepted", "status": float64(202), "remote": nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := newAPI(t)
			var buf bytes.Buffer
			s, err := New(testConfig(api.APIURL()), slog.New(slog.NewJSONHandler(&buf, nil)))
			if err != nil {
				t.Fatal(err)
			}
			req := tc.delivery.request(t, "http://bot.example")
			req.RemoteAddr = "203.0.113.7:4242"
			s.Handler().ServeHTTP(httptest.NewRecorder(), req)
			if err := s.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			// The handler's line, the one with a status: the worker's may
			// come first (the job is queued before the answer is logged).
			var line map[string]any
			for dec := json.NewDecoder(&buf); line["status"] == nil; {
				line = nil
				if err := dec.Decode(&line); err != nil {
					t.Fatalf("no log line with a status: %v", err)
				}
			}
			got := map[string]any{}
			for k := range tc.want {
				got[k] = line[k]
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("log line (-want +got):\n%s\nfull line: %v", d, line)
			}
		})
	}
}
