package predict

import (
	"container/heap"
	"fmt"
	"slices"

	"github.com/schedlab/schedlab/traces"
)

// SortJobs orders jobs by submission time (stable, so equal times keep their trace order), as
// Replay requires.
func SortJobs(jobs []Job) {
	slices.SortStableFunc(jobs, func(a, b Job) int {
		switch {
		case a.Submit < b.Submit:
			return -1
		case a.Submit > b.Submit:
			return 1
		}
		return 0
	})
}

// Replay runs jobs (in submission order) through m on one timeline, the way an online
// predictor would see them: before each submission at time t it feeds m every completion with
// End < t, in (End, index) order; then it calls submit, which must ask m for the prediction
// (PredictJob, or a richer method of the concrete model). A completion at exactly t is not yet
// visible to a submission at t: predictions use only jobs that completed strictly before the
// submission. A job that never completes (End < 0) is forgotten right after its prediction.
// Completions still outstanding after the last submission are fed at the end.
//
// Only completions are kept between submissions (a heap of at most the jobs in flight), so
// the timeline adds O(in-flight) memory to the jobs slice itself. Jobs out of submission
// order, and completions inconsistent with their submission (End < Submit, Runtime outside
// [0, End−Submit]), are reported as errors.
func Replay(jobs []Job, m Model, submit func(i int, j *Job) error) error {
	var h completions
	for i := range jobs {
		j := &jobs[i]
		if i > 0 && j.Submit < jobs[i-1].Submit {
			return fmt.Errorf("predict: job %d (index %d) is submitted at %d µs, before job %d (index %d) at %d µs: jobs must be in submission order (see SortJobs)",
				j.ID, i, j.Submit, jobs[i-1].ID, i-1, jobs[i-1].Submit)
		}
		if j.End >= 0 && (j.End < j.Submit || j.Runtime < 0 || j.Runtime > j.End-j.Submit) {
			return fmt.Errorf("predict: job %d (index %d): completion at %d µs with runtime %d µs is inconsistent with its submission at %d µs",
				j.ID, i, j.End, j.Runtime, j.Submit)
		}
		for len(h) > 0 && h[0].end < j.Submit {
			c := heap.Pop(&h).(completion)
			m.ObserveJob(&jobs[c.index], jobs[c.index].Runtime)
		}
		if err := submit(i, j); err != nil {
			return err
		}
		if j.End < 0 {
			m.Forget(j.ID)
			continue
		}
		heap.Push(&h, completion{end: j.End, index: i})
	}
	for len(h) > 0 {
		c := heap.Pop(&h).(completion)
		m.ObserveJob(&jobs[c.index], jobs[c.index].Runtime)
	}
	return nil
}

// Evaluate replays jobs through m and returns each job's prediction, in jobs order.
func Evaluate(jobs []Job, m Model) ([]Estimate, error) {
	out := make([]Estimate, len(jobs))
	err := Replay(jobs, m, func(i int, j *Job) error {
		out[i] = m.PredictJob(j, j.Submit)
		return nil
	})
	return out, err
}

type completion struct {
	end   traces.Time
	index int
}

// completions is a min-heap by (end, index).
type completions []completion

func (h completions) Len() int { return len(h) }
func (h completions) Less(a, b int) bool {
	if h[a].end != h[b].end {
		return h[a].end < h[b].end
	}
	return h[a].index < h[b].index
}
func (h completions) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *completions) Push(x any)   { *h = append(*h, x.(completion)) }
func (h *completions) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// RelError returns the relative error (predicted − actual) / actual, and false when actual
// is not positive.
func RelError(predicted, actual traces.Time) (float64, bool) {
	if actual <= 0 {
		return 0, false
	}
	return float64(predicted-actual) / float64(actual), true
}
