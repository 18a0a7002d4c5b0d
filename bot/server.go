package bot

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Server is the webhook server. It holds no state that matters across
// restarts: the dedupe sets only save work, and the work itself runs in the
// repository's own workflow.
type Server struct {
	cfg        Config
	log        *slog.Logger
	clients    clientSource
	transport  *http.Transport
	pool       *pool
	limits     readLimits
	unverified *budget  // bytes of bodies being read, not yet verified
	deliveries *seenSet // X-GitHub-Delivery ids accepted
	comments   *seenSet // "owner/name/comment-id" commands accepted (see task.commentKey)
	shas       *seenSet // "owner/name@sha" heads already explained
	refused    *seenSet // "owner/name#pr" already told who may run /culprit; a cache of the marked replies on GitHub (see refuse)
}

// New validates cfg and starts the worker pool; Close (or Serve's return)
// stops it.
func New(cfg Config, log *slog.Logger) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.Workers
	clients, err := newClientSource(cfg, tr)
	if err != nil {
		return nil, err
	}
	return &Server{
		cfg:        cfg,
		log:        log,
		clients:    clients,
		transport:  tr,
		pool:       newPool(cfg.Workers, cfg.Queue),
		limits:     defaultLimits,
		unverified: newBudget(maxUnverified),
		deliveries: newSeenSet(cfg.DedupeSize),
		comments:   newSeenSet(cfg.DedupeSize),
		shas:       newSeenSet(cfg.DedupeSize),
		refused:    newSeenSet(cfg.DedupeSize),
	}, nil
}

// Handler serves POST /webhook and GET /healthz.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhook", s.handleWebhook)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok\n")
	})
	return mux
}

// Serve answers on ln until ctx ends, then shuts down gracefully: no new
// connections, in-flight requests answered, queued and running work
// finished, all within ShutdownTimeout.
//
// No phase of a request can be stretched by its sender: the headers have
// s.limits.header, a webhook body a deadline that moves with what has
// arrived (readBody), and any other request s.limits.request(). The
// answer is a few bytes written once the body is in.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.limits.header,
		ReadTimeout:       s.limits.request(),
		// Counted from the end of the headers, so it covers the body too.
		WriteTimeout: s.limits.request() + 10*time.Second,
		IdleTimeout:  120 * time.Second,
		ErrorLog:     slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("listening", "addr", ln.Addr().String())

	var serveErr error
	select {
	case serveErr = <-errc:
	case <-ctx.Done():
		s.log.Info("shutting down", "timeout", s.cfg.ShutdownTimeout)
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	var shutErr error
	if serveErr == nil {
		shutErr = srv.Shutdown(sctx)
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			serveErr = err
		}
	}
	closeErr := s.Close(sctx)
	if err := errors.Join(serveErr, shutErr, closeErr); err != nil {
		return fmt.Errorf("serving webhooks: %w", err)
	}
	s.log.Info("stopped")
	return nil
}

// Close stops accepting work and waits, at most until ctx ends, for the
// accepted work to finish.
func (s *Server) Close(ctx context.Context) error {
	err := s.pool.close(ctx)
	s.transport.CloseIdleConnections()
	return err
}

// Run is the culprit-bot command: configuration from args and getenv, JSON
// logs on stderr, serving until ctx ends.
func Run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	s, err := New(cfg, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		s.Close(ctx)
		return err
	}
	return s.Serve(ctx, ln)
}
