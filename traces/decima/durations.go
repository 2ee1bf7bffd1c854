package decima

import (
	"math"
	"slices"
	"strconv"

	"github.com/schedlab/schedlab/traces"
)

// Key rules (Options.Key).
const (
	// KeyDecima picks each stage's measurement for the executors its job holds while the stage
	// runs, as decima-sim does (see the package doc).
	KeyDecima = "decima"
	// KeyFixed picks, for every stage, the measurement taken with Options.JobExecutors executors
	// or else the largest below it (else the smallest): the reader's former rule.
	KeyFixed = "fixed"
)

// DataPoints are the executor counts decima-sim's data collection used (param.py
// executor_data_point); its job DAGs map an executor count to the neighbouring data points.
var DataPoints = []int{5, 10, 20, 40, 50, 60, 80, 100}

// MovingDelay is what an executor takes to move to another job in decima-sim (param.py
// moving_delay, 2000 ms): every executor that joins a job pays it before its first task there.
const MovingDelay = 2000.0

// WarmupDelay is what decima-sim adds to a first-wave duration for a fresh executor when a stage
// has no fresh measurement for the key (param.py warmup_delay, 1000 ms).
const WarmupDelay = 1000.0

// measurements holds one stage's task durations (ms) by executor count.
type measurements struct {
	first, rest, fresh map[int][]float64
	keys               []int // executor counts with a first_wave list, ascending
}

func newMeasurements(first, rest, fresh map[string][]float64) measurements {
	conv := func(m map[string][]float64) map[int][]float64 {
		out := make(map[int][]float64, len(m))
		for k, v := range m {
			if n, err := strconv.Atoi(k); err == nil && n >= 1 {
				out[n] = v
			}
		}
		return out
	}
	m := measurements{first: conv(first), rest: conv(rest), fresh: conv(fresh)}
	for k := range m.first {
		m.keys = append(m.keys, k)
	}
	slices.Sort(m.keys)
	m.first = cleanFirstWave(m.first, m.fresh, m.keys)
	return m
}

// cleanFirstWave removes the fresh (JVM warm-up) durations from the first-wave lists — each fresh
// value removes one equal first-wave value; the measurements list every warm-up task in both —
// and gives a key left with no first-wave duration the list of the nearest smaller key, as
// decima-sim's pre_process_task_duration does.
func cleanFirstWave(first, fresh map[int][]float64, keys []int) map[int][]float64 {
	out := make(map[int][]float64, len(first))
	var last []float64
	for _, k := range keys {
		pending := map[float64]int{}
		for _, d := range fresh[k] {
			pending[d]++
		}
		var clean []float64
		for _, d := range first[k] {
			if pending[d] > 0 {
				pending[d]--
				continue
			}
			clean = append(clean, d)
		}
		if len(clean) == 0 {
			clean = last
		}
		out[k] = clean
		last = clean
	}
	return out
}

// decimaKey is decima-sim's executor key for a job holding e executors: the data point e maps to
// (e itself, the nearest data point for e outside their range, or of the two around it the one
// decima-sim draws more often — it draws the lower one with probability (e−lower)/(upper−lower),
// ties to the lower), and the stage's largest measured key when the stage was never measured with
// that many executors.
func (m measurements) decimaKey(e int) int {
	k := DataPoints[len(DataPoints)-1]
	switch {
	case e <= DataPoints[0]:
		k = DataPoints[0]
	case e < k:
		for i := 1; i < len(DataPoints); i++ {
			lo, hi := DataPoints[i-1], DataPoints[i]
			if e == hi {
				k = hi
				break
			}
			if e > lo && e < hi {
				if 2*(e-lo) >= hi-lo {
					k = lo
				} else {
					k = hi
				}
				break
			}
		}
	}
	if _, ok := m.first[k]; ok {
		return k
	}
	return m.keys[len(m.keys)-1]
}

