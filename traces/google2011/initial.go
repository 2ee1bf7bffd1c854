package google2011

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// # Running state at a window's start
//
// An input that starts after the trace's beginning (a window of task_events parts from the middle
// of the month) begins with tasks already running: they have no SCHEDULE in it, so they are not
// workload tasks, yet they hold their requests on their machines. A task-level import turns them
// into the workload's initial holds (traces.Workload.Initial): a task whose first event in the
// input is one only a running task has — UPDATE_RUNNING, or an EVICT, FAIL, FINISH, KILL or LOST
// on a machine — holds the request of that event (the task's request from Options.StateFrom, else
// the default, when it has none) on that machine from the window's start (the input's first
// task event) until its first terminal event, or the input's end. If it is scheduled again later
// in the window, that later run is a workload task as usual.
//
// Tasks running through the whole window have no event in it. Options.StateFrom names earlier
// task_events parts to find them: a task running at the end of those parts (last event SCHEDULE
// or UPDATE_RUNNING) and without any event in the window holds its request on its machine from
// the window's start to its end. Without StateFrom, or when StateFrom itself does not begin at
// the trace's beginning, the start state of a window where some task was found running at its
// start is partly unknown, which the import says in one warning (Stats.StartStateWarning, and
// the workload's Source, which summary.json records as workload_source).
//
// Holds are on machines by trace machine ID: with machine_events the machine of that ID; with the
// published mix (machine_events are not in every copy of the trace) the trace's machine IDs seen
// in the input, in ID order, stand for the mix's machines in its order, so a hold's machine has
// a capacity of the cell's mix, not necessarily its own. A hold on a machine outside the cluster
// is left out and counted. The replay places holds exactly and leaves out those that no longer
// fit their machine (the cell overcommitted; see replay's ClusterStats.HoldsRejected).

// InitialStats describes the running state an import found at its window's start.
type InitialStats struct {
	// Start is the window's start (the input's first task event); Tasks counts the holds made,
	// FromStateFrom those of tasks running through the whole window (found in StateFrom only).
	Start                traces.Time
	Tasks, FromStateFrom int64
	// DefaultRequest counts holds without a known request (the default demand); Unplaced holds on
	// machines outside the cluster (left out of Tasks).
	DefaultRequest, Unplaced int64
	// CPU and Mem sum the holds' demands, in units of the largest machine.
	CPU, Mem float64
	// StateFromEvents counts the task_events lines read from StateFrom.
	StateFromEvents int64
}

// initialHold is a hold on its way into the workload, by trace machine ID.
type initialHold struct {
	machine  int64
	cpu, mem int32 // fixed point, -1 unknown
	end      traces.Time
	key      taskKey
}

// sfTask is what a StateFrom scan keeps of a running task.
type sfTask struct {
	machine  int64
	cpu, mem int32
}

// initialState collects the holds during a task-level scan.
type initialState struct {
	started bool
	start   traces.Time
	holds   []initialHold
	open    map[taskKey]int32 // hold of a task still running
	before  map[taskKey]sfTask
	sfEnd   traces.Time // the last StateFrom event's time
	st      InitialStats
}

// observe sees every task event of the window before the scan applies it; l is the task's life
// before the event.
func (in *initialState) observe(l life, e *taskEvent, fromStart bool) {
	if !in.started {
		in.started, in.start = true, e.time
	}
	k := taskKey{e.jobID, e.index}
	if l != unseen {
		if len(in.open) > 0 && e.ev.Type.Terminal() {
			if i, ok := in.open[k]; ok {
				in.holds[i].end = e.time
				delete(in.open, k)
			}
		}
		return
	}
	sf, known := in.before[k]
	if known {
		delete(in.before, k)
	}
	if fromStart {
		return
	}
	typ := e.ev.Type
	runs := typ == UpdateRunning || (typ.Terminal() && (e.ev.Machine >= 0 || known))
	if !runs {
		return
	}
	h := initialHold{machine: e.ev.Machine, cpu: fixed(e.ev.CPURequest), mem: fixed(e.ev.MemRequest), end: -1, key: k}
	if h.machine < 0 {
		h.machine = sf.machine
	}
	if known {
		if h.cpu < 0 {
			h.cpu = sf.cpu
		}
		if h.mem < 0 {
			h.mem = sf.mem
		}
	}
	if typ.Terminal() {
		h.end = e.time
	} else {
		if in.open == nil {
			in.open = make(map[taskKey]int32)
		}
		in.open[k] = int32(len(in.holds))
	}
	in.holds = append(in.holds, h)
}

