package baseline

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// kind selects a baseline's order; the greedy machinery is shared.
type kind uint8

const (
	kindFIFO kind = iota
	kindEDF
	kindSRPT
	kindFair
	kindDRF
	kindSP
)

// shares reports whether the kind's keys change with every start (progressive filling, one
// task at a time), as opposed to a static order where the best job takes all that fits.
func (k kind) shares() bool { return k >= kindFair }

// dominant reports whether the kind measures shares by dominant resource share.
func (k kind) dominant() bool { return k == kindDRF || k == kindSP }

type stageTake struct{ stage, n int32 }

// jobRec is a policy's record of one job: static attributes read once, and dynamic state
// refreshed from the View whenever the job changes and advanced by the policy's own starts.
type jobRec struct {
	seen      bool
	submit    int64
	deadline  int64 // math.MaxInt64 when the job has none
	rank      int64 // class rank (sp), 0 otherwise
	weight    float64
	group     int32 // queue-level entity, -1 at job level
	running   int32
	pending   int32
	remain    int64
	alloc     traces.Vec
	refreshed uint64 // epoch of the last refresh
	touched   uint64 // epoch of the last start planned for it
	takenAt   uint64 // epoch the taken list belongs to
	taken     []stageTake
	machines  []int32 // several machines: where tasks were started since Running was last 0
	distinct  int     // len(machines) after the last compaction
	runIdx    int32   // position+1 in its rank's running set (sp with preemption)
	// need is a lower bound on the demand of any pending runnable task (the per-dimension
	// minimum over its runnable stages), valid while needOK: from the last time serve looked
	// at every stage until the job changes. A job whose need fits no machine is blocked.
	need   traces.Vec
	needOK bool
	// rackAt is 1 + a machine on the rack a rack-constrained job's running tasks are on; 0 when
	// unknown or none runs (constraint.go).
	rackAt int32
}

func (r *jobRec) takenOf(s int32, epoch uint64) int32 {
	if r.takenAt != epoch {
		return 0
	}
	for _, t := range r.taken {
		if t.stage == s {
			return t.n
		}
	}
	return 0
}

func (r *jobRec) addTaken(s, k int32, epoch uint64) {
	if r.takenAt != epoch {
		r.taken = r.taken[:0]
		r.takenAt = epoch
	}
	for i := range r.taken {
		if r.taken[i].stage == s {
			r.taken[i].n += k
			return
		}
	}
	r.taken = append(r.taken, stageTake{s, k})
}

// group is a queue-level entity: the jobs of one queue (and, for sp, one class) in FIFO order,
// with their summed running tasks and allocation.
type group struct {
	queue   int32
	rank    int64
	weight  float64
	running int64
	alloc   traces.Vec
	jobs    indexHeap // eligible jobs by (submit, JobID); positions in core.innerPos
}

// rankSet lists the jobs of one class rank that have running tasks (sp with preemption).
type rankSet struct {
	rank int64
	jobs []policies.JobID
}

// victim is a running task considered for preemption.
type victim struct {
	policies.RunningTask
	demand traces.Vec
}

// core is the ordered greedy scheduler behind every baseline.
type core struct {
	name string
	kind kind
	cfg  config

	ready    bool
	multi    bool
	track    bool // several machines and no MachineChanges: track where each job ran
	capacity traces.Vec
	capDims  []int                   // dimensions with positive capacity
	capFloat [traces.MaxDims]float64 // capacity as floats, for dominant shares
	queues   []string
	qweights []float64
	epoch    uint64
	base     int  // len(p.Starts) when Schedule was called
	explain  bool // the run records reasons (policies.Explains)

	jobs     []jobRec
	groups   []group
	groupIdx map[[2]int64]int32 // (rank, queue) → group; looked up, never iterated
	top      indexHeap
	topPos   []int32 // by entity: JobID at job level, group index at queue level
	innerPos []int32 // by JobID, shared by every group's heap
	aside    []int32
	touched  []policies.JobID
	pl       placer

	ranks      []rankSet // ascending rank
	victims    []victim
	tally      []traces.Vec
	tallyStamp []uint64
	tallyN     uint64
	compact    []uint64 // per machine: stamp for deduplicating jobRec.machines
	compactN   uint64
}

func newCore(k kind, name string, o policies.Options) (*core, error) {
	cfg, err := parse(k, o)
	if err != nil {
		return nil, err
	}
	c := &core{name: name, kind: k, cfg: cfg, groupIdx: make(map[[2]int64]int32)}
	c.top.pos = &c.topPos
	return c, nil
}

func (c *core) errorf(format string, a ...any) error {
	return fmt.Errorf("%s: %s", c.name, fmt.Sprintf(format, a...))
}

