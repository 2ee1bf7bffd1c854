package experiments

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// DefaultProgressEvery is the interval of a run's progress lines (Config.Progress).
const DefaultProgressEvery = 30 * time.Second

// runProgress prints a line on Config.Progress every interval of wall time while a run loads
// its workload and replays it, so that a long run is never silent: "schedlab: t=1,234 s
// simulated, 56 scheduling calls, solving a 12,000-variable MILP; 1m30s elapsed". It reads
// counters the policy wrapper keeps (simulated time, scheduling calls) and the policy's
// Activity, all atomics written by the replay's goroutine; it lives here because the wall clock
// is not allowed in replay/ and policies/. It writes nothing else and changes no result.
type runProgress struct {
	w     io.Writer
	every time.Duration
	start time.Time
	phase atomic.Pointer[string]
	pol   atomic.Pointer[trackedPolicy]
	stop  chan struct{}
	done  sync.WaitGroup
}

// startProgress starts the progress lines (nil, doing nothing, when w is nil).
func startProgress(w io.Writer, every time.Duration, phase string) *runProgress {
	if w == nil {
		return nil
	}
	if every <= 0 {
		every = DefaultProgressEvery
	}
	r := &runProgress{w: w, every: every, start: time.Now(), stop: make(chan struct{})}
	r.setPhase(phase)
	r.done.Add(1)
	go r.loop()
	return r
}

func (r *runProgress) loop() {
	defer r.done.Done()
	t := time.NewTicker(r.every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			fmt.Fprintln(r.w, r.line(time.Since(r.start)))
		}
	}
}

// line is one progress line after elapsed wall time.
func (r *runProgress) line(elapsed time.Duration) string {
	msg := "schedlab: " + *r.phase.Load()
	if tp := r.pol.Load(); tp != nil {
		msg = fmt.Sprintf("schedlab: t=%s s simulated, %s scheduling calls", grouped(int64(traces.Seconds(tp.now.Load()))), grouped(tp.calls.Load()))
		if a, ok := tp.Policy.(activity); ok {
			if what := a.Activity(); what != "" {
				msg += ", " + what
			}
		}
	}
	round := time.Second
	if elapsed < 10*time.Second {
		round = 100 * time.Millisecond
	}
	return msg + "; " + elapsed.Round(round).String() + " elapsed"
}

// setPhase names what the run is doing before the replay ("loading workload tpch-fb").
func (r *runProgress) setPhase(phase string) {
	if r != nil {
		r.phase.Store(&phase)
	}
}

// track returns p wrapped to count its scheduling calls for the progress lines (p itself when
// there are none).
func (r *runProgress) track(p policies.Policy) policies.Policy {
	if r == nil {
		return p
	}
	tp := &trackedPolicy{Policy: p}
	r.pol.Store(tp)
	return tp
}

// finish stops the lines.
func (r *runProgress) finish() {
	if r != nil {
		close(r.stop)
		r.done.Wait()
	}
}

// activity is implemented by policies that can say what they are doing (jvusched, cora); it
// must be safe to call while they schedule.
type activity interface{ Activity() string }

// trackedPolicy records the simulated time and count of the scheduling calls it forwards. The
// engine asserts no optional interface on its policy but policies.Waker (kept by withWaker); the
// results read the unwrapped one.
type trackedPolicy struct {
	policies.Policy
	now   atomic.Int64
	calls atomic.Int64
}

func (t *trackedPolicy) Schedule(v policies.View, plan *policies.Plan) error {
	t.now.Store(int64(v.Now()))
	t.calls.Add(1)
	return t.Policy.Schedule(v, plan)
}

// grouped writes n with thousands separators: 12,000.
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
