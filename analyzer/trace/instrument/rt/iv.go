package rt

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Interventions: a run may be told, through CULPRIT_INTERVENE, to change
// its own schedule or branches at given sites, so that a predicate seen in
// failing runs becomes false and one can see whether the failure stops.
// The spec is a list of items separated by ';', keyed by the build's site
// ids:
//
//	serial:F       activations of function F never overlap: each holds a
//	               lock of this item from Enter to Exit (serial:F,G,... is
//	               one lock shared by several functions)
//	force:S=0|1    the branch at S takes the given outcome
//	delay:F=d      sleep d at F's Enter
//	yield:F        runtime.Gosched() at F's Enter
//	expire=d       how long a serial wait lasts at most (default 50ms)
//	perturb:SEED/N about one in N function entries and recorded events
//	               yields or pauses (perturb.go)
//
// Unknown or malformed items are ignored. The hooks count what they did in
// two header words of the event file: applied (a lock taken, a branch
// forced, a delay slept, a yield made) and expired (a serial wait given up).

// Header words of the event file that hold the intervention counters.
const (
	hApplied   = 4
	hExpired   = 5
	hWaited    = 6 // nanoseconds spent waiting for serial locks
	hPerturbed = 7 // pauses made by a perturbation (perturb.go)
)

// EnvIntervene names the intervention spec.
const EnvIntervene = "CULPRIT_INTERVENE"

// defaultExpire bounds a serial wait unless the spec says otherwise.
const defaultExpire = 50 * time.Millisecond

// maxSite bounds the site ids a spec may name, so that a bad spec cannot
// make the per-site tables huge.
const maxSite = 1 << 22

// iv is the intervention table, nil when the spec is unset or names no
// hook: every hook is behind one test of it.
var iv *interventions

// interventions holds the parsed spec, indexed by site id.
type interventions struct {
	enter  []*enterHook // function sites
	force  []uint8      // branch sites: 0 none, 1 forced false, 2 forced true
	expire time.Duration
	// perturb, when set, acts at every function entry and event.
	perturb *perturbation
}

// enterHook is what happens at the Enter of one function.
type enterHook struct {
	delay time.Duration
	yield bool
	lock  *serialLock
}

// serialLock is the lock of one serial item. A token in tok means held;
// owner is the holder's goroutine id (0 none), so that a recursive
// activation on the holding goroutine does not wait for itself.
type serialLock struct {
	tok   chan struct{}
	owner atomic.Uint64
}

func init() {
	if spec := os.Getenv(EnvIntervene); spec != "" {
		iv = parseSpec(spec)
	}
}

// parseSpec parses an intervention spec. It returns nil when the spec
// names no hook.
func parseSpec(spec string) *interventions {
	t := &interventions{expire: defaultExpire}
	hooks := false
	for _, item := range strings.Split(spec, ";") {
		item = strings.TrimSpace(item)
		if v, ok := strings.CutPrefix(item, "expire="); ok {
			if d, err := time.ParseDuration(v); err == nil && d > 0 {
				t.expire = d
			}
			continue
		}
		kind, arg, ok := strings.Cut(item, ":")
		if !ok {
			continue
		}
		switch kind {
		case "serial":
			hooks = t.serial(arg) || hooks
		case "force":
			s, v, ok := strings.Cut(arg, "=")
			site, sok := siteID(s)
			b, err := strconv.ParseBool(v)
			if !ok || !sok || err != nil {
				continue
			}
			t.force = grow(t.force, site)
			t.force[site] = 1 + uint8(b2u(b))
			hooks = true
		case "delay":
			s, v, ok := strings.Cut(arg, "=")
			site, sok := siteID(s)
			d, err := time.ParseDuration(v)
			if !ok || !sok || err != nil || d < 0 {
				continue
			}
			t.hook(site).delay = d
			hooks = true
		case "perturb":
			if p := parsePerturb(arg); p != nil {
				t.perturb = p
				hooks = true
			}
		case "yield":
			site, ok := siteID(arg)
			if !ok {
				continue
			}
			t.hook(site).yield = true
			hooks = true
		}
	}
	if !hooks {
		return nil
	}
	return t
}

// serial adds a serial item over the comma-separated function sites in
// arg. A function already under a lock keeps its first one. It reports
// whether the item was well formed.
func (t *interventions) serial(arg string) bool {
	var sites []uint32
	for _, s := range strings.Split(arg, ",") {
		site, ok := siteID(s)
		if !ok {
			return false
		}
		sites = append(sites, site)
	}
	l := &serialLock{tok: make(chan struct{}, 1)}
	for _, site := range sites {
		if h := t.hook(site); h.lock == nil {
			h.lock = l
		}
	}
	return true
}

// hook returns the Enter hook of a function site, creating it.
func (t *interventions) hook(site uint32) *enterHook {
	t.enter = grow(t.enter, site)
	if t.enter[site] == nil {
		t.enter[site] = &enterHook{}
	}
	return t.enter[site]
}

// grow extends s so that it has an element at index i.
func grow[T any](s []T, i uint32) []T {
	for uint32(len(s)) <= i {
		var zero T
		s = append(s, zero)
	}
	return s
}

// siteID parses a site id of a spec item.
func siteID(s string) (uint32, bool) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
	if err != nil || n == 0 || n > maxSite {
		return 0, false
	}
	return uint32(n), true
}

// enterHooks runs the hooks of the function at site for its frame f.
//
//go:noinline
func (t *interventions) enterHooks(f *F, site uint32) {
	if t.perturb != nil {
		t.perturb.point()
	}
	if int(site) >= len(t.enter) || t.enter[site] == nil {
		return
	}
	h := t.enter[site]
	if h.delay > 0 {
		time.Sleep(h.delay)
		count(hApplied)
	}
	if h.yield {
		runtime.Gosched()
		count(hApplied)
	}
	if h.lock != nil && h.lock.acquire(goid(), t.expire) {
		f.hold = h.lock
	}
}

// acquire takes the lock for goroutine g unless g holds it already. After
// waiting expire it gives up and proceeds without it. It reports whether
// it took the lock.
func (l *serialLock) acquire(g uint64, expire time.Duration) bool {
	if l.owner.Load() == g {
		return false // only g itself can have stored g
	}
	select {
	case l.tok <- struct{}{}:
	default:
		began := time.Now()
		timer := time.NewTimer(expire)
		select {
		case l.tok <- struct{}{}:
			timer.Stop()
			add(hWaited, uint64(time.Since(began)))
		case <-timer.C:
			add(hWaited, uint64(time.Since(began)))
			count(hExpired)
			return false
		}
	}
	l.owner.Store(g)
	count(hApplied)
	return true
}

// release gives the lock up; its holder calls it from Exit.
func (l *serialLock) release() {
	l.owner.Store(0)
	<-l.tok
}

// atEvent runs the hooks of an event about to be recorded at site: the
// perturbation, and the forcing of a branch. It returns the event's kind
// byte, with the forced outcome if the spec forces one.
//
//go:noinline
func (t *interventions) atEvent(site uint32, kind uint64) uint64 {
	if t.perturb != nil {
		t.perturb.point()
	}
	if kind&hasOutcome != 0 && int(site) < len(t.force) {
		if v := t.force[site]; v != 0 {
			count(hApplied)
			return kind&^outcome | b2u(v == 2)*outcome
		}
	}
	return kind
}

// count adds one to a counter word of the event file.
func count(h int) { add(h, 1) }

// add adds n to a counter word of the event file.
func add(h int, n uint64) {
	if words != nil {
		atomic.AddUint64(&words[h], n)
	}
}
