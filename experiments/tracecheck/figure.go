package tracecheck

import "github.com/schedlab/schedlab/report"

// Figure draws the comparison's CPU curves over time (hours from the comparison's start, percent
// of the cluster's CPU): the trace's and the replay's totals with the initial holds, and the
// workload's tasks alone.
func (c *Comparison) Figure(id, title string) *report.Figure {
	line := func(label string, cv Curve) report.Series {
		s := report.Series{Label: label, X: make([]float64, len(cv.T)), Samples: make([][]float64, len(cv.T))}
		for i := range cv.T {
			s.X[i] = cv.T[i] / 3600
			s.Samples[i] = []float64{100 * cv.CPU[i]}
		}
		return s
	}
	return report.NewLines(id, title, "hours into the window", "CPU allocated, % of the cluster",
		line("trace: holds + tasks", c.TraceTotal), line("replay (trace policy): holds taken + tasks", c.ReplayTotal),
		line("trace: window's tasks", c.Trace), line("replay: window's tasks", c.Replay))
}
