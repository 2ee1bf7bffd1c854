package replay

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/traces"
)

// Application masters (YarnConfig.AM). In YARN every application (a Tez DAG, a MapReduce job)
// first gets one container for its ApplicationMaster, which then asks for the job's task
// containers; the AM holds its container until the job ends. The engine models:
//
//   - Submission: the job is submitted (log "submit") but is not shown to the policy: it waits
//     for its AM container.
//   - Placement: the engine places AMs itself, as the ResourceManager does, at every instant
//     after the instant's events and before the policy's scheduling point: waiting AMs are
//     taken in submission order across queues (each queue's AMs in submission order), each on
//     the first machine where AMDemand fits (first fit in machine order, skipping nodes
//     reserved for another container), while one fits. An AM whose queue is at its AM-share
//     limit is skipped, and later jobs of other queues may pass it. With heartbeats the AM
//     launches at its node's heartbeat like any container.
//   - Start-up and setup: the job arrives at the policy (log "arrival") AMStartup + AMSetup
//     after the AM's launch. The two are summed: the AM registers and initializes its DAG
//     before asking for any task container.
//   - Teardown: after the job's last task the AM works AMTeardown more; the job completes then
//     (its completion time counts it), and the AM container is freed (at its node's next
//     heartbeat when heartbeats are on).
//   - maxAMShare: FairScheduler's FSLeafQueue.canRunAppAM admits an AM only if the queue's AM
//     usage plus the new AM stays within maxAMShare × the queue's fair share (for DRF
//     component-wise, Resources.fitsIn; for the fair and FIFO policies memory only). We model
//     the queue's instantaneous fair share as the cluster capacity divided equally among the
//     active queues (queues with a submitted, not yet completed job), and check every
//     dimension (DRF's rule). Queue weights and min/max shares are not modelled: the engine
//     does not know the policy's weights. An AM that fits no limit waits; if it never fits
//     (e.g. AMDemand above the share), its job never runs and is reported unfinished.
//
// AM containers count in the cluster's and the queue's allocation (utilization, usage) but not
// in the job's Alloc the policy sees, which stays the sum of its running tasks.
type amRT struct {
	demand   traces.Vec
	ready    traces.Time // start-up + setup
	teardown traces.Time
	share    float64

	mach     []int32       // per job: machine of its AM container, -1 when none is held
	launch   []traces.Time // per job: the AM container's launch
	start    []traces.Time // per job: AM placement, -1 before
	admitted []bool        // per job: shown to the policy

	queue   [][]int32    // per queue: jobs waiting for AM placement, in submission order
	head    []int        // per queue: index of the first waiting job in queue[q]
	usage   []traces.Vec // per queue: resources of its held AMs
	jobs    []int        // per queue: submitted, not completed jobs
	active  int          // queues with jobs[q] > 0
	waiting int          // jobs submitted and not yet shown to the policy
}

func newAMRT(e *Engine, c YarnConfig) (*amRT, error) {
	if c.AMDemand.AnyNegative() {
		return nil, fmt.Errorf("replay: AM demand %s is negative", c.AMDemand.Format(len(e.dims)))
	}
	fits := false
	for _, m := range e.mach {
		fits = fits || c.AMDemand.Fits(m.Capacity)
	}
	if !fits {
		return nil, fmt.Errorf("replay: AM demand %s fits on no machine", c.AMDemand.Format(len(e.dims)))
	}
	n, q := len(e.jobs), len(e.queues)
	a := &amRT{
		demand: c.AMDemand, ready: c.AMStartup + c.AMSetup, teardown: c.AMTeardown, share: c.MaxAMShare,
		mach: make([]int32, n), launch: make([]traces.Time, n), start: make([]traces.Time, n), admitted: make([]bool, n),
		queue: make([][]int32, q), head: make([]int, q), usage: make([]traces.Vec, q), jobs: make([]int, q),
	}
	for j := range a.mach {
		a.mach[j] = -1
		a.start[j] = -1
	}
	return a, nil
}

// amSubmit takes job j's submission: unless the job's AM is up (its arrival at the policy), the
// job waits for its AM and amSubmit reports true.
func (e *Engine) amSubmit(j int32) bool {
	a := e.y.am
	if a.admitted[j] {
		return false
	}
	q := e.jobs[j].info.Queue
	a.queue[q] = append(a.queue[q], j)
	if a.jobs[q] == 0 {
		a.active++
	}
	a.jobs[q]++
	a.waiting++
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindSubmit, Job: j})
	return true
}