// schedule is Policy.Schedule for every baseline.
func (c *core) schedule(v policies.View, p *policies.Plan) error {
	if v == nil || p == nil {
		return c.errorf("schedule needs a view and a plan")
	}
	c.epoch++
	c.base = len(p.Starts)
	c.explain = policies.Explains(v)
	if !c.ready {
		if err := c.setup(v); err != nil {
			return err
		}
	} else if c.kind.dominant() {
		if cp := v.Capacity(); cp != c.capacity {
			c.setCapacity(cp)
			c.rekeyAll()
		}
	}
	// Jobs the previous plan started tasks for are refreshed even if the View does not list
	// them (it will, once the plan was applied; this keeps the records right if it was not).
	for _, j := range c.touched {
		if err := c.refresh(v, j); err != nil {
			return err
		}
	}
	c.touched = c.touched[:0]
	for _, j := range v.Changed() {
		if err := c.refresh(v, j); err != nil {
			return err
		}
	}
	if err := c.pl.sync(v); err != nil {
		return c.errorf("%v", err)
	}
	if c.multi != c.pl.multi() {
		return c.errorf("the number of machines changed during the run")
	}
	if len(c.pl.holds) > 0 {
		c.expireHolds()
	}
	return c.fill(v, p)
}

func (c *core) setup(v policies.View) error {
	c.setCapacity(v.Capacity())
	c.multi = v.NumMachines() > 1
	_, reports := v.(MachineChanges)
	c.track = c.multi && !reports
	c.loadQueues(v)
	c.ready = true
	return nil
}

func (c *core) setCapacity(cp traces.Vec) {
	c.capacity = cp
	c.capDims = c.capDims[:0]
	for d, x := range cp {
		if x > 0 {
			c.capDims = append(c.capDims, d)
			c.capFloat[d] = float64(x)
		}
	}
}

// dominantShare is alloc.DominantShare(capacity), computed over the dimensions with capacity
// only (the same operations, so the same result).
func (c *core) dominantShare(alloc *traces.Vec) float64 {
	s := 0.0
	for _, d := range c.capDims {
		if f := float64(alloc[d]) / c.capFloat[d]; f > s {
			s = f
		}
	}
	return s
}

// loadQueues reads the queue names and resolves their weights (unknown names in the weights
// parameter are ignored: one configuration may serve workloads with different queues).
func (c *core) loadQueues(v policies.View) {
	c.queues = append(c.queues[:0], v.Queues()...)
	c.qweights = c.qweights[:0]
	for _, q := range c.queues {
		w, ok := c.cfg.weights[q]
		if !ok {
			w = 1
		}
		c.qweights = append(c.qweights, w)
	}
}

// growJobs makes room for records up to job j.
func (c *core) growJobs(j policies.JobID) {
	n := max(int(j)+1, 2*len(c.jobs), 64)
	c.jobs = append(c.jobs, make([]jobRec, n-len(c.jobs))...)
	c.innerPos = append(c.innerPos, make([]int32, n-len(c.innerPos))...)
	if !c.cfg.queueLevel {
		c.topPos = append(c.topPos, make([]int32, n-len(c.topPos))...)
	}
}

// weightOf reads a job weight: 0, negative, NaN or infinite weights count as 1.
func weightOf(w float64) float64 {
	if !(w > 0) || math.IsInf(w, 0) {
		return 1
	}
	return w
}

// refresh re-reads job j's state from the View and updates the indexes.
func (c *core) refresh(v policies.View, j policies.JobID) error {
	if j < 0 {
		return c.errorf("the view reported job %d", j)
	}
	if int(j) >= len(c.jobs) {
		if v.Job(j) == nil { // check before making room for an absurd index
			return c.errorf("the view has no job %d", j)
		}
		c.growJobs(j)
	}
	r := &c.jobs[j]
	if r.refreshed == c.epoch {
		return nil
	}
	r.refreshed = c.epoch
	js := v.JobState(j)
	if !r.seen {
		if err := c.firstSight(v, j, r, js); err != nil {
			return err
		}
	}
	if c.track {
		if js.Running < r.running {
			// Tasks finished or were preempted on some of these machines.
			for _, m := range r.machines {
				c.pl.markDirty(m)
			}
			c.compactMachines(r)
		}
		if js.Running == 0 {
			r.machines = r.machines[:0]
			r.distinct = 0
		}
	}
	c.setRunning(j, r, js.Running, js.Alloc)
	r.pending = js.Pending
	r.remain = js.RemainingEstimate
	r.takenAt = 0
	r.needOK = false
	c.place(j, r, js.Arrived && !js.Done && js.Pending > 0)
	if js.Done {
		r.machines, r.taken = nil, nil
	}
	return nil
}

