package experiments

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/policies/bpf"
)

// fig9Config is BPF's Fig. 9 scenario (experiments/bpf/fig9.yaml) under the given policy:
// three LQs that BPF admits as hard, soft and elastic, and a TQ.
func fig9Config(t *testing.T, policy string) Config {
	t.Helper()
	v := NewViper()
	v.Set("workload.name", "../policies/bpf/testdata/fig9_jobs.txt")
	v.Set("workload.machines", 40)
	v.Set("workload.pooled", true)
	v.Set("policy.name", policy)
	v.Set("policy.level", "queue")
	v.Set("policy.class_order", []any{"lq", "tq"})
	v.Set("engine.cycle_s", 0)
	if policy != "drf" {
		v.Set("policy.params.queues.bursty0.period_s", 150)
		v.Set("policy.params.queues.bursty1.period_s", 110)
		v.Set("policy.params.queues.bursty2.period_s", 60)
	}
	c, err := Resolve(v)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAdmissionsAreWrittenWithTheResults runs Fig. 9's scenario and checks admissions.json and
// the per-class counts in summary.json: BPF admits LQ-0 hard, LQ-1 soft, LQ-2 and the TQ
// elastic; N-BPF has no soft class; DRF admits nothing and writes no admissions.
const admissionsFile = bpf.AdmissionsDoc + ".json"

// admissionIndicators lists the per-queue indicator metrics expected for the queues of classes.
func admissionIndicators(classes map[string]string) []string {
	var out []string
	for q := range classes {
		for _, cl := range []string{"H", "S", "E", "rejected"} {
			out = append(out, "admission."+q+"."+cl)
		}
	}
	return out
}

func TestAdmissionsAreWrittenWithTheResults(t *testing.T) {
	tests := []struct {
		policy string
		class  map[string]string // queue → class
		counts map[string]int
	}{
		{"bpf", map[string]string{"bursty0": "H", "bursty1": "S", "bursty2": "E", "batch0": "E"}, map[string]int{"H": 1, "S": 1, "E": 2, "rejected": 0}},
		{"nbpf", map[string]string{"bursty0": "H", "bursty1": "E", "bursty2": "E", "batch0": "E"}, map[string]int{"H": 1, "S": 0, "E": 3, "rejected": 0}},
		{"drf", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			var files [][]byte
			for i := range 2 {
				o, err := Run(fig9Config(t, tt.policy))
				if err != nil {
					t.Fatal(err)
				}
				dir := filepath.Join(t.TempDir(), string(rune('a'+i)))
				if err := o.WriteOutputs(dir); err != nil {
					t.Fatal(err)
				}
				raw, err := os.ReadFile(filepath.Join(dir, SummaryFile))
				if err != nil {
					t.Fatal(err)
				}
				var doc SummaryDoc
				if err := json.Unmarshal(raw, &doc); err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(dir, admissionsFile))
				if tt.class == nil {
					if err == nil {
						t.Errorf("%s wrote %s", tt.policy, admissionsFile)
					}
					if o.Report != nil || doc.Metrics.Policy != nil || bytes.Contains(raw, []byte(`"admissions"`)) {
						t.Errorf("%s: admissions recorded: %v %v", tt.policy, o.Report, doc.Metrics.Policy)
					}
					if doc.Metrics.Jobs == 0 {
						t.Errorf("summary metrics lost: %s", raw)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, b)
				var recs []bpf.AdmissionRecord
				if err := json.Unmarshal(b, &recs); err != nil {
					t.Fatal(err)
				}
				got := map[string]string{}
				for j, r := range recs {
					got[r.Queue] = r.Class
					if j > 0 && (r.Time < recs[j-1].Time || r.Time == recs[j-1].Time && r.Index < recs[j-1].Index) {
						t.Errorf("record %d (%s at %gs) out of order", j, r.Queue, r.Time)
					}
					if r.Kind == "lq" && (r.Period <= 0 || r.Demand["mem"] <= 0 || r.Reason == "") {
						t.Errorf("LQ record %+v lacks its burst parameters", r)
					}
				}
				if len(got) != len(tt.class) {
					t.Errorf("admitted %v, want %v", got, tt.class)
				}
				for q, want := range tt.class {
					if got[q] != want {
						t.Errorf("%s: class %q, want %q (records %v)", q, got[q], want, got)
					}
				}
				if len(doc.Metrics.Policy) != len(tt.counts)+len(admissionIndicators(tt.class)) {
					t.Errorf("summary policy metrics = %v, want admissions %v and per-queue indicators", doc.Metrics.Policy, tt.counts)
				}
				for q, want := range tt.class {
					for _, cl := range []string{"H", "S", "E", "rejected"} {
						v := 0.0
						if cl == want {
							v = 1
						}
						if got, ok := doc.Metrics.Policy["admission."+q+"."+cl]; !ok || got != v {
							t.Errorf("summary admission.%s.%s = %g (present %v), want %g", q, cl, got, ok, v)
						}
					}
				}
				for k, want := range tt.counts {
					if got := doc.Metrics.Policy["admissions."+k]; got != float64(want) {
						t.Errorf("summary admissions.%s = %g, want %d", k, got, want)
					}
				}
				if !bytes.Contains(raw, []byte(`"admissions": {`)) {
					t.Errorf("summary.json does not nest the admission counts: %s", raw)
				}
				if doc.Metrics.Jobs == 0 || doc.Metrics.ByQueue["bursty0"].Jobs == 0 {
					t.Errorf("summary metrics lost beside the admissions: %s", raw)
				}
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Errorf("%s differs between identical runs", admissionsFile)
			}
		})
	}
}
