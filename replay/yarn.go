package replay

import (
	"fmt"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// YarnConfig switches on execution mechanics of a real YARN/Hadoop cluster that an idealized
// replay skips (issue 24). Its zero value leaves every one off, and the engine then behaves, and
// costs, as without them. The sources of each mechanic's semantics are Hadoop 2.7's
// yarn-default.xml and FairScheduler (the version the BPF authors ran, in their repository
// github.com/lenhattan86/ccra).
//
//   - Heartbeats (heartbeat.go): nodes heartbeat every Heartbeat; a container starts at its
//     node's heartbeat, at most ContainersPerHeartbeat per node per heartbeat, and a finished
//     container is seen, and its resources freed, at its node's next heartbeat.
//   - Application masters (am.go): each job first needs an AM container of AMDemand, placed by
//     the engine; the job reaches the policy AMStartup + AMSetup after its AM launches and
//     completes AMTeardown after its last task; MaxAMShare limits each queue's AMs.
//   - Reservations (reserve.go): a container that does not fit on the node a plan chose
//     reserves that node, which then takes no other container until the reservation is
//     fulfilled or dropped.
//   - Slow-start (slowstart.go): a stage's tasks may launch once SlowStart of its producers'
//     tasks finished, and hold their resources without progress until their input is complete.
type YarnConfig struct {
	// Heartbeat is the node heartbeat period (yarn.resourcemanager.nodemanagers.
	// heartbeat-interval-ms, 1 s in Hadoop 2.7); 0 = off.
	Heartbeat traces.Time
	// ContainersPerHeartbeat caps the containers assigned to a node per heartbeat (FairScheduler:
	// 1 when yarn.scheduler.fair.assignmultiple is false, its default); 0 = no cap.
	ContainersPerHeartbeat int
	// AM gives every job an application master container.
	AM bool
	// AMDemand is the AM container's size.
	AMDemand traces.Vec
	// AMStartup is the time from the AM container's launch until it registers (the job's
	// tasks become visible to the policy); AMSetup is the AM's job setup after it (DAG
	// initialization) before the first stage may run; AMTeardown is the AM's work after the
	// job's last task, counted in the job's completion time.
	AMStartup, AMSetup, AMTeardown traces.Time
	// MaxAMShare is the FairScheduler maxAMShare: a queue's running AMs may use at most this
	// fraction of the queue's fair share; 0 = no limit.
	MaxAMShare float64
	// Reservations enables FairScheduler-style node reservations.
	Reservations bool
	// SlowStartOn enables consumer slow-start at fraction SlowStart in [0, 1]
	// (mapreduce.job.reduce.slowstart.completedmaps, 0.05 in MapReduce; Tez's
	// ShuffleVertexManager min/max-src-fraction, 0.25/0.75). Off, a stage waits for all of its
	// producers, as with SlowStart = 1.
	SlowStartOn bool
	SlowStart   float64
}

func (c YarnConfig) on() bool {
	return c.Heartbeat > 0 || c.AM || c.Reservations || c.SlowStartOn
}

// yarnRT is the engine's state for the YARN mechanics; a part is nil when its mechanic is off.
type yarnRT struct {
	hb   *heartbeats
	am   *amRT
	resv *reservations
	slow *slowStart
	// begin holds, per running attempt, when its work begins (noBegin while it waits for
	// its input), for the work a preempted attempt keeps.
	begin map[taskKey]traces.Time
}

type taskKey struct{ job, stage, task int32 }

// initYarn validates cfg.Yarn and prepares the state of the mechanics it switches on.
func (e *Engine) initYarn() error {
	c := e.cfg.Yarn
	if c.Heartbeat < 0 || c.ContainersPerHeartbeat < 0 || c.AMStartup < 0 || c.AMSetup < 0 || c.AMTeardown < 0 {
		return fmt.Errorf("replay: heartbeat, containers per heartbeat and AM times must be ≥ 0")
	}
	if !(c.MaxAMShare >= 0 && c.MaxAMShare <= 1) {
		return fmt.Errorf("replay: max AM share %v: want a fraction in [0, 1]", c.MaxAMShare)
	}
	if c.SlowStartOn && !(c.SlowStart >= 0 && c.SlowStart <= 1) {
		return fmt.Errorf("replay: slow-start %v: want a fraction in [0, 1]", c.SlowStart)
	}
	if !c.on() {
		return nil
	}
	e.y = &yarnRT{begin: map[taskKey]traces.Time{}}
	if c.Heartbeat > 0 {
		e.y.hb = newHeartbeats(e, c.Heartbeat, c.ContainersPerHeartbeat)
	}
	if c.AM {
		if err := e.checkAMCluster(); err != nil {
			return err
		}
		am, err := newAMRT(e, c)
		if err != nil {
			return err
		}
		e.y.am = am
	}
	if c.Reservations {
		e.y.resv = newReservations(len(e.mach))
	}
	if c.SlowStartOn {
		e.y.slow = newSlowStart(e, c.SlowStart)
	}
	return nil
}

// yarnInstant runs, after the events of an instant and before the policy's scheduling point,
// what the resource manager does by itself: fulfill node reservations, then place AMs.
func (e *Engine) yarnInstant() {
	if e.y.resv != nil {
		e.fulfillReservations()
	}
	if e.y.am != nil {
		e.placeAMs()
	}
}

// yarnWaiting reports whether jobs wait for their AMs (so a cycle-mode run must keep ticking).
func (e *Engine) yarnWaiting() bool {
	return e.y != nil && e.y.am != nil && e.y.am.waiting > 0
}

// yarnEvent handles the heap events of the YARN mechanics and reports whether ev was one.
func (e *Engine) yarnEvent(ev *event) bool {
	switch ev.kind {
	case KindAMReady:
		e.amReady(ev.job)
	case KindAMDone:
		e.amDone(ev.job)
	case KindAMRelease:
		e.amRelease(ev.job)
	default:
		return false
	}
	return true
}

// yarnHeld adds the resources the mechanics hold outside running tasks (AM containers) to
// held, per machine (invariants).
func (e *Engine) yarnHeld(held []traces.Vec) {
	if a := e.y.am; a != nil {
		for j := range a.mach {
			if m := a.mach[j]; m >= 0 {
				held[m] = held[m].Add(a.demand)
			}
		}
	}
}

// yarnPushFinish schedules the finish of a task attempt that started now with dur of work left,
// when a YARN mechanic is on (without them the engine pushes the finish at now + dur). With
// heartbeats it begins at the launch slot its
// node's heartbeats give it and its finish is seen at the node's first heartbeat after the
// work; with slow-start, a task whose input is incomplete waits, holding its resources, and its
// finish is scheduled when the input completes (slowParentDone).
func (e *Engine) yarnPushFinish(j, s, task, m int32, dur traces.Time) {
	launch := e.now
	if e.y.hb != nil {
		launch = e.y.hb.launch(m, e.now)
	}
	if e.y.slow != nil && e.slowWaits(j, s, task, launch, dur) {
		if e.cfg.PreemptKeepsWork {
			e.y.begin[taskKey{j, s, task}] = noBegin
		}
		return
	}
	e.beginWork(j, s, task, m, launch, launch, dur)
}

// noBegin marks an attempt whose work has not been scheduled yet (it waits for its input).
const noBegin = traces.Time(1<<63 - 1)

// beginWork schedules the finish of an attempt whose dur of work begins at begin (≥ now);
// launch is its container's launch, a heartbeat of its node when heartbeats are on.
func (e *Engine) beginWork(j, s, task, m int32, launch, begin, dur traces.Time) {
	st := &e.jobs[j].stages[s]
	if e.cfg.PreemptKeepsWork {
		e.y.begin[taskKey{j, s, task}] = begin
	}
	end := begin + dur
	if e.y.hb != nil {
		end = e.y.hb.seen(launch, end)
	}
	e.heap.push(event{t: end, kind: KindFinish, job: j, stage: s, task: task, machine: m, attempt: st.attempt[task]})
}

// workElapsed is the time a running attempt has worked by now (preemption with
// PreemptKeepsWork): since its start, or with YARN mechanics since its work began.
// workDone is the work a running attempt has done by now: its time since it started less its
// start-up hold (holding.go), or with the YARN mechanics on, since its work began.
func (e *Engine) workDone(st *stageRT, p policies.TaskRef) traces.Time {
	if e.y == nil {
		return e.workSince(st, p.Task)
	}
	return max(0, e.workElapsed(st, p)-e.startupOf(st, p.Task))
}

func (e *Engine) workElapsed(st *stageRT, p policies.TaskRef) traces.Time {
	if e.y == nil {
		return e.now - st.started[p.Task]
	}
	return max(0, e.now-e.y.begin[taskKey{int32(p.Job), p.Stage, p.Task}])
}

// yarnLogString formats the log entries of the YARN mechanics.
func yarnLogString(e LogEntry) (string, bool) {
	switch e.Kind {
	case KindSubmit, KindAMReady, KindAMDone:
		return fmt.Sprintf("t=%d %s job=%d", e.T, e.Kind, e.Job), true
	case KindAMStart, KindAMRelease:
		return fmt.Sprintf("t=%d %s job=%d machine=%d", e.T, e.Kind, e.Job, e.Machine), true
	case KindReserve, KindUnreserve:
		return fmt.Sprintf("t=%d %s job=%d stage=%d machine=%d", e.T, e.Kind, e.Job, e.Stage, e.Machine), true
	case KindInput:
		return fmt.Sprintf("t=%d %s job=%d stage=%d", e.T, e.Kind, e.Job, e.Stage), true
	}
	return "", false
}
