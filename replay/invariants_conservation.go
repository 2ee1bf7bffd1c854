package replay

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/traces"
)

// conservation checks, under the invariants build tag, that resources are held exactly as long
// as the execution mechanics decided: over a completed run, the resource-seconds the cluster held
// (∫ (capacity − free) dt, measured from free capacity at every advance of the clock) equal
// Σ (start-up hold + work + release hold) × demand over the task attempts, with preempted
// attempts counted up to their preemption plus the preemption delay.
type conservation struct {
	held      [traces.MaxDims]float64 // ∫ (capacity − free) dt, units·µs
	committed [traces.MaxDims]float64 // Σ hold × demand as decided, units·µs
	ends      map[[3]int32]traces.Time
}

// advance integrates the held capacity from the engine's clock to t.
func (c *conservation) advance(e *Engine, t traces.Time) {
	used := e.cap.Sub(e.freeSum)
	dt := float64(t - e.now)
	for d := range used {
		c.held[d] += float64(used[d]) * dt
	}
}

func (c *conservation) commit(d traces.Vec, dt traces.Time) {
	for i := range d {
		c.committed[i] += float64(d[i]) * float64(dt)
	}
}

// started records a task attempt that holds d from now until its finish event ev.
func (c *conservation) started(ev event, now traces.Time, d traces.Vec) {
	if c.ends == nil {
		c.ends = map[[3]int32]traces.Time{}
	}
	c.ends[[3]int32{ev.job, ev.stage, ev.task}] = ev.t
	c.commit(d, ev.t-now)
}

// preempted replaces a running attempt's remaining hold by the preemption delay.
func (c *conservation) preempted(job, stage, task int32, now traces.Time, d traces.Vec, delay traces.Time) {
	k := [3]int32{job, stage, task}
	c.commit(d, delay-(c.ends[k]-now))
	delete(c.ends, k)
}

// finished forgets a task attempt that ran to its finish event: the account keeps only running
// attempts (a preemption needs the end it replaces), so it stays O(running tasks).
func (c *conservation) finished(job, stage, task int32) {
	delete(c.ends, [3]int32{job, stage, task})
}

// checkConservation compares held and committed resource-seconds once a run has completed
// (nothing left to happen); a run stopped at its horizon is not checked, nor one with the YARN
// mechanics on (yarn.go) or a changing cluster (cluster.go). Why not there: the account commits a
// task's hold when it starts (start → finish event, + release hold), but with heartbeats a
// container is held from the plan to its launch and from its finish to the next heartbeat
// (yarn.go's begin/seen), slow-start consumers hold while their input completes, AM containers
// never pass through pushFinish, initial holds take capacity outside any task, a kill frees a
// task before its committed end, and a removed or shrunk machine's preempted tasks drain into
// releases owed (settleDeficit) that free nothing while ∫ (capacity − free) keeps counting them.
// Each needs its own commit/retract hook; until then cluster.go's capacity invariant (free +
// held = capacity after every instant) and the recorded attempts (combo_test.go) check them.
func (e *Engine) checkConservation() error {
	if e.heap.Len() > 0 || e.nextArr < len(e.jobs) || e.y != nil || e.cl != nil {
		return nil
	}
	c := e.acct
	for d := range c.held {
		h, w := c.held[d], c.committed[d]
		if math.Abs(h-w) > 1e-9*math.Max(math.Abs(h), math.Abs(w))+1e-6 {
			return fmt.Errorf("replay: invariant: dimension %d: held %.6g resource-µs, but tasks' work and holds × demand sum to %.6g", d, h, w)
		}
	}
	return nil
}
