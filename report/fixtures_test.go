package report

// Small, fixed data sets for the golden and PNG tests. Keep them tiny: the
// golden SVGs grow with every point.

type fixture struct {
	name string
	fig  func() *Figure
}

func fixtures() []fixture {
	return []fixture{
		{"lines", fixtureLines},
		{"lines_logx", fixtureLinesLogX},
		{"bars", fixtureBars},
		{"boxes", fixtureBoxes},
		{"cdf", fixtureCDF},
		{"ccdf", fixtureCCDF},
		{"stacked", fixtureStacked},
		{"scatter", fixtureScatter},
		{"gantt", fixtureGantt},
	}
}

// fixtureGantt: three machines, two queues; a batch attempt preempted at t=40 for a prod one.
func fixtureGantt() *Figure {
	return NewGantt("fig-gantt", "", Label("Time", "s"), "Machine", []string{"m0", "m1", "m2"}, []string{"prod", "batch"},
		Bar{Row: 0, Start: 0, End: 40, Group: 1, Marked: true},
		Bar{Row: 0, Start: 40, End: 70, Group: 0},
		Bar{Row: 0, Start: 70, End: 120, Group: 1},
		Bar{Row: 1, Start: 5, End: 60, Group: 1},
		Bar{Row: 1, Start: 60, End: 90, Group: 0},
		Bar{Row: 2, Start: 10, End: 20, Group: 0},
		Bar{Row: 2, Start: 20, End: 20, Group: 0},
		Bar{Row: 2, Start: 30, End: 110, Group: 1},
	)
}

func fixtureLines() *Figure {
	x := []float64{1, 2, 4, 8}
	return NewLines("fig-lines", "", "Number of TQs", Label("Avg. LQ completion time", "s"),
		Series{Label: "DRF", X: x, Samples: [][]float64{
			{60, 64, 62}, {80, 86, 90}, {120, 112, 131}, {160, 150, 171},
		}},
		Series{Label: "SP", X: x, Samples: [][]float64{
			{40, 41, 43}, {42, 44, 41}, {45, 43, 48}, {47, 44, 46},
		}},
		Series{Label: "BPF", X: x, Samples: [][]float64{
			{41, 42, 44}, {44, 46, 43}, {48, 45, 50}, {52}, // one seed at X=8: no band there
		}},
	)
}

func fixtureLinesLogX() *Figure {
	f := NewLines("fig-lines-logx", "Scaling", Label("Cluster size", "nodes"), Label("Scheduling latency", "ms"),
		Series{Label: "CORA", X: []float64{10, 100, 1000}, Samples: [][]float64{{1.1, 1.3}, {2.0, 2.4}, {4.1, 3.8}}},
		Series{Label: "Baseline", X: []float64{10, 100, 1000}, Samples: [][]float64{{1.5, 1.6}, {4.0, 4.4}, {9.0, 10.2}}},
	)
	f.LogX = true
	f.RefLines = []RefLine{{Label: "SLO", Y: 12}}
	return f
}

func fixtureBars() *Figure {
	return NewBars("fig-bars", "", "LQ scale-up", Label("Avg. TQ completion time", "s"),
		[]string{"1x", "2x", "4x", "8x"},
		CategorySeries{Label: "DRF", Samples: [][]float64{{100, 104, 98}, {110, 115, 108}, {118, 121, 125}, {130, 126, 135}}},
		CategorySeries{Label: "SP", Samples: [][]float64{{102, 99, 105}, {140, 151, 138}, {210, 222, 205}, {330, 310, 345}}},
		CategorySeries{Label: "BPF", Samples: [][]float64{{101, 100, 103}, {112, 109, 116}, {120, 126, 119}, {128}}},
	)
}

func fixtureBoxes() *Figure {
	return NewBoxes("fig-boxes", "", "Workload", Label("Task duration", "s"),
		[]string{"BB", "TPC-DS", "TPC-H"},
		CategorySeries{Label: "Cluster", Samples: [][]float64{
			{2, 3, 3, 4, 5, 5, 6, 7, 30},
			{5, 7, 8, 9, 10, 12, 14},
			{4, 6, 6, 7, 9, 11, 12, 13},
		}},
		CategorySeries{Label: "Simulation", Samples: [][]float64{
			{2, 2, 3, 4, 4, 5, 6, 8},
			{6, 7, 9, 10, 11, 13, 15, 26},
			{5, 5, 7, 8, 9, 10, 12},
		}},
	)
}

func fixtureCDF() *Figure {
	return NewCDF("fig-cdf", "", Label("LQ job completion time", "s"), "CDF",
		Distribution{Label: "DRF", Values: []float64{40, 55, 62, 70, 81, 90, 104, 120, 150, 180}},
		Distribution{Label: "SP", Values: []float64{30, 31, 33, 35, 36, 38, 40, 41, 45, 52}},
		Distribution{Label: "BPF", Values: []float64{31, 33, 34, 36, 38, 40, 42, 44, 50, 60}},
	)
}

func fixtureCCDF() *Figure {
	f := NewCCDF("fig-ccdf", "", Label("Job slowdown", "×"), "Fraction of jobs above",
		Distribution{Label: "Jamais Vu", Values: []float64{1, 1.1, 1.2, 1.2, 1.5, 2, 2.5, 4, 8, 20}},
		Distribution{Label: "FIFO", Values: []float64{1, 1.5, 2, 3, 5, 8, 12, 30, 60, 150}},
	)
	f.LogX, f.LogY = true, true
	return f
}

func fixtureStacked() *Figure {
	t := []float64{0, 100, 200, 300, 400, 500, 600, 700, 800}
	f := NewStackedArea("fig-stacked", "", Label("Time", "s"), "Memory share",
		t,
		Layer{Label: "LQ-0", Y: []float64{0, 0.5, 0.6, 0, 0, 0.5, 0.6, 0.1, 0}},
		Layer{Label: "TQ-0", Y: []float64{0.5, 0.25, 0.2, 0.5, 0.5, 0.25, 0.2, 0.45, 0.5}},
		Layer{Label: "TQ-1", Y: []float64{0.5, 0.25, 0.2, 0.5, 0.5, 0.25, 0.2, 0.45, 0.5}},
	)
	f.YRange = &Range{Min: 0, Max: 1}
	return f
}

func fixtureScatter() *Figure {
	return NewScatter("fig-scatter", "", Label("Estimated duration", "s"), Label("Actual duration", "s"),
		Points{Label: "LQ jobs", X: []float64{10, 20, 30, 40, 50}, Y: []float64{12, 18, 33, 41, 47}},
		Points{Label: "TQ jobs", X: []float64{60, 80, 100, 120}, Y: []float64{75, 70, 110, 150}},
	)
}
