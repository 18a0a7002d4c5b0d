package bot

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// maxBody bounds a delivery's body, read before its signature is checked.
// GitHub sends up to 25 MB, but the events handled here (issue_comment,
// workflow_run, ping) are a few kilobytes; a larger body is refused unread.
const maxBody = 1 << 20

// maxReads bounds the bodies read at once, so that unsigned posts cannot
// hold more than maxReads*maxBody of memory; more are answered 503.
const maxReads = 16

// handleWebhook verifies, deduplicates and decodes one delivery and queues
// its work. It never waits for the GitHub API, so it answers in well under
// GitHub's 10 s (and our 2 s) budget.
func (s *Server) handleWebhook(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	delivery := github.DeliveryID(r)
	event := github.WebHookType(r)
	log := s.log.With("delivery", delivery, "event", event)
	answer := func(code int, msg string, attrs ...any) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "10")
		}
		w.WriteHeader(code)
		if code != http.StatusNoContent {
			io.WriteString(w, msg+"\n")
		}
		level := slog.LevelInfo
		if code >= 400 {
			level = slog.LevelWarn
		}
		attrs = append(attrs, "status", code, "took_ms", time.Since(start).Milliseconds())
		if code == http.StatusUnauthorized {
			attrs = append(attrs, "remote", r.RemoteAddr)
		}
		log.Log(r.Context(), level, msg, attrs...)
	}

	if r.ContentLength > maxBody {
		answer(http.StatusRequestEntityTooLarge, http.StatusText(http.StatusRequestEntityTooLarge))
		return
	}
	select {
	case s.reads <- struct{}{}:
	default:
		answer(http.StatusServiceUnavailable, "busy, retry later")
		return
	}
	payload, code, err := s.verify(w, r)
	<-s.reads
	if err != nil {
		answer(code, http.StatusText(code), "err", err)
		return
	}
	if delivery == "" {
		answer(http.StatusBadRequest, "missing X-GitHub-Delivery")
		return
	}
	if event == "ping" {
		answer(http.StatusOK, "pong")
		return
	}
	t, reason, err := decodeEvent(event, payload, s.cfg.Workflow)
	if err != nil {
		answer(http.StatusBadRequest, "malformed payload", "err", err)
		return
	}
	if t == nil {
		answer(http.StatusNoContent, "ignored", "reason", reason)
		return
	}
	log = log.With("repo", t.fullName(), "pr", t.pr)
	if s.cfg.Repo != "" && !strings.EqualFold(t.fullName(), s.cfg.Repo) {
		answer(http.StatusNoContent, "ignored", "reason", "repository not served by this token")
		return
	}
	if t.kind == taskFailure && !s.cfg.optedIn(t.fullName()) {
		answer(http.StatusNoContent, "ignored", "reason", "repository not opted in to explanations of failed runs")
		return
	}
	if !s.deliveries.add(delivery) {
		answer(http.StatusOK, "duplicate delivery")
		return
	}
	jobLog := log
	job := func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.JobTimeout)
		defer cancel()
		began := time.Now()
		if err := s.runTask(ctx, t, jobLog); err != nil {
			// GitHub's redelivery of this delivery must run it again.
			s.deliveries.remove(delivery)
			jobLog.Error("task failed", "err", err, "took_ms", time.Since(began).Milliseconds())
		}
	}
	if !s.pool.trySubmit(job) {
		// Forget the id: GitHub's redelivery of it must be processed.
		s.deliveries.remove(delivery)
		answer(http.StatusServiceUnavailable, "busy, retry later")
		return
	}
	answer(http.StatusAccepted, "accepted")
}

// verify reads the body and checks its X-Hub-Signature-256 before anything
// else looks at it. Only SHA-256 signatures are accepted: the SHA-1 header
// GitHub also sends is weaker and would be a downgrade.
func (s *Server) verify(w http.ResponseWriter, r *http.Request) (payload []byte, code int, err error) {
	sig := r.Header.Get(github.SHA256SignatureHeader)
	if !strings.HasPrefix(sig, "sha256=") {
		return nil, http.StatusUnauthorized, errors.New("missing X-Hub-Signature-256")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, http.StatusRequestEntityTooLarge, err
		}
		return nil, http.StatusBadRequest, err
	}
	if err := github.ValidateSignature(sig, body, s.cfg.WebhookSecret); err != nil {
		return nil, http.StatusUnauthorized, err
	}
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, http.StatusUnsupportedMediaType, err
	}
	// Extracts the JSON from a form-encoded body; checks the signature again,
	// which costs one HMAC.
	payload, err = github.ValidatePayloadFromBody(mediaType, bytes.NewReader(body), sig, s.cfg.WebhookSecret)
	if err != nil {
		return nil, http.StatusUnsupportedMediaType, err
	}
	return payload, 0, nil
}
