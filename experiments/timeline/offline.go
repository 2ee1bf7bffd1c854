package timeline

import (
	"cmp"
	"io"
	"slices"

	"github.com/schedlab/schedlab/traces"
)

// Window limits FromTasks to the attempts whose wait or run overlaps [From, To]; a zero To means no end.
type Window struct{ From, To traces.Time }

func (w Window) overlaps(r *Row) bool {
	return r.End >= w.From && (w.To == 0 || r.Ready <= w.To)
}

// FromTasks writes the trace of a recorded run from its tasks.parquet: the attempts in the window
// as slices, and counters and scheduling-call instants derived from them — free capacity from
// the demands of running attempts, pending tasks from attempts between ready and start (tasks
// that never started are not in tasks.parquet, so they are not counted), a scheduling-call instant at each
// instant an attempt started or was preempted. It holds the window's rows in memory.
func FromTasks(tasksPath string, out io.Writer, win Window) error {
	var meta Meta
	var rows []Row
	err := Scan(tasksPath, func(m Meta) error { meta = m; return nil }, func(r *Row) error {
		if win.overlaps(r) {
			rows = append(rows, *r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	t := NewTrace(out, meta)
	// Begin and end the attempts in time order, ends first at equal times, so that each takes
	// the lowest slot free when it starts, as in a live recording.
	type edge struct {
		t   traces.Time
		end bool
		r   *Row
	}
	edges := make([]edge, 0, 2*len(rows))
	for i := range rows {
		edges = append(edges, edge{rows[i].Start, false, &rows[i]}, edge{rows[i].End, true, &rows[i]})
	}
	slices.SortStableFunc(edges, func(a, b edge) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		if a.end != b.end {
			if a.end {
				return -1
			}
			return 1
		}
		return 0
	})
	for _, e := range edges {
		if e.end {
			t.Attempt(e.r)
		} else {
			t.Begin(e.r)
		}
	}
	type change struct {
		t                traces.Time
		pending, running int64
		starts, preempts int
		demand           *[traces.MaxDims]float64
		sign             float64
	}
	var ch []change
	for i := range rows {
		r := &rows[i]
		ch = append(ch, change{t: r.Ready, pending: 1}, change{t: r.Start, pending: -1, running: 1, starts: 1, demand: &r.Demand, sign: -1},
			change{t: r.End, running: -1, demand: &r.Demand, sign: 1})
		if r.Outcome == "preempted" {
			ch[len(ch)-1].preempts = 1
		}
	}
	slices.SortStableFunc(ch, func(a, b change) int { return cmp.Compare(a.t, b.t) })
	free := slices.Clone(meta.Capacity)
	var pending, running int64
	for i := 0; i < len(ch); {
		at := ch[i].t
		starts, preempts := 0, 0
		for ; i < len(ch) && ch[i].t == at; i++ {
			c := &ch[i]
			pending += c.pending
			running += c.running
			starts += c.starts
			preempts += c.preempts
			if c.demand != nil {
				for d := range free {
					free[d] += c.sign * c.demand[d]
				}
			}
		}
		switch {
		case at < win.From || win.To != 0 && at > win.To:
		case starts+preempts > 0:
			t.Call(at, starts, preempts, free, pending, running)
		default:
			t.Counters(at, free, pending, running)
		}
	}
	return t.Close()
}
