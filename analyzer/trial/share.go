package trial

import "time"

// Sharing a worker: an amplified run can leave its processor mostly idle
// (a perturbed run sleeps at its pauses, a test may wait on timers), and
// then one worker's place runs several of a variant's repeats at once.
// How many follows from the runs made alone under the same amplification:
// their processor time against their wall time, and their peak memory
// against one run's memory bound. Plain runs always run alone, so a
// deterministic failure's runs are as before; so do command-mode runs,
// which record no processor time.
const (
	// minAlone runs alone under an amplification are measured before any
	// share a worker, and at most maxAlone enter the measure: once runs
	// share, the count stays as it was, so every variant's repeats run
	// alike.
	minAlone, maxAlone = 2, 4
	// maxBusy bounds the share of one processor that the runs sharing a
	// worker keep busy, as measured alone.
	maxBusy = 0.5
	// maxPerWorker bounds the runs sharing one worker.
	maxPerWorker = 8
)

// alone sums the runs made alone under one amplification.
type alone struct {
	runs      int
	wall, cpu time.Duration
	peakRSS   int64
}

// PerWorker is how many runs of one variant share a worker's place under
// the current amplification (see above): Repeat runs Config.Workers times
// that many at once.
func (r *Runner) PerWorker() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.perWorker(r.amp)
}

func (r *Runner) perWorker(a Amplification) int {
	s := r.alone[a]
	if a == (Amplification{}) || s == nil || s.runs < minAlone || s.wall <= 0 {
		return 1
	}
	n := maxPerWorker
	if s.cpu > 0 {
		n = min(n, int(maxBusy*float64(s.wall)/float64(s.cpu)))
	}
	if s.peakRSS > 0 {
		n = min(n, int(r.MaxMemory()/s.peakRSS))
	}
	return max(n, 1)
}

// ranAlone adds res, a run made alone under a, to what decides how many
// runs share a worker. Only runs of the test count: a build error or a
// type check says nothing of its cost.
func (r *Runner) ranAlone(a Amplification, res Result) {
	if a == (Amplification{}) || res.Duration <= 0 || res.CPU <= 0 || res.TypeChecked || res.Outcome == BuildError || res.Outcome == Timeout {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.alone == nil {
		r.alone = map[Amplification]*alone{}
	}
	s := r.alone[a]
	if s == nil {
		s = &alone{}
		r.alone[a] = s
	}
	if s.runs >= maxAlone || r.perWorker(a) > 1 {
		return
	}
	s.runs++
	s.wall += res.Duration
	s.cpu += res.CPU
	s.peakRSS = max(s.peakRSS, res.PeakRSS)
}
