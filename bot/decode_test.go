package bot

import (
	"errors"
	"testing"
)

func FuzzDecodeEvent(f *testing.F) {
	for _, seed := range []struct{ event, file string }{
		{"issue_comment", "issue_comment_pr_created.json"},
		{"issue_comment", "issue_comment_issue_created.json"},
		{"issue_comment", "issue_comment_pr_edited.json"},
		{"workflow_run", "workflow_run_failure.json"},
		{"workflow_run", "workflow_run_success.json"},
		{"ping", "ping.json"},
	} {
		f.Add(seed.event, fixture(f, seed.file))
	}
	f.Add("issue_comment", []byte(`{"action":"created","issue":{"pull_request":{}},"comment":{"body":"/culprit"}}`))
	f.Add("workflow_run", []byte(`{"action":"completed","workflow_run":{"conclusion":"failure","pull_requests":[{}]}}`))
	f.Fuzz(func(t *testing.T, event string, payload []byte) {
		task, reason, err := decodeEvent(event, payload, DefaultWorkflow)
		switch {
		case err != nil:
			if !errors.Is(err, errPayload) {
				t.Fatalf("error does not wrap errPayload: %v", err)
			}
			if task != nil {
				t.Fatal("task with an error")
			}
		case task == nil:
			if reason == "" {
				t.Fatal("ignored without a reason")
			}
		default:
			if task.owner == "" || task.repo == "" || task.pr <= 0 {
				t.Fatalf("incomplete task %+v", task)
			}
			switch task.kind {
			case taskCommand:
				if task.commentID == 0 || task.author == "" {
					t.Fatalf("incomplete command task %+v", task)
				}
			case taskFailure:
				if task.headSHA == "" {
					t.Fatalf("failure task without head %+v", task)
				}
			default:
				t.Fatalf("unknown kind %d", task.kind)
			}
		}
	})
}
