package bot

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	env := map[string]string{
		"CULPRIT_WEBHOOK_SECRET": "s", "CULPRIT_TOKEN": "t", "CULPRIT_REPO": "o/r",
		"CULPRIT_ADDR": "127.0.0.1:0", "CULPRIT_SHUTDOWN_TIMEOUT": "5s",
	}
	getenv := func(k string) string { return env[k] }

	t.Run("serves until cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- Run(ctx, nil, getenv, io.Discard) }()
		time.Sleep(100 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after cancellation")
		}
	})
	t.Run("help", func(t *testing.T) {
		if err := Run(context.Background(), []string{"-h"}, getenv, io.Discard); err != nil {
			t.Errorf("Run -h: %v", err)
		}
	})
	t.Run("bad config", func(t *testing.T) {
		err := Run(context.Background(), nil, func(string) string { return "" }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "CULPRIT_WEBHOOK_SECRET") {
			t.Errorf("Run without configuration: %v", err)
		}
	})
}