// readStateFrom scans earlier task_events files for the tasks running at their end.
func (in *initialState) readStateFrom(files []string, opener func(string) (io.ReadCloser, error)) (fromStart bool, err error) {
	r := newLineReader(TaskEventsTable, taskEventNames[:], files)
	if opener != nil {
		r.opener = opener
	}
	defer r.close()
	in.before = make(map[taskKey]sfTask)
	req := make(map[taskKey][2]int32) // latest request of tasks not running
	var e taskEvent
	for {
		f, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, err
		}
		if err := e.parse(r, f); err != nil {
			return false, err
		}
		if e.time != AfterWindow {
			in.sfEnd = max(in.sfEnd, e.time)
		}
		k := taskKey{e.jobID, e.index}
		c, m := fixed(e.ev.CPURequest), fixed(e.ev.MemRequest)
		switch typ := e.ev.Type; {
		case typ == Schedule:
			q, ok := req[k]
			if !ok {
				q = [2]int32{-1, -1}
			}
			delete(req, k)
			if c >= 0 {
				q[0] = c
			}
			if m >= 0 {
				q[1] = m
			}
			in.before[k] = sfTask{machine: e.ev.Machine, cpu: q[0], mem: q[1]}
		case typ == UpdateRunning:
			if t, ok := in.before[k]; ok {
				if c >= 0 {
					t.cpu = c
				}
				if m >= 0 {
					t.mem = m
				}
				in.before[k] = t
			}
		case typ.Terminal():
			delete(in.before, k)
			delete(req, k)
		default: // SUBMIT, UPDATE_PENDING
			q, ok := req[k]
			if !ok {
				q = [2]int32{-1, -1}
			}
			if c >= 0 {
				q[0] = c
			}
			if m >= 0 {
				q[1] = m
			}
			req[k] = q
		}
	}
	in.st.StateFromEvents = r.allLines
	return r.fromStart(), nil
}

// finish turns the collected holds into the workload's, on cluster's machines: end is the
// input's end, deflt the default demand, index maps a trace machine ID to its machine.
func (in *initialState) finish(end traces.Time, deflt [2]int64, largest traces.Vec, index func(int64) (int32, bool)) []traces.Hold {
	// Tasks running through the whole window, in key order (deterministic).
	keys := make([]taskKey, 0, len(in.before))
	for k := range in.before {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b taskKey) int {
		if a.job != b.job {
			if a.job < b.job {
				return -1
			}
			return 1
		}
		return int(a.index) - int(b.index)
	})
	for _, k := range keys {
		sf := in.before[k]
		in.holds = append(in.holds, initialHold{machine: sf.machine, cpu: sf.cpu, mem: sf.mem, end: -1, key: k})
		in.st.FromStateFrom++
	}
	in.st.Start = in.start
	var out []traces.Hold
	for _, h := range in.holds {
		stop := h.end
		if stop < 0 || stop == AfterWindow {
			stop = end
		}
		if stop <= in.start {
			continue
		}
		m, ok := index(h.machine)
		if !ok {
			in.st.Unplaced++
			continue
		}
		d := [2]int64{int64(h.cpu), int64(h.mem)}
		if h.cpu < 0 || h.mem < 0 {
			in.st.DefaultRequest++
			for i := range d {
				if d[i] < 0 {
					d[i] = deflt[i]
				}
			}
		}
		if d == [2]int64{} {
			d[0] = 1
		}
		d[0], d[1] = min(d[0], largest[0]), min(d[1], largest[1])
		out = append(out, traces.Hold{Machine: m, Start: in.start, End: stop, Demand: traces.Vec{d[0], d[1]}})
		in.st.Tasks++
		in.st.CPU += float64(d[0]) / float64(traces.Unit)
		in.st.Mem += float64(d[1]) / float64(traces.Unit)
	}
	return out
}