// fixedKey is the measurement for e executors or the largest below it, else the smallest.
func (m measurements) fixedKey(e int) int {
	best := m.keys[0]
	for _, k := range m.keys {
		if k <= e {
			best = k
		}
	}
	return best
}

// waves splits a stage's tasks the way decima-sim draws their durations when its job holds held
// executors and held−joined of them were already the job's before the stage (they ran its
// parents): each of the joined executors runs its first task of the job (after moving to it, and
// with JVM warm-up: a fresh duration), each other executor its first task of the stage (first
// wave), and the tasks beyond one per executor are later waves (rest).
func waves(tasks, held, joined int) (join, first, rest int) {
	inJob := min(tasks, held)
	join = min(max(joined, 0), inJob)
	return join, inJob - join, tasks - inJob
}

// durations returns the stage's per-task durations in ms for key k: the join tasks of executors
// new to the job first (a fresh duration, or with noWarmUp a first-wave one, plus move, the
// moving delay), then the first wave, then the rest, each drawn deterministically from its
// measured list (spread evenly over it, in measured order) with decima-sim's fallbacks for empty
// lists. ok is false when no duration is measured for the key at all.
func (m measurements) durations(k, join, first, rest int, noWarmUp bool, move float64) (out []float64, ok bool) {
	firstList, restList, freshList := m.first[k], m.rest[k], m.fresh[k]
	raw := slices.Concat(firstList, freshList)
	if noWarmUp && len(firstList) == 0 {
		firstList = freshList // nothing but warm-up tasks measured: better than nothing
	}
	pick := func(list []float64, n int, add float64) bool {
		if n == 0 {
			return true
		}
		if len(list) == 0 {
			return false
		}
		for i := range n {
			out = append(out, list[i*len(list)/n]+add)
		}
		return true
	}
	// Executor new to the job: a warm-up duration, else a first-wave one plus the warm-up delay.
	if noWarmUp {
		if !pick(firstList, join, move) && !pick(freshList, join, move) {
			return nil, false
		}
	} else if !pick(freshList, join, move) && !pick(firstList, join, move+WarmupDelay) {
		return nil, false
	}
	// First task on the stage: first wave, else (rarely) a fresh duration.
	if !pick(firstList, first, 0) && !pick(freshList, first, 0) {
		return nil, false
	}
	// Later waves: rest, else as a first task.
	if !pick(restList, rest, 0) && !pick(firstList, rest, 0) && !pick(raw, rest, 0) {
		return nil, false
	}
	return out, true
}

// heldExecutors returns, per stage, how many executors its job holds while it runs: decima-sim
// keeps the executors a job gathered (idle ones wait in the job's free pool), so a stage runs with
// the most tasks any stage on its path has had, capped at cap.
func heldExecutors(stages []traces.Stage, cap int) []int {
	held := make([]int, len(stages))
	done := make([]bool, len(stages))
	var visit func(int) int
	visit = func(i int) int {
		if done[i] {
			return held[i]
		}
		done[i] = true // the stages form a DAG (checked before)
		h := int(min(int64(stages[i].Tasks), int64(cap)))
		for _, p := range stages[i].Parents {
			h = max(h, visit(int(p)))
		}
		held[i] = h
		return h
	}
	for i := range stages {
		visit(i)
	}
	return held
}

// parentHeld is the executors a stage's job held before it: the most any parent held.
func parentHeld(st *traces.Stage, held []int) int {
	h := 0
	for _, p := range st.Parents {
		h = max(h, held[p])
	}
	return h
}

// toTimes converts ms to µs durations of at least MinTaskDuration, with their rounded mean.
func toTimes(ms []float64) ([]traces.Time, traces.Time) {
	durs := make([]traces.Time, len(ms))
	var sum float64
	for i, x := range ms {
		durs[i] = max(MinTaskDuration, traces.Time(math.Round(x*1000)))
		sum += float64(durs[i])
	}
	return durs, max(MinTaskDuration, traces.Time(math.Round(sum/float64(len(ms)))))
}
