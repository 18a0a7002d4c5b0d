package bot

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is everything the server needs. Secrets (webhook secret, token,
// private key) come from the environment or a file only, never from flags,
// so that they do not show in process listings.
type Config struct {
	Addr string // listen address, e.g. ":8080"

	WebhookSecret []byte // shared secret of the webhook; required

	// GitHub App authentication: an installation token per event.
	AppID      int64
	PrivateKey []byte // PEM

	// Or a plain token for the single repository Repo ("owner/name").
	Token string
	Repo  string

	Workflow string // workflow file name in .github/workflows to dispatch
	APIURL   string // REST API base URL; empty means https://api.github.com/

	Workers int // concurrent jobs
	Queue   int // jobs waiting beyond Workers before deliveries get 503

	// OnFailure lists the repositories ("owner/name", or "owner/*" for all
	// of an owner's) that get an explanation whenever a workflow run for one
	// of their pull requests fails.
	OnFailure []string

	DedupeSize      int           // delivery ids, comments, head SHAs and refused PRs remembered, each
	JobTimeout      time.Duration // bound on the API calls of one delivery
	ShutdownTimeout time.Duration // bound on draining work after SIGTERM
}

// Defaults for the knobs that have one.
const (
	DefaultAddr     = ":8080"
	DefaultWorkflow = "culprit.yml"
)

// parseConfig reads flags from args over environment variables read through
// getenv; flags win. The private key is read from the file the flag or
// CULPRIT_PRIVATE_KEY_PATH names.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	var (
		cfg     Config
		keyPath string
		onFail  string
		errs    []error
	)
	envInt := func(name string, def int) int {
		v := getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		return n
	}
	envDur := func(name string, def time.Duration) time.Duration {
		v := getenv(name)
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
		return d
	}
	envStr := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	var appID int64
	if v := getenv("CULPRIT_APP_ID"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("CULPRIT_APP_ID: %w", err))
		}
		appID = n
	}

	fs := flag.NewFlagSet("culprit-bot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Addr, "addr", envStr("CULPRIT_ADDR", DefaultAddr), "listen address (CULPRIT_ADDR)")
	fs.Int64Var(&cfg.AppID, "app-id", appID, "GitHub App id (CULPRIT_APP_ID)")
	fs.StringVar(&keyPath, "private-key-path", getenv("CULPRIT_PRIVATE_KEY_PATH"), "GitHub App private key, PEM file (CULPRIT_PRIVATE_KEY_PATH)")
	fs.StringVar(&cfg.Repo, "repo", getenv("CULPRIT_REPO"), "owner/name the token is for, in token mode (CULPRIT_REPO)")
	fs.StringVar(&cfg.Workflow, "workflow", envStr("CULPRIT_WORKFLOW", DefaultWorkflow), "workflow file to dispatch (CULPRIT_WORKFLOW)")
	fs.StringVar(&cfg.APIURL, "github-api-url", getenv("CULPRIT_GITHUB_API_URL"), "GitHub REST API URL, for GHES (CULPRIT_GITHUB_API_URL)")
	fs.IntVar(&cfg.Workers, "workers", envInt("CULPRIT_WORKERS", 4), "concurrent jobs (CULPRIT_WORKERS)")
	fs.IntVar(&cfg.Queue, "queue", envInt("CULPRIT_QUEUE", 100), "queued jobs before answering 503 (CULPRIT_QUEUE)")
	fs.StringVar(&onFail, "on-failure", getenv("CULPRIT_ON_FAILURE"), "comma-separated owner/name or owner/* explained on failed runs (CULPRIT_ON_FAILURE)")
	fs.IntVar(&cfg.DedupeSize, "dedupe-size", envInt("CULPRIT_DEDUPE_SIZE", 10000), "delivery ids, comments and head commits remembered, each (CULPRIT_DEDUPE_SIZE)")
	fs.DurationVar(&cfg.JobTimeout, "job-timeout", envDur("CULPRIT_JOB_TIMEOUT", 60*time.Second), "bound on one delivery's API calls (CULPRIT_JOB_TIMEOUT)")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", envDur("CULPRIT_SHUTDOWN_TIMEOUT", 25*time.Second), "bound on draining work at shutdown (CULPRIT_SHUTDOWN_TIMEOUT)")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}

	cfg.WebhookSecret = []byte(getenv("CULPRIT_WEBHOOK_SECRET"))
	cfg.Token = getenv("CULPRIT_TOKEN")
	cfg.OnFailure = splitList(onFail)
	if keyPath != "" {
		key, err := os.ReadFile(keyPath)
		if err != nil {
			return Config{}, fmt.Errorf("reading the App private key: %w", err)
		}
		cfg.PrivateKey = key
	}
	return cfg, cfg.validate()
}

// validate reports every problem at once, so a misconfigured deployment is
// fixed in one round.
func (c Config) validate() error {
	var errs []error
	if len(c.WebhookSecret) == 0 {
		errs = append(errs, errors.New("CULPRIT_WEBHOOK_SECRET is required: unsigned deliveries are never accepted"))
	}
	app := c.AppID != 0 || len(c.PrivateKey) > 0
	switch {
	case app && c.Token != "":
		errs = append(errs, errors.New("set either a GitHub App (app id and private key) or CULPRIT_TOKEN, not both"))
	case app && (c.AppID == 0 || len(c.PrivateKey) == 0):
		errs = append(errs, errors.New("a GitHub App needs both an app id and a private key"))
	case c.Token != "" && !validRepo(c.Repo):
		errs = append(errs, fmt.Errorf("CULPRIT_TOKEN needs CULPRIT_REPO as owner/name, got %q", c.Repo))
	case !app && c.Token == "":
		errs = append(errs, errors.New("no credentials: set CULPRIT_APP_ID and CULPRIT_PRIVATE_KEY_PATH, or CULPRIT_TOKEN and CULPRIT_REPO"))
	}
	if c.Workflow == "" || strings.ContainsAny(c.Workflow, "/\\") {
		errs = append(errs, fmt.Errorf("workflow must be a file name in .github/workflows, got %q", c.Workflow))
	}
	if c.Workers < 1 || c.Queue < 1 || c.DedupeSize < 1 {
		errs = append(errs, fmt.Errorf("workers, queue and dedupe size must be positive (got %d, %d, %d)", c.Workers, c.Queue, c.DedupeSize))
	}
	if c.JobTimeout <= 0 || c.ShutdownTimeout <= 0 {
		errs = append(errs, errors.New("job and shutdown timeouts must be positive"))
	}
	for _, r := range c.OnFailure {
		if !validRepo(r) {
			errs = append(errs, fmt.Errorf("on-failure entry %q is not owner/name or owner/*", r))
		}
	}
	return errors.Join(errs...)
}

func validRepo(s string) bool {
	owner, name, ok := strings.Cut(s, "/")
	return ok && owner != "" && name != "" && !strings.Contains(name, "/")
}

func splitList(s string) []string {
	var out []string
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		out = append(out, f)
	}
	return out
}

// optedIn reports whether failed runs of repo ("owner/name") are explained.
func (c Config) optedIn(repo string) bool {
	owner, _, _ := strings.Cut(repo, "/")
	for _, r := range c.OnFailure {
		if strings.EqualFold(r, repo) || strings.EqualFold(r, owner+"/*") {
			return true
		}
	}
	return false
}
