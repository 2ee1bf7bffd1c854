package external

import (
	"encoding/json"
	"testing"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// sampleJob is a three-stage job description, the largest part of a typical call.
func sampleJob() *policies.JobInfo {
	info := &policies.JobInfo{ID: 123456, Name: "q17", Submit: 42 * traces.Second, Queue: 2, Class: "be", Weight: 1, Tasks: 60}
	for s := range 3 {
		info.Stages = append(info.Stages, policies.StageInfo{Name: "stage", Tasks: 20, Demand: traces.VecOf(0.5, 1.25), Estimate: 37 * traces.Second})
		if s > 0 {
			info.Stages[s].Parents = []int32{int32(s - 1)}
		}
	}
	return info
}

// BenchmarkEncodeArrival compares the hand-written appender with encoding/json on one job
// description (the same fields).
func BenchmarkEncodeArrival(b *testing.B) {
	info := sampleJob()
	b.Run("codec=appender", func(b *testing.B) {
		var e enc
		for b.Loop() {
			e.b = e.b[:0]
			e.job(7, info, 2)
		}
		b.ReportMetric(float64(len(e.b)), "bytes")
	})
	b.Run("codec=encoding-json", func(b *testing.B) {
		type stage struct {
			Name     string  `json:"name"`
			Tasks    int32   `json:"tasks"`
			Demand   []int64 `json:"demand"`
			Estimate int64   `json:"estimate"`
			Parents  []int32 `json:"parents"`
		}
		type job struct {
			Job      int32   `json:"job"`
			ID       int64   `json:"id"`
			Name     string  `json:"name"`
			Submit   int64   `json:"submit"`
			Queue    int     `json:"queue"`
			Class    string  `json:"class"`
			Priority int     `json:"priority"`
			Weight   float64 `json:"weight"`
			Deadline int64   `json:"deadline"`
			Tasks    int64   `json:"tasks"`
			Stages   []stage `json:"stages"`
		}
		var n int
		for b.Loop() {
			j := job{Job: 7, ID: info.ID, Name: info.Name, Submit: info.Submit, Queue: info.Queue, Class: info.Class, Weight: info.Weight, Tasks: info.Tasks}
			for _, s := range info.Stages {
				j.Stages = append(j.Stages, stage{s.Name, s.Tasks, s.Demand[:2], s.Estimate, s.Parents})
			}
			out, err := json.Marshal(j)
			if err != nil {
				b.Fatal(err)
			}
			n = len(out)
		}
		b.ReportMetric(float64(n), "bytes")
	})
}

// BenchmarkDecodePlan decodes a plan of ten starts with the canonical-form parser and with the
// strict encoding/json decoder it falls back to.
func BenchmarkDecodePlan(b *testing.B) {
	line := []byte(`{"type":"plan","call":12,"starts":[[1,0,0,3],[2,1,0,1],[3,0,1,2],[4,0,2,1],[5,2,3,4],[6,0,0,1],[7,1,1,1],[8,0,4,2],[9,0,5,1],[10,3,6,1]],"preempts":[]}` + "\n")
	for _, codec := range []string{"fast", "encoding-json"} {
		b.Run("codec="+codec, func(b *testing.B) {
			var r reply
			var p policies.Plan
			for b.Loop() {
				if codec == "fast" {
					if !fastPlan(line, &r) {
						b.Fatal("fastPlan refused the canonical form")
					}
				} else {
					r = reply{}
					if err := decode(line, &r); err != nil {
						b.Fatal(err)
					}
				}
				p.Reset()
				if err := r.toPlan(&p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
