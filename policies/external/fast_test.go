package external

import (
	"reflect"
	"testing"
)

// FuzzFastPlan checks the canonical-form parser against the strict decoder: wherever fastPlan
// accepts a line, decode must accept it too and read the same plan.
func FuzzFastPlan(f *testing.F) {
	for _, s := range []string{
		`{"type":"plan","call":1,"starts":[],"preempts":[]}`,
		`{"type":"plan","call":12,"starts":[[1,0,0,3],[2,1,0,1]],"preempts":[[4,0,2]]}` + "\n",
		`{"type":"plan","call":-3,"starts":[[1,0,0]],"preempts":[]}`,
		`{"type":"plan","call":1,"starts":[[01,0,0,1]],"preempts":[]}`,
		`{"type":"plan", "call":1,"starts":[],"preempts":[]}`,
		`{"type":"plan","call":1,"starts":[[1,2,3,4]],"preempts":[]}x`,
		`{"type":"plan","call":1,"starts":[[9999999999999999,2,3,4]],"preempts":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast reply
		if !fastPlan(line, &fast) {
			return
		}
		var strict reply
		if err := decode(line, &strict); err != nil {
			t.Fatalf("fastPlan accepted %q, decode rejects it: %v", line, err)
		}
		norm := func(r *reply) {
			if len(r.Starts) == 0 {
				r.Starts = nil
			}
			if len(r.Preempts) == 0 {
				r.Preempts = nil
			}
		}
		norm(&fast)
		norm(&strict)
		if !reflect.DeepEqual(fast, strict) {
			t.Fatalf("%q: fastPlan read %+v, decode %+v", line, fast, strict)
		}
	})
}

func TestFastPlanRejectsWhatItDoesNotKnow(t *testing.T) {
	for _, s := range []string{
		`{"type":"plan","call":1,"starts":[],"preempts":[],"x":1}`,
		`{"call":1,"type":"plan","starts":[],"preempts":[]}`,
		`{"type":"error","message":"no"}`,
		`{"type":"plan","call":1,"starts":[[1,2,3,4],],"preempts":[]}`,
		`{"type":"plan","call":1.5,"starts":[],"preempts":[]}`,
		`{"type":"plan","call":1,"starts":[[]],"preempts":[]}`,
	} {
		var r reply
		if fastPlan([]byte(s), &r) {
			t.Errorf("fastPlan accepted %s", s)
		}
	}
	var r reply
	if !fastPlan([]byte(`{"type":"plan","call":7,"starts":[[1,2,3,4],[5,6,7,8]],"preempts":[[9,1,2]]}`+"\n"), &r) || r.Call != 7 || len(r.Starts) != 2 || r.Starts[1][3] != 8 || r.Preempts[0][2] != 2 {
		t.Fatalf("fastPlan: %+v", r)
	}
}
