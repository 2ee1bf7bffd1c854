package bpf

import (
	"slices"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// AdmissionsDoc is the name of the document holding a run's admission records
// (admissions.json beside the run's other outputs).
const AdmissionsDoc = "admissions"

// AdmissionClasses are BPF's admission classes, in the order their counts are reported.
var AdmissionClasses = []Class{Hard, Soft, Elastic, Rejected}

// AdmissionRecord is one queue's admission decision as admissions.json holds it. Times are
// seconds; the burst fields are zero for TQs and for LQs whose burst parameters are unknown.
type AdmissionRecord struct {
	Time     float64 `json:"time_s"`
	Queue    string  `json:"queue"`
	Index    int     `json:"index"`
	Kind     string  `json:"kind"`  // lq or tq
	Class    string  `json:"class"` // H, S, E or rejected
	Failed   string  `json:"failed_condition"`
	Reason   string  `json:"reason"`
	Queues   int     `json:"queues"` // |H|+|S|+|E|+1 when the decision was made
	Declared bool    `json:"declared"`
	Start    float64 `json:"burst_start_s"`
	Duration float64 `json:"burst_duration_s"`
	Period   float64 `json:"period_s"`
	// Demand is the burst's demand per resource dimension (the workload's dimension names).
	Demand map[string]float64 `json:"demand,omitempty"`
	Bursts int                `json:"bursts"`
}

// Report implements policies.Reporter: the admission records as admissions.json (ordered by
// decision time, then queue index, whatever order the policy kept them in) and the number of
// queues admitted to each class as the metrics admissions.H, admissions.S, admissions.E and
// admissions.rejected, and each queue's class as the indicators admission.<queue>.<class> (1 for
// the class it was admitted to, 0 for the other three), so claims can check a queue's class.
func (b *BPF) Report(c policies.ReportContext) (*policies.Report, error) {
	recs := slices.Clone(b.recs)
	slices.SortStableFunc(recs, func(x, y Admission) int {
		if x.Time != y.Time {
			if x.Time < y.Time {
				return -1
			}
			return 1
		}
		return x.Index - y.Index
	})
	out := make([]AdmissionRecord, 0, len(recs))
	metrics := map[string]float64{}
	for _, cl := range AdmissionClasses {
		metrics["admissions."+cl.String()] = 0
	}
	for _, a := range recs {
		r := AdmissionRecord{
			Time: traces.Seconds(a.Time), Queue: a.Queue, Index: a.Index, Kind: a.Kind.String(),
			Class: a.Class.String(), Failed: a.Failed.String(), Reason: a.Reason, Queues: a.Queues,
			Declared: a.Declared, Start: traces.Seconds(a.Start), Duration: traces.Seconds(a.Duration),
			Period: traces.Seconds(a.Period), Bursts: a.Bursts,
		}
		if !a.Demand.IsZero() {
			r.Demand = map[string]float64{}
			for i, d := range c.Dims {
				if i < traces.MaxDims {
					r.Demand[d] = a.Demand.Float(i)
				}
			}
		}
		out = append(out, r)
		metrics["admissions."+a.Class.String()]++
		for _, cl := range AdmissionClasses {
			v := 0.0
			if cl == a.Class {
				v = 1
			}
			metrics["admission."+a.Queue+"."+cl.String()] = v
		}
	}
	return &policies.Report{Metrics: metrics, Docs: []policies.Doc{{Name: AdmissionsDoc, Value: out}}}, nil
}