func (c *core) firstSight(v policies.View, j policies.JobID, r *jobRec, js policies.JobState) error {
	info := v.Job(j)
	if info == nil {
		return c.errorf("the view has no job %d", j)
	}
	r.seen = true
	r.submit = info.Submit
	r.deadline = info.Deadline
	if r.deadline <= 0 {
		r.deadline = math.MaxInt64
	}
	r.weight = weightOf(info.Weight)
	r.group = -1
	if c.kind == kindSP {
		if c.cfg.classRank != nil {
			rank, ok := c.cfg.classRank[info.Class]
			if !ok {
				rank = c.cfg.unlisted
			}
			r.rank = rank
		} else {
			r.rank = -int64(info.Priority)
		}
	}
	if c.cfg.queueLevel {
		g, err := c.groupFor(v, j, info.Queue, r.rank)
		if err != nil {
			return err
		}
		r.group = g
	}
	if c.track && js.Running > 0 {
		n := int32(v.NumMachines())
		for _, t := range v.RunningTasks(j) {
			if t.Machine >= 0 && t.Machine < n {
				c.addMachine(r, t.Machine)
			}
		}
	}
	return nil
}

// groupFor returns the queue-level entity of a job in queue q with class rank rank.
func (c *core) groupFor(v policies.View, j policies.JobID, q int, rank int64) (int32, error) {
	if q < 0 || q >= len(c.qweights) {
		c.loadQueues(v) // the View may have learnt a queue since the first call
		if q < 0 || q >= len(c.qweights) {
			return 0, c.errorf("job %d is in queue %d; the view has %d queues", j, q, len(c.qweights))
		}
	}
	k := [2]int64{rank, int64(q)}
	if g, ok := c.groupIdx[k]; ok {
		return g, nil
	}
	g := int32(len(c.groups))
	c.groups = append(c.groups, group{queue: int32(q), rank: rank, weight: c.qweights[q], jobs: indexHeap{pos: &c.innerPos}})
	c.groupIdx[k] = g
	c.topPos = append(c.topPos, 0)
	return g, nil
}

// setRunning records a job's running tasks and allocation, keeping group sums and the
// preemption index in step.
func (c *core) setRunning(j policies.JobID, r *jobRec, running int32, alloc traces.Vec) {
	if r.group >= 0 {
		g := &c.groups[r.group]
		g.running += int64(running) - int64(r.running)
		g.alloc = g.alloc.Add(alloc).Sub(r.alloc)
	}
	if c.cfg.preempt {
		switch {
		case r.running <= 0 && running > 0:
			c.addRanked(j, r)
		case r.running > 0 && running <= 0:
			c.removeRanked(j, r)
		}
	}
	if running <= 0 {
		r.rackAt = 0
	}
	r.running, r.alloc = running, alloc
}

// place puts job j into, or takes it out of, the order, with its current key.
func (c *core) place(j policies.JobID, r *jobRec, eligible bool) {
	if !c.cfg.queueLevel {
		if eligible {
			c.top.set(int32(j), c.jobKey(j, r))
		} else {
			c.top.remove(int32(j))
		}
		return
	}
	g := &c.groups[r.group]
	if eligible {
		if !g.jobs.has(int32(j)) {
			g.jobs.set(int32(j), key{b: r.submit, id: int64(j)})
		}
	} else {
		g.jobs.remove(int32(j))
	}
	c.placeGroup(r.group)
}

func (c *core) placeGroup(gi int32) {
	g := &c.groups[gi]
	if g.jobs.len() == 0 {
		c.top.remove(gi)
		return
	}
	c.top.set(gi, c.groupKey(g))
}

func (c *core) jobKey(j policies.JobID, r *jobRec) key {
	k := key{b: r.submit, id: int64(j)}
	switch c.kind {
	case kindEDF:
		k.a = r.deadline
	case kindSRPT:
		k.a = r.remain
	case kindFair:
		k.s = float64(r.running) / r.weight
	case kindDRF:
		k.s = c.dominantShare(&r.alloc) / r.weight
	case kindSP:
		k.a = r.rank
		k.s = c.dominantShare(&r.alloc) / r.weight
	}
	return k
}

func (c *core) groupKey(g *group) key {
	k := key{a: g.rank, id: int64(g.queue)}
	if c.kind == kindFair {
		k.s = float64(g.running) / g.weight
	} else {
		k.s = c.dominantShare(&g.alloc) / g.weight
	}
	return k
}

// rekeyAll recomputes every key in the order (after the capacity changed).
func (c *core) rekeyAll() {
	ids := make([]int32, 0, c.top.len())
	for _, e := range c.top.items {
		ids = append(ids, e.id)
	}
	for _, id := range ids {
		if c.cfg.queueLevel {
			c.placeGroup(id)
		} else {
			c.top.set(id, c.jobKey(policies.JobID(id), &c.jobs[id]))
		}
	}
}

