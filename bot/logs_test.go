package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Every log line of a delivery carries its id; once decoded, also the
// repository and pull request, including the lines the worker writes.
func TestLogsIdentifyTheDelivery(t *testing.T) {
	api := newFakeGitHub(t)
	var buf bytes.Buffer
	s, err := New(testConfig(api.url()), slog.New(slog.NewJSONHandler(&buf, nil)))
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
	if len(msgs) != 2 || msgs[0] != "accepted" || msgs[1] != "explanation dispatched" {
		t.Errorf("log messages = %q, want accepted then explanation dispatched", msgs)
	}
}
