package bot

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseConfig(t *testing.T) {
	keyPath := filepath.Join(t.TempDir(), "app.pem")
	if err := os.WriteFile(keyPath, []byte("PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    Config
		wantErr string
	}{{
		name: "token from the environment, defaults",
		env:  map[string]string{"CULPRIT_WEBHOOK_SECRET": "s", "CULPRIT_TOKEN": "t", "CULPRIT_REPO": "o/r"},
		want: Config{Addr: ":8080", WebhookSecret: []byte("s"), Token: "t", Repo: "o/r", Workflow: "culprit.yml",
			Workers: 4, Queue: 100, DedupeSize: 10000, JobTimeout: time.Minute, ShutdownTimeout: 25 * time.Second},
	}, {
		name: "app, flags win over the environment",
		args: []string{"-workers", "2", "-workflow", "explain.yml", "-on-failure", "o/r, acme/*"},
		env: map[string]string{"CULPRIT_WEBHOOK_SECRET": "s", "CULPRIT_APP_ID": "12", "CULPRIT_PRIVATE_KEY_PATH": keyPath,
			"CULPRIT_WORKERS": "9", "CULPRIT_QUEUE": "5", "CULPRIT_GITHUB_API_URL": "https://ghe.example.com/api/v3/", "CULPRIT_ADDR": ":9000"},
		want: Config{Addr: ":9000", WebhookSecret: []byte("s"), AppID: 12, PrivateKey: []byte("PEM"), Workflow: "explain.yml",
			APIURL: "https://ghe.example.com/api/v3/", Workers: 2, Queue: 5, OnFailure: []string{"o/r", "acme/*"},
			DedupeSize: 10000, JobTimeout: time.Minute, ShutdownTimeout: 25 * time.Second},
	}, {
		name:    "no secret",
		env:     map[string]string{"CULPRIT_TOKEN": "t", "CULPRIT_REPO": "o/r"},
		wantErr: "CULPRIT_WEBHOOK_SECRET is required",
	}, {
		name:    "no credentials",
		env:     map[string]string{"CULPRIT_WEBHOOK_SECRET": "s"},
		wantErr: "no credentials",
	}, {
		name:    "token without repo",
		env:     map[string]string{"CULPRIT_WEBHOOK_SECRET": "s", "CULPRIT_TOKEN": "t"},
		wantErr: "needs CULPRIT_REPO",
	}, {
		name:    "both app and token",
		env:     map[string]string{"CULPRIT_WEBHOOK_SECRET": "s", "CULPRIT_TOKEN": "t", "CULPRIT_REPO": "o/r", "CULPRIT_APP_ID": "1", "CULPRIT_PRIVATE_KEY_PATH": keyPath},
		wantErr: "not both",
	}, {
		name:    "bad number",
		env:     map[string]string{"CULPRIT_WEBHOOK_SECRET": "s", "CULPRIT_TOKEN": "t", "CULPRIT_REPO": "o/r", "CULPRIT_WORKERS": "many"},
		wantErr: "CULPRIT_WORKERS",
	}, {
		name:    "workflow path",
		args:    []string{"-workflow", ".github/workflows/x.yml"},
		env:     map[string]string{"CULPRIT_WEBHOOK_SECRET": "s", "CULPRIT_TOKEN": "t", "CULPRIT_REPO": "o/r"},
		wantErr: "file name",
	}, {
		name:    "missing key file",
		env:     map[string]string{"CULPRIT_WEBHOOK_SECRET": "s", "CULPRIT_APP_ID": "1", "CULPRIT_PRIVATE_KEY_PATH": keyPath + ".missing"},
		wantErr: "reading the App private key",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOptedIn(t *testing.T) {
	c := Config{OnFailure: []string{"octo-org/calc", "acme/*"}}
	for repo, want := range map[string]bool{
		"octo-org/calc": true, "Octo-Org/Calc": true, "octo-org/other": false, "acme/anything": true, "acmeco/x": false,
	} {
		if got := c.optedIn(repo); got != want {
			t.Errorf("optedIn(%q) = %v, want %v", repo, got, want)
		}
	}
}