// machineIDs returns the trace machine IDs of the holds.
func (in *initialState) machineIDs() []int64 {
	ids := make([]int64, 0, len(in.holds)+len(in.before))
	for _, h := range in.holds {
		ids = append(ids, h.machine)
	}
	for _, sf := range in.before {
		ids = append(ids, sf.machine)
	}
	return ids
}

// clusterIndex maps trace machine IDs to the cluster's machines: by name ("m<ID>") for a
// cluster from machine_events, else the given IDs in ID order to the machines in order.
func clusterIndex(c traces.Cluster, byName bool, ids map[int64]struct{}) func(int64) (int32, bool) {
	if byName {
		idx := make(map[int64]int32, len(c.Machines))
		for i, m := range c.Machines {
			if id, err := strconv.ParseInt(strings.TrimPrefix(m.Name, "m"), 10, 64); err == nil {
				idx[id] = int32(i)
			}
		}
		return func(id int64) (int32, bool) { m, ok := idx[id]; return m, ok }
	}
	sorted := make([]int64, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	slices.Sort(sorted)
	n := len(c.Machines)
	return func(id int64) (int32, bool) {
		i, ok := slices.BinarySearch(sorted, id)
		if !ok || i >= n || id < 0 {
			return 0, false
		}
		return int32(i), true
	}
}

// startWarning says what is unknown of a window's start state, or "".
func startWarning(start traces.Time, stateFrom bool, sfFromStart bool) string {
	switch {
	case stateFrom && !sfFromStart:
		return fmt.Sprintf("start state partly unknown: the window starts at t=%d and --state-from does not begin at the trace's beginning, so tasks started before it and silent since are missing", start)
	case !stateFrom:
		return fmt.Sprintf("start state partly unknown: the window starts mid-trace (t=%d); tasks running through it without an event in it are missing (give the earlier task_events parts with --state-from)", start)
	}
	return ""
}

// finishInitial places the scan's initial holds on the workload's cluster, records them in the
// metadata and says what of the start state is unknown.
func (c *conversion) finishInitial(s *jobScanner, stateFrom, sfFromStart bool) error {
	in := s.initial
	if stateFrom && in.started && in.sfEnd > in.start {
		return optErr("--state-from reaches t=%d, past the window's start (t=%d): give the task_events parts before the window", in.sfEnd, in.start)
	}
	index := clusterIndex(c.meta.Cluster, c.o.Cluster == ClusterMachineEvents, s.machines)
	c.meta.Initial = in.finish(s.lastTask, c.tjDefault(), largest(c.meta.Cluster), index)
	c.st.Initial = in.st
	// A window where no task was found running at its start (a filtered input such as the mini
	// fixture, whose every task begins with its SUBMIT) is taken to start empty.
	if w := startWarning(in.start, stateFrom, sfFromStart); w != "" && (len(in.holds) > 0 || in.st.Unplaced > 0) {
		c.st.StartStateWarning = w
		c.meta.Source += "; " + w
	}
	return nil
}

// tjDefault returns the default per-task demand in fixed point.
func (c *conversion) tjDefault() [2]int64 {
	d := traces.VecOf(c.o.DefaultCPU, c.o.DefaultMem)
	return [2]int64{d[0], d[1]}
}

// fprintInitial writes the running state at the window's start, when the window has one.
func (s *Stats) fprintInitial(w io.Writer) {
	in := &s.Initial
	if in.Tasks == 0 && in.Unplaced == 0 && s.StartStateWarning == "" {
		return
	}
	fmt.Fprintf(w, "initial: %d tasks running at the window's start (t=%d) hold %.4g cpu, %.4g mem (machines of the largest's size); %d through the whole window (from --state-from, %d lines), %d without a request (default), %d on machines outside the cluster (left out)\n",
		in.Tasks, in.Start, in.CPU, in.Mem, in.FromStateFrom, in.StateFromEvents, in.DefaultRequest, in.Unplaced)
	if s.StartStateWarning != "" {
		fmt.Fprintf(w, "warning: %s\n", s.StartStateWarning)
	}
}
