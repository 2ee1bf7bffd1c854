package timeline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/report"
	"github.com/schedlab/schedlab/traces"
)

// MaxGanttRows bounds the rows of a Gantt figure: a larger run needs a window.
const MaxGanttRows = 200

// readWindow reads the rows of tasks.parquet that overlap the window.
// running keeps only the attempts that ran (not just waited) in the window.
func readWindow(tasksPath string, win Window, running bool) (Meta, []Row, error) {
	var meta Meta
	var rows []Row
	err := Scan(tasksPath, func(m Meta) error { meta = m; return nil }, func(r *Row) error {
		if win.overlaps(r) && (!running || win.To == 0 || r.Start <= win.To) {
			rows = append(rows, *r)
		}
		return nil
	})
	return meta, rows, err
}

// Gantt draws the attempts of tasks.parquet that run in the window: one row per task slot of a
// machine (its attempts never overlap; a machine running k tasks at once gets k rows, the first
// labelled with its name), or of the pool in pooled mode, coloured by queue, preempted attempts marked.
func Gantt(tasksPath string, win Window) (*report.Figure, error) {
	meta, rows, err := readWindow(tasksPath, win, true)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no task ran in the window", tasksPath)
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(a.Machine, b.Machine), cmp.Compare(a.Start, b.Start), cmp.Compare(a.Job, b.Job))
	})
	queues := map[string]int{}
	for i, q := range meta.Queues {
		queues[q] = i
	}
	var labels []string
	var bars []report.Bar
	var laneEnd []traces.Time // per lane of the current machine: when its last attempt ends
	machine := int32(-1)
	base := 0
	for i := range rows {
		r := &rows[i]
		if r.Machine != machine {
			machine, base, laneEnd = r.Machine, len(labels), laneEnd[:0]
		}
		lane := slices.IndexFunc(laneEnd, func(end traces.Time) bool { return end <= r.Start })
		if lane < 0 {
			lane = len(laneEnd)
			laneEnd = append(laneEnd, 0)
			name := "" // a machine's further slots stay unlabelled: its name marks its first
			if lane == 0 {
				name = placeLabel(meta, r.Machine)
			}
			labels = append(labels, name)
			if len(labels) > MaxGanttRows {
				return nil, fmt.Errorf("%s: over %d machine slots ran in the window: choose a shorter one (--from, --to)", tasksPath, MaxGanttRows)
			}
		}
		laneEnd[lane] = r.End
		g, ok := queues[r.Queue]
		if !ok {
			g = len(meta.Queues)
			queues[r.Queue] = g
			meta.Queues = append(meta.Queues, r.Queue)
		}
		start, end := r.Start, r.End
		if win.To != 0 {
			end = min(end, win.To)
		}
		start = max(start, win.From)
		bars = append(bars, report.Bar{Row: base + lane, Start: traces.Seconds(start), End: traces.Seconds(end), Group: g,
			Marked: r.Outcome == "preempted" && (win.To == 0 || r.End <= win.To)})
	}
	yLabel := "Machine slot"
	if meta.Pooled {
		yLabel = "Pool slot"
	}
	return report.NewGantt("gantt", "", report.Label("Time", "s"), yLabel, labels, meta.Queues, bars...), nil
}

func placeLabel(meta Meta, m int32) string {
	if meta.Pooled {
		return "pool"
	}
	if int(m) < len(meta.Machines) {
		return meta.Machines[m]
	}
	return "m" + strconv.Itoa(int(m))
}

// QueueLengths draws the tasks each queue had waiting (ready, not started) over the window, at
// evenly spaced points, from the recorded attempts (tasks that never started are not in
// tasks.parquet, so they are not counted).
func QueueLengths(tasksPath string, win Window, points int) (*report.Figure, error) {
	meta, rows, err := readWindow(tasksPath, win, false)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no task waited or ran in the window", tasksPath)
	}
	lo, hi := win.From, win.To
	if hi == 0 {
		for i := range rows {
			hi = max(hi, rows[i].End)
		}
	}
	if hi <= lo || points < 2 {
		return nil, fmt.Errorf("%s: empty window", tasksPath)
	}
	qi := map[string]int{}
	for i, q := range meta.Queues {
		qi[q] = i
	}
	x := make([]float64, points)
	counts := make([][]float64, len(meta.Queues))
	for q := range counts {
		counts[q] = make([]float64, points)
	}
	step := float64(hi-lo) / float64(points-1)
	for i := range x {
		x[i] = traces.Seconds(lo + traces.Time(float64(i)*step))
	}
	// A difference array: +1 at the first point at or after ready, −1 at the first at or after
	// start; the running sum is the waiting count at each point.
	first := func(t traces.Time) int {
		k := int(math.Ceil(float64(t-lo) / step))
		return min(max(k, 0), points)
	}
	for i := range rows {
		r := &rows[i]
		q, ok := qi[r.Queue]
		if !ok {
			continue
		}
		diff := counts[q]
		if k := first(r.Ready); k < points {
			diff[k]++
		}
		if k := first(r.Start); k < points {
			diff[k]--
		}
	}
	for q := range counts {
		for k := 1; k < points; k++ {
			counts[q][k] += counts[q][k-1]
		}
	}
	var series []report.Series
	for q, name := range meta.Queues {
		s := report.Series{Label: name, X: x, Samples: make([][]float64, points)}
		for k := range x {
			s.Samples[k] = []float64{counts[q][k]}
		}
		series = append(series, s)
	}
	return report.NewLines("queue-lengths", "", report.Label("Time", "s"), report.Label("Waiting tasks", "tasks"), series...), nil
}
