package bot

import (
	"context"
	"sync"
)

// pool runs jobs on a fixed number of workers fed by a bounded queue.
// Submission never blocks: a full queue is reported to the caller, who
// answers 503 so the sender retries.
type pool struct {
	jobs chan func(context.Context)
	wg   sync.WaitGroup

	mu     sync.RWMutex // guards closed against a send on a closed channel
	closed bool

	ctx    context.Context // cancelled only when draining takes too long
	cancel context.CancelFunc
}

func newPool(workers, queue int) *pool {
	ctx, cancel := context.WithCancel(context.Background())
	p := &pool{jobs: make(chan func(context.Context), queue), ctx: ctx, cancel: cancel}
	p.wg.Add(workers)
	for range workers {
		go func() {
			defer p.wg.Done()
			for job := range p.jobs {
				job(p.ctx)
			}
		}()
	}
	return p
}

// trySubmit queues job and reports whether there was room for it.
func (p *pool) trySubmit(job func(context.Context)) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return false
	}
	select {
	case p.jobs <- job:
		return true
	default:
		return false
	}
}

// close stops accepting jobs and waits for the queued and running ones to
// finish. If ctx ends first, the jobs' context is cancelled so their API
// calls return promptly, and close still waits for the workers to exit so
// that no goroutine outlives it.
func (p *pool) close(ctx context.Context) error {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.jobs)
	}
	p.mu.Unlock()

	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		p.cancel()
		return nil
	case <-ctx.Done():
		p.cancel()
		<-done
		return ctx.Err()
	}
}
