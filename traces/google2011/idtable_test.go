package google2011

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"
)

// TestIDTableMatchesMap drives idTable and a Go map with the same random puts, gets and deletes
// (keys from small and large ranges, so probe runs wrap around and collide) and compares them.
func TestIDTableMatchesMap(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var tab idTable
		ref := map[int64]*jobState{}
		span := int64(50 + rng.IntN(5000))
		for step := range 20000 {
			id := rng.Int64N(span)
			if seed%2 == 1 {
				id = id*6252007148 + 1 // trace-like large IDs
			}
			switch rng.IntN(3) {
			case 0:
				st := &jobState{seq: uint64(step)}
				tab.put(id, st)
				ref[id] = st
			case 1:
				tab.del(id)
				delete(ref, id)
			default:
				if got, want := tab.get(id), ref[id]; got != want {
					t.Fatalf("seed %d step %d: get(%d) = %p, want %p", seed, step, id, got, want)
				}
			}
			if tab.len() != len(ref) {
				t.Fatalf("seed %d step %d: len %d, want %d", seed, step, tab.len(), len(ref))
			}
		}
		for id, want := range ref {
			if got := tab.get(id); got != want {
				t.Fatalf("seed %d: final get(%d) = %p, want %p", seed, id, got, want)
			}
		}
		n := 0
		tab.each(func(*jobState) { n++ })
		if n != len(ref) {
			t.Fatalf("seed %d: each visited %d, want %d", seed, n, len(ref))
		}
	}
}

// TestRecycledStateIsFresh guards the field-by-field reset in jobScanner.state: a state whose
// every field was set, once recycled, must come back equal to a new one.
func TestRecycledStateIsFresh(t *testing.T) {
	var s jobScanner
	want := *s.state(1, 0)
	want.tasks = taskSet{}
	st := s.state(2, 0)
	fillFields(reflect.ValueOf(st).Elem())
	st.tasks.add(3, running, true)
	st.tasks.add(1<<21, dead, true)
	st.runs.get(3, 5).attempts = 2
	st.runs.get(1<<21, 6)
	s.open.del(st.rec.ID)
	s.recycle(st)
	got := s.state(1, 0)
	if got != st {
		t.Fatal("state did not reuse the recycled jobState")
	}
	got.seq = want.seq // creation order differs by design
	cmp := *got
	if len(cmp.tasks.lives) != 0 || len(cmp.tasks.req) != 0 || cmp.tasks.big != nil {
		t.Errorf("recycled task set not empty: %+v", cmp.tasks)
	}
	cmp.tasks = taskSet{}
	if len(cmp.runs.runs) != 0 || len(cmp.runs.pos) != 0 || cmp.runs.big != nil {
		t.Errorf("recycled task runs not empty: %+v", cmp.runs)
	}
	cmp.runs = taskTable{}
	if !math.IsNaN(cmp.rec.CPURequest) || !math.IsNaN(cmp.rec.MemRequest) {
		t.Errorf("recycled requests %v, %v, want NaN", cmp.rec.CPURequest, cmp.rec.MemRequest)
	}
	cmp.rec.CPURequest, cmp.rec.MemRequest = 0, 0 // NaN != NaN for DeepEqual
	want.rec.CPURequest, want.rec.MemRequest = 0, 0
	if !reflect.DeepEqual(cmp, want) {
		t.Errorf("recycled state\n%+v\nwant\n%+v", cmp, want)
	}
}

// fillFields sets every settable scalar and string field of v (recursively) to a non-zero value.
func fillFields(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if n := v.Type().Field(i).Name; n == "tasks" || n == "runs" {
				continue
			}
			f := v.Field(i)
			// The state's fields are unexported, and reflect sets only exported ones: a
			// writable view of each field through unsafe is the one way to fill them all, so
			// that a field added later without a reset in recycle fails this test. Test-only.
			fillFields(reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		v.SetString("x")
	}
}