// placeAMs places waiting AMs while one fits (see amRT).
func (e *Engine) placeAMs() {
	a := e.y.am
	for {
		best, bq := int32(-1), -1
		for q := range a.queue {
			if a.head[q] == len(a.queue[q]) {
				continue
			}
			if j := a.queue[q][a.head[q]]; (best < 0 || j < best) && e.amAdmissible(q) {
				best, bq = j, q
			}
		}
		if best < 0 {
			return
		}
		m, ok := e.amMachine()
		if !ok {
			return // every AM has the same size: none fits
		}
		a.head[bq]++
		if a.head[bq] == len(a.queue[bq]) {
			a.queue[bq], a.head[bq] = a.queue[bq][:0], 0
		}
		e.placeAM(best, m)
	}
}

// amAdmissible reports whether queue q may start one more AM under MaxAMShare.
func (e *Engine) amAdmissible(q int) bool {
	a := e.y.am
	if a.share == 0 {
		return true
	}
	use := a.usage[q].Add(a.demand)
	for d := range use {
		if e.cap[d] == 0 {
			continue
		}
		limit := int64(math.Floor(float64(e.cap[d]) * a.share / float64(a.active)))
		if use[d] > limit {
			return false
		}
	}
	return true
}

// amMachine returns the first machine where an AM fits that no reservation holds.
func (e *Engine) amMachine() (int32, bool) {
	d := e.y.am.demand
	m, ok := e.fit.First(d)
	if !ok {
		return 0, false
	}
	if r := e.y.resv; r == nil || r.node[m].job < 0 {
		return int32(m), true
	}
	for i := m + 1; i < len(e.mach); i++ {
		if e.y.resv.node[i].job < 0 && d.Fits(e.free[i]) {
			return int32(i), true
		}
	}
	return 0, false
}

// placeAM gives job j's AM a container on machine m now.
func (e *Engine) placeAM(j, m int32) {
	a := e.y.am
	d := a.demand
	e.machineChanged(m)
	e.free[m] = e.free[m].Sub(d)
	e.freeSum = e.freeSum.Sub(d)
	e.fit.Set(int(m), e.free[m])
	e.m.allocChanged(j, d, +1)
	q := e.jobs[j].info.Queue
	a.usage[q] = a.usage[q].Add(d)
	a.mach[j] = m
	a.start[j] = e.now
	a.launch[j] = e.now
	if e.y.hb != nil {
		a.launch[j] = e.y.hb.launch(m, e.now)
	}
	e.heap.push(event{t: a.launch[j] + a.ready, kind: KindAMReady, job: j})
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindAMStart, Job: j, Machine: m})
	e.dirty = true
}

// amReady shows job j to the policy: its AM is up.
func (e *Engine) amReady(j int32) {
	a := e.y.am
	a.admitted[j] = true
	a.waiting--
	e.log(LogEntry{T: e.now, Kind: KindAMReady, Job: j})
	e.arrive(j)
}

// amTeardown starts the AM's teardown after job j's last task finished.
func (e *Engine) amTeardown(j int32) {
	e.heap.push(event{t: e.now + e.y.am.teardown, kind: KindAMDone, job: j})
}

// amDone completes job j at the end of its AM's teardown and frees the AM container (at its
// node's next heartbeat when heartbeats are on).
func (e *Engine) amDone(j int32) {
	a := e.y.am
	e.completeJob(j)
	q := e.jobs[j].info.Queue
	a.jobs[q]--
	if a.jobs[q] == 0 {
		a.active--
	}
	if e.y.hb != nil {
		if t := e.y.hb.seen(a.launch[j], e.now); t > e.now {
			e.heap.push(event{t: t, kind: KindAMRelease, job: j})
			return
		}
	}
	e.amRelease(j)
}

// amRelease frees job j's AM container.
func (e *Engine) amRelease(j int32) {
	a := e.y.am
	m := a.mach[j]
	d := a.demand
	e.release(m, d)
	e.m.allocChanged(j, d, -1)
	q := e.jobs[j].info.Queue
	a.usage[q] = a.usage[q].Sub(d)
	a.mach[j] = -1
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindAMRelease, Job: j, Machine: m})
	e.dirty = true
}

// amStart returns when job j's AM container was placed, or -1 (no AM, or not placed).
func (e *Engine) amStart(j int) traces.Time {
	if e.y == nil || e.y.am == nil {
		return -1
	}
	return e.y.am.start[j]
}