// fill runs the ordered greedy loop: serve the best entity; when its next task fits nowhere,
// stop, or with backfill set it aside for the rest of this scheduling point.
func (c *core) fill(v policies.View, p *policies.Plan) error {
	for {
		ent, ok := c.top.peek()
		if !ok {
			break
		}
		j := policies.JobID(ent)
		if c.cfg.queueLevel {
			head, ok := c.groups[ent].jobs.peek()
			if !ok {
				c.top.remove(ent)
				continue
			}
			j = policies.JobID(head)
		}
		var blocked bool
		if r := &c.jobs[j]; r.needOK && !c.pl.mayFit(&r.need) {
			blocked = true // known without asking the View
		} else {
			var err error
			if blocked, err = c.serve(v, p, j); err != nil {
				return err
			}
		}
		if !blocked {
			continue
		}
		if c.cfg.preempt {
			if err := c.preemptFor(v, p, j); err != nil {
				return err
			}
		}
		if !c.cfg.backfill {
			break
		}
		c.top.remove(ent)
		c.aside = append(c.aside, ent)
	}
	for _, ent := range c.aside {
		if c.cfg.queueLevel {
			c.placeGroup(ent)
		} else if r := &c.jobs[ent]; r.pending > 0 {
			c.top.set(ent, c.jobKey(policies.JobID(ent), r))
		}
	}
	c.aside = c.aside[:0]
	return nil
}

// serve starts tasks of job j: for static orders as many as fit, for sharing orders one. It
// reports whether the job still has pending tasks none of which fits (it is blocked).
func (c *core) serve(v policies.View, p *policies.Plan, j policies.JobID) (blocked bool, err error) {
	r := &c.jobs[j]
	info := v.Job(j)
	if info == nil {
		return false, c.errorf("the view has no job %d", j)
	}
	greedy := !c.kind.shares()
	need, any := traces.Vec{}, false
	for _, s := range v.RunnableStages(j) {
		if s < 0 || int(s) >= len(info.Stages) {
			return false, c.errorf("job %d: runnable stage %d out of range (%d stages)", j, s, len(info.Stages))
		}
		left := v.StageState(j, s).Pending - r.takenOf(s, c.epoch)
		d := info.Stages[s].Demand
		if left > 0 {
			if !any {
				need, any = d, true
			} else {
				for i := range need {
					need[i] = min(need[i], d[i])
				}
			}
		}
		for left > 0 {
			m, ok := c.findFor(v, info, j, r, d)
			if !ok {
				break
			}
			k := int32(1)
			if greedy {
				k = c.pl.count(m, d, r.rank, left)
			}
			c.placedOn(info, r, m)
			c.emit(p, j, r, s, m, k, d)
			if !greedy {
				return false, nil
			}
			left -= k
		}
	}
	r.need, r.needOK = need, any
	if greedy {
		return r.pending > 0, nil
	}
	return true, nil
}

// emit appends a start (merged into the previous one when it names the same job, stage and
// machine) and accounts for it.
func (c *core) emit(p *policies.Plan, j policies.JobID, r *jobRec, s int32, m int, k int32, d traces.Vec) {
	if n := len(p.Starts); n > c.base {
		if last := &p.Starts[n-1]; last.Job == j && last.Stage == s && int(last.Machine) == m {
			last.Count += k
			goto account
		}
	}
	if c.explain {
		p.StartBecause(policies.Start{Job: j, Stage: s, Machine: int32(m), Count: k}, c.startReason(r))
	} else {
		p.Starts = append(p.Starts, policies.Start{Job: j, Stage: s, Machine: int32(m), Count: k})
	}
account:
	c.pl.take(m, d, k)
	r.addTaken(s, k, c.epoch)
	r.pending -= k
	if r.touched != c.epoch {
		r.touched = c.epoch
		c.touched = append(c.touched, j)
	}
	if c.track {
		c.addMachine(r, int32(m))
	}
	c.setRunning(j, r, r.running+k, r.alloc.Add(d.Scale(int64(k))))
	if c.kind.shares() || r.pending <= 0 {
		c.place(j, r, r.pending > 0)
	}
}

// addMachine notes that job r has tasks on machine m.
func (c *core) addMachine(r *jobRec, m int32) {
	if n := len(r.machines); n > 0 && r.machines[n-1] == m {
		return
	}
	r.machines = append(r.machines, m)
	if len(r.machines) > 2*r.distinct+8 {
		c.compactMachines(r)
	}
}

// compactMachines removes duplicates from r.machines, keeping first occurrences.
func (c *core) compactMachines(r *jobRec) {
	c.compactN++
	out := r.machines[:0]
	for _, m := range r.machines {
		if int(m) >= len(c.compact) {
			c.compact = append(c.compact, make([]uint64, int(m)+1-len(c.compact))...)
		}
		if m >= 0 && c.compact[m] != c.compactN {
			c.compact[m] = c.compactN
			out = append(out, m)
		}
	}
	r.machines = out
	r.distinct = len(out)
}
