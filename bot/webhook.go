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

// handleWebhook verifies, deduplicates and decodes one delivery and queues
// its work. It never waits for the GitHub API, so it answers in well under
// GitHub's 10 s (and our 2 s) budget once the body is in.
func (s *Server) handleWebhook(w http.ResponseWriter, r *http.Request) {
	delivery := github.DeliveryID(r)
	event := github.WebHookType(r)
	rp := &reply{w: w, r: r, start: time.Now(), log: s.log.With("delivery", delivery, "event", event)}
	payload, ok := s.authenticate(rp)
	if !ok {
		return
	}
	switch {
	case delivery == "":
		rp.send(http.StatusBadRequest, "missing X-GitHub-Delivery")
		return
	case event == "ping":
		rp.send(http.StatusOK, "pong")
		return
	}
	t, reason, err := decodeEvent(event, payload, s.cfg.Workflow)
	switch {
	case err != nil:
		rp.send(http.StatusBadRequest, "malformed payload", "err", err)
		return
	case t == nil:
		rp.send(http.StatusNoContent, "ignored", "reason", reason)
		return
	}
	rp.log = rp.log.With("repo", t.fullName(), "pr", t.pr)
	if s.cfg.Repo != "" && !strings.EqualFold(t.fullName(), s.cfg.Repo) {
		rp.send(http.StatusNoContent, "ignored", "reason", "repository not served by this token")
		return
	}
	if t.kind == taskFailure && !s.cfg.optedIn(t.fullName()) {
		rp.send(http.StatusNoContent, "ignored", "reason", "repository not opted in to explanations of failed runs")
		return
	}
	s.enqueue(rp, delivery, t)
}

// reply answers one delivery and logs the answer.
type reply struct {
	w     http.ResponseWriter
	r     *http.Request
	start time.Time
	log   *slog.Logger
	// bodyRead is set once the whole body is in.
	bodyRead bool
}

func (rp *reply) send(code int, msg string, attrs ...any) {
	h := rp.w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	if code == http.StatusServiceUnavailable {
		h.Set("Retry-After", "10")
	}
	if !rp.bodyRead {
		// Otherwise net/http reads the rest of the body (up to 256 KiB)
		// before it sends the answer, at whatever pace the sender likes.
		h.Set("Connection", "close")
	}
	rp.w.WriteHeader(code)
	if code != http.StatusNoContent {
		io.WriteString(rp.w, msg+"\n")
	}
	level := slog.LevelInfo
	if code >= 400 {
		level = slog.LevelWarn
	}
	attrs = append(attrs, "status", code, "took_ms", time.Since(rp.start).Milliseconds())
	if code == http.StatusUnauthorized || code == http.StatusRequestTimeout {
		attrs = append(attrs, "remote", rp.r.RemoteAddr)
	}
	rp.log.Log(rp.r.Context(), level, msg, attrs...)
}

// authenticate reads the body within its limits and checks its signature;
// on failure it has answered and returns false.
func (s *Server) authenticate(rp *reply) ([]byte, bool) {
	r := rp.r
	if r.ContentLength > maxBody {
		rp.send(http.StatusRequestEntityTooLarge, http.StatusText(http.StatusRequestEntityTooLarge))
		return nil, false
	}
	sig := r.Header.Get(github.SHA256SignatureHeader)
	if !strings.HasPrefix(sig, "sha256=") {
		rp.send(http.StatusUnauthorized, http.StatusText(http.StatusUnauthorized), "err", errors.New("missing X-Hub-Signature-256"))
		return nil, false
	}
	body, release, code, err := s.readBody(rp.w, r)
	if err != nil {
		rp.send(code, http.StatusText(code), "err", err)
		return nil, false
	}
	rp.bodyRead = true
	payload, code, err := s.verify(r, sig, body)
	// The body's memory is held until the signature is checked, which
	// waits for no one: a sender cannot stretch it.
	release()
	if err != nil {
		rp.send(code, http.StatusText(code), "err", err)
		return nil, false
	}
	return payload, true
}

// enqueue deduplicates a verified task and queues its job.
func (s *Server) enqueue(rp *reply, delivery string, t *task) {
	if !s.deliveries.add(delivery) {
		rp.send(http.StatusOK, "duplicate delivery")
		return
	}
	// The delivery id is not signed: a signed body seen before, sent
	// again under a new id, is known by the comment it carries. (A failed
	// run's head commit is remembered by its job, runFailure.)
	comment := t.commentKey()
	if comment != "" && !s.comments.add(comment) {
		rp.send(http.StatusOK, "duplicate comment")
		return
	}
	// forget lets GitHub's redelivery of this delivery run it again.
	forget := func() {
		s.deliveries.remove(delivery)
		if comment != "" {
			s.comments.remove(comment)
		}
	}
	jobLog := rp.log
	job := func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.JobTimeout)
		defer cancel()
		began := time.Now()
		if err := s.runTask(ctx, t, jobLog); err != nil {
			forget()
			jobLog.Error("task failed", "err", err, "took_ms", time.Since(began).Milliseconds())
		}
	}
	if !s.pool.trySubmit(job) {
		forget()
		rp.send(http.StatusServiceUnavailable, "busy, retry later")
		return
	}
	rp.send(http.StatusAccepted, "accepted")
}

// verify checks body against sig, the X-Hub-Signature-256 of r, before
// anything else looks at it, and returns the JSON payload. Only SHA-256
// signatures are accepted: the SHA-1 header GitHub also sends is weaker
// and would be a downgrade.
func (s *Server) verify(r *http.Request, sig string, body []byte) (payload []byte, code int, err error) {
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
