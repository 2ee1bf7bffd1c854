package predict

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestClone warms a predictor (secondary features and the median filter on, so every kind of
// state exists), clones it, then replays the same continuation through the clone and through a
// predictor warmed afresh: every estimate and candidate must agree, and the original must be
// left exactly as it was, however much its clone learned.
func TestClone(t *testing.T) {
	jobs := randomJobs(rand.New(rand.NewPCG(5, 5)), 3000)
	warm, rest := jobs[:2000], jobs[2000:]
	o := Options{Secondary: true, MedianFilter: true}
	fresh := mustJVu(t, o)
	orig := mustJVu(t, o)
	for _, p := range []*JVu{fresh, orig} {
		if _, err := Evaluate(warm, p); err != nil {
			t.Fatal(err)
		}
	}
	// Leave a job pending in the original, so that Clone copies a pending job's candidates.
	pendingJob := rest[0]
	orig.PredictJob(&pendingJob, pendingJob.Submit)
	fresh.PredictJob(&pendingJob, pendingJob.Submit)
	before := orig.Stats()
	c := orig.Clone()
	run := func(p *JVu) (ests []Estimate, cands [][]float64) {
		var d Detail
		p.ObserveJob(&pendingJob, 77)
		err := Replay(rest[1:], p, func(_ int, j *Job) error {
			ests = append(ests, p.PredictDetail(j, j.Submit, &d))
			cands = append(cands, slices.Clone(d.Cands))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return ests, cands
	}
	ce, cc := run(c)
	fe, fc := run(fresh)
	if len(ce) != len(fe) {
		t.Fatalf("%d estimates from the clone, %d from the fresh predictor", len(ce), len(fe))
	}
	for i := range ce {
		if ce[i].Runtime != fe[i].Runtime || ce[i].Pair != fe[i].Pair || !sameCands(cc[i], fc[i]) {
			t.Fatalf("job %d: clone %+v, fresh %+v", i, ce[i], fe[i])
		}
	}
	if after := orig.Stats(); !reflect.DeepEqual(before, after) {
		t.Errorf("the original changed while its clone learned:\n%+v\n%+v", before, after)
	}
	// The original, continued, still predicts as the fresh predictor did.
	oe, _ := run(orig)
	for i := range oe {
		if oe[i].Runtime != fe[i].Runtime {
			t.Fatalf("job %d: original after cloning %v, fresh %v", i, oe[i].Runtime, fe[i].Runtime)
		}
	}
}
