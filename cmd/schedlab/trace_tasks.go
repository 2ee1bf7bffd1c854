package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/google2011"
)

// taskStats is the section of `trace stats` for workloads whose stages carry task histories
// (task-level Google 2011 imports): per-task requests and durations, how the tasks' last runs
// ended, and jobs and tasks per priority (band, for a Google workload).
type taskStats struct {
	google              bool
	tasks               int64
	cpu, mem, dur       sample
	outcomes            [traces.NumTaskOutcomes]int64
	attempts, evictions int64
	prioJobs, prioTasks map[int]int64
}

func newTaskStats(source string) *taskStats {
	return &taskStats{
		google: strings.HasPrefix(source, "google2011"), prioJobs: map[int]int64{}, prioTasks: map[int]int64{},
		cpu: newSample(1), mem: newSample(2), dur: newSample(3),
	}
}

// add counts j if its stages carry task histories.
func (s *taskStats) add(j *traces.Job) {
	n := int64(0)
	for si := range j.Stages {
		st := &j.Stages[si]
		if st.History == nil {
			continue
		}
		for k := range st.Tasks {
			h := st.History[k]
			s.outcomes[h.Outcome]++
			s.attempts += int64(h.Attempts)
			s.evictions += int64(h.Evictions)
			s.cpu.add(st.Demand[0])
			s.mem.add(st.Demand[1])
			s.dur.add(st.TaskDuration(k))
		}
		n += int64(st.Tasks)
	}
	if n > 0 {
		s.tasks += n
		s.prioJobs[j.Priority]++
		s.prioTasks[j.Priority] += n
	}
}

func (s *taskStats) print(w io.Writer) {
	if s.tasks == 0 {
		return
	}
	var outs []string
	for o, k := range s.outcomes {
		outs = append(outs, fmt.Sprintf("%s %d", traces.TaskOutcome(o), k))
	}
	fmt.Fprintf(w, "task histories   %d tasks; last run %s; %d attempts, %d evictions\n", s.tasks, strings.Join(outs, ", "), s.attempts, s.evictions)
	printFixed(w, "task cpu req", &s.cpu)
	printFixed(w, "task mem req", &s.mem)
	printQuantiles(w, "task duration", s.dur.xs, true)
	if s.dur.n > int64(len(s.dur.xs)) {
		fmt.Fprintf(w, "%-16s task quantiles from a uniform sample of %d tasks\n", "", len(s.dur.xs))
	}
	prios := make([]int, 0, len(s.prioJobs))
	for p := range s.prioJobs {
		prios = append(prios, p)
	}
	slices.Sort(prios)
	var parts []string
	for _, p := range prios {
		parts = append(parts, fmt.Sprintf("%d: %d/%d", p, s.prioJobs[p], s.prioTasks[p]))
	}
	fmt.Fprintf(w, "priority         jobs/tasks %s\n", strings.Join(parts, ", "))
	if !s.google {
		return
	}
	type band struct{ jobs, tasks int64 }
	bands := map[string]*band{}
	for _, p := range prios {
		b := google2011.PriorityBand(p)
		if bands[b] == nil {
			bands[b] = &band{}
		}
		bands[b].jobs += s.prioJobs[p]
		bands[b].tasks += s.prioTasks[p]
	}
	parts = parts[:0]
	for _, name := range []string{google2011.BandProduction, google2011.BandMiddle, google2011.BandFree, ""} {
		if b := bands[name]; b != nil {
			if name == "" {
				name = "unknown"
			}
			parts = append(parts, fmt.Sprintf("%s %d jobs, %d tasks", name, b.jobs, b.tasks))
		}
	}
	fmt.Fprintf(w, "priority bands   %s (production 9-11, middle 2-8, free 0-1)\n", strings.Join(parts, "; "))
}

// printFixed prints the quantiles of fixed-point amounts (traces.Unit per unit).
func printFixed(w io.Writer, label string, s *sample) {
	q := quantiles(s.xs, 0, 0.5, 0.9, 0.99, 1)
	f := func(x int64) string { return fmt.Sprintf("%.4g", float64(x)/float64(traces.Unit)) }
	fmt.Fprintf(w, "%-16s min %s  p50 %s  p90 %s  p99 %s  max %s\n", label, f(q[0]), f(q[1]), f(q[2]), f(q[3]), f(q[4]))
}

// sampleCap bounds the values a sample keeps: beyond it, a uniform reservoir of that size.
const sampleCap = 1 << 22

// sample keeps every value up to sampleCap, then a uniform reservoir sample of sampleCap (a
// seeded draw, so the figures are the same every time).
type sample struct {
	xs  []int64
	n   int64
	rng *rand.Rand
}

func newSample(seed uint64) sample { return sample{rng: rand.New(rand.NewPCG(seed, 0x7a5c))} }

func (s *sample) add(x int64) {
	s.n++
	if len(s.xs) < sampleCap {
		s.xs = append(s.xs, x)
		return
	}
	if k := s.rng.Int64N(s.n); k < sampleCap {
		s.xs[k] = x
	}
}
