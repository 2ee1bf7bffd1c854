// Package tracepolicy is the `trace` policy: it replays the source trace's own scheduling
// decisions — each task starts when and where the trace started it — as a check of the replay
// model against the trace (README, Google section: "Checking the model against the trace").
//
// The workload must carry its trace placements (traces.Workload.Placements; the Google 2011
// import keeps them with --placements), which the policy reads through the View's
// policies.TracePlacements ability. The k-th start of a stage takes the stage's k-th placement
// in time order (the engine starts a stage's lowest-numbered pending task; a stage's tasks have
// one demand). A placement is started at its time on its machine when it fits there; when it
// does not, it starts on the first machine where it fits (moved), or at the first later
// scheduling point where it fits somewhere (late). Tasks without a placement left — a task the
// trace did not place, or one the replay killed and requeued — start on the first machine
// where they fit (unplaced). The policy asks the engine for a scheduling point at each future
// placement time (policies.Waker; with a scheduling cycle, starts wait for the next tick) and
// reports the counts as metrics trace.*. Jobs' placement constraints are not considered: the
// trace's own placements met them, and the Google import has none.
package tracepolicy

import (
	"container/heap"
	"errors"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Name is the policy's registry name.
const Name = "trace"

// ErrNoPlacements is returned by Schedule when the workload has no trace placements.
var ErrNoPlacements = errors.New("the workload has no trace placements (import the Google 2011 trace with --placements)")

// New builds the policy; it takes no options or parameters.
func New(o policies.Options) (policies.Policy, error) {
	if err := policies.CheckParams(o.Params); err != nil {
		return nil, err
	}
	return &Policy{}, nil
}

type stageKey struct {
	job   policies.JobID
	stage int32
}

// track is a stage's placements and how far the replay got through them.
type track struct {
	queue  []traces.TaskPlacement // in start order
	next   int                    // placements before it were used
	active bool                   // listed in Policy.active
	queued bool                   // in Policy.due
}

// Policy is the trace policy. Its zero value is not ready: use New.
type Policy struct {
	byJob   map[int64][]traces.TaskPlacement
	started []bool // per job: its tracks were set up
	tracks  map[stageKey]*track
	due     dueHeap              // stages whose next placement lies in the future, by its time
	active  []stageKey           // stages with a due placement or an unplaced task, in the order they became so
	planned map[int32]traces.Vec // this call's starts, summed per machine
	stats   Stats
}

// Stats counts how the replay followed the trace.
type Stats struct {
	// OnTime tasks started at their trace time, Late ones later (LateTotal sums the delays);
	// Moved tasks (on time or late) started on another machine than the trace's; Unplaced tasks
	// had no placement left and started wherever they first fit.
	OnTime, Late, Moved, Unplaced int64
	LateTotal                     traces.Time
}

// Name implements policies.Policy.
func (p *Policy) Name() string { return Name }

// Stats returns the counts so far.
func (p *Policy) Stats() Stats { return p.stats }

// init indexes the View's placements by job ID on the first call.
func (p *Policy) init(v policies.View) error {
	tp, ok := v.(policies.TracePlacements)
	if !ok {
		return ErrNoPlacements
	}
	ps := tp.TracePlacements()
	if len(ps) == 0 {
		return ErrNoPlacements
	}
	p.byJob = make(map[int64][]traces.TaskPlacement)
	for lo := 0; lo < len(ps); {
		hi := lo + 1
		for hi < len(ps) && ps[hi].Job == ps[lo].Job {
			hi++
		}
		p.byJob[ps[lo].Job] = ps[lo:hi:hi]
		lo = hi
	}
	p.tracks = make(map[stageKey]*track)
	p.planned = make(map[int32]traces.Vec)
	return nil
}

// Schedule implements policies.Policy.
func (p *Policy) Schedule(v policies.View, plan *policies.Plan) error {
	if p.byJob == nil {
		if err := p.init(v); err != nil {
			return err
		}
	}
	now := v.Now()
	for _, j := range v.Changed() {
		if int(j) >= len(p.started) {
			p.started = append(p.started, make([]bool, int(j)+1-len(p.started))...)
		}
		if !v.JobState(j).Arrived {
			continue
		}
		if !p.started[j] {
			p.started[j] = true
			p.setUp(v, j)
		}
		// A change may unlock a stage or requeue a task: look at the job's stages again.
		for s := range v.Job(j).Stages {
			p.activate(stageKey{j, int32(s)})
		}
	}
	for len(p.due) > 0 && p.due[0].t <= now {
		k := heap.Pop(&p.due).(dueItem).key
		p.tracks[k].queued = false
		p.activate(k)
	}
	clear(p.planned)
	keep := p.active[:0]
	for _, k := range p.active {
		tr := p.tracks[k]
		if p.place(v, plan, k, tr, now) {
			keep = append(keep, k)
			continue
		}
		tr.active = false
		if tr.next < len(tr.queue) && !tr.queued {
			tr.queued = true
			heap.Push(&p.due, dueItem{t: tr.queue[tr.next].Start, key: k})
		}
	}
	p.active = keep
	return nil
}

// setUp makes the tracks of a job that just arrived.
func (p *Policy) setUp(v policies.View, j policies.JobID) {
	ps := p.byJob[v.Job(j).ID]
	for s := range v.Job(j).Stages {
		lo := 0
		for lo < len(ps) && ps[lo].Stage < int32(s) {
			lo++
		}
		hi := lo
		for hi < len(ps) && ps[hi].Stage == int32(s) {
			hi++
		}
		p.tracks[stageKey{j, int32(s)}] = &track{queue: ps[lo:hi:hi]}
		ps = ps[hi:]
	}
}

func (p *Policy) activate(k stageKey) {
	if tr := p.tracks[k]; tr != nil && !tr.active {
		tr.active = true
		p.active = append(p.active, k)
	}
}

// place starts what it can of a stage's due placements and unplaced tasks; it reports whether
// some of them wait for capacity.
func (p *Policy) place(v policies.View, plan *policies.Plan, k stageKey, tr *track, now traces.Time) (waiting bool) {
	ss := v.StageState(k.job, k.stage)
	if !ss.Runnable {
		return false
	}
	pending := ss.Pending
	extra := pending - int32(len(tr.queue)-tr.next) // requeued tasks and tasks the trace did not place
	d := v.Job(k.job).Stages[k.stage].Demand
	for pending > 0 && tr.next < len(tr.queue) && tr.queue[tr.next].Start <= now {
		pl := tr.queue[tr.next]
		m, ok := pl.Machine, false
		if v.NumMachines() == 1 {
			m = 0
		}
		if int(m) < v.NumMachines() {
			ok = p.fits(v, m, d)
		}
		if !ok {
			if m, ok = p.firstFit(v, d); !ok {
				return true
			}
		}
		p.start(plan, k, m, d)
		tr.next++
		pending--
		if now > pl.Start {
			p.stats.Late++
			p.stats.LateTotal += now - pl.Start
		} else {
			p.stats.OnTime++
		}
		if m != pl.Machine && v.NumMachines() > 1 {
			p.stats.Moved++
		}
	}
	for ; extra > 0 && pending > 0; extra-- {
		m, ok := p.firstFit(v, d)
		if !ok {
			return true
		}
		p.start(plan, k, m, d)
		pending--
		p.stats.Unplaced++
	}
	return false
}

func (p *Policy) start(plan *policies.Plan, k stageKey, m int32, d traces.Vec) {
	plan.Starts = append(plan.Starts, policies.Start{Job: k.job, Stage: k.stage, Machine: m, Count: 1})
	p.planned[m] = p.planned[m].Add(d)
}

// fits reports whether d fits on machine m after this call's earlier starts.
func (p *Policy) fits(v policies.View, m int32, d traces.Vec) bool {
	return d.Fits(v.Free(int(m)).Sub(p.planned[m]))
}

// firstFit returns the lowest-numbered machine where d fits after this call's earlier starts.
func (p *Policy) firstFit(v policies.View, d traces.Vec) (int32, bool) {
	m, ok := v.FirstFit(d)
	if !ok {
		return 0, false
	}
	for ; m < v.NumMachines(); m++ {
		if p.fits(v, int32(m), d) {
			return int32(m), true
		}
	}
	return 0, false
}

// NextWake implements policies.Waker: the time of the next placement still to come.
func (p *Policy) NextWake() (traces.Time, bool) {
	if len(p.due) == 0 {
		return 0, false
	}
	return p.due[0].t, true
}

// Report implements policies.Reporter: how the replay followed the trace.
func (p *Policy) Report(policies.ReportContext) (*policies.Report, error) {
	s := p.stats
	meanLate := 0.0
	if s.Late > 0 {
		meanLate = traces.Seconds(s.LateTotal) / float64(s.Late)
	}
	return &policies.Report{Metrics: map[string]float64{
		"trace.on_time": float64(s.OnTime), "trace.late": float64(s.Late), "trace.moved": float64(s.Moved),
		"trace.unplaced": float64(s.Unplaced), "trace.mean_late_s": meanLate,
	}}, nil
}

type dueItem struct {
	t   traces.Time
	key stageKey
}

// dueHeap orders stages by their next placement's time, then job and stage (deterministic).
type dueHeap []dueItem

func (h dueHeap) Len() int { return len(h) }
func (h dueHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.key.job != b.key.job {
		return a.key.job < b.key.job
	}
	return a.key.stage < b.key.stage
}
func (h dueHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)   { *h = append(*h, x.(dueItem)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
