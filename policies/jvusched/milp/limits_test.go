package milp

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/policies/jvusched/strl"
	"github.com/schedlab/schedlab/traces"
)

// TestLimitsBoundTheModel: every testdata problem compiles within limits set to its own size,
// and is refused with a SizeError (ErrTooLarge) naming the dimension when any limit is one less.
func TestLimitsBoundTheModel(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.problem")
	if len(files) == 0 {
		t.Fatal("no testdata problems")
	}
	for _, f := range files {
		p := readProblem(t, f)
		prog, err := Compile(p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		m := prog.Model
		exact := Limits{Vars: m.NumVars(), Rows: m.NumRows(), Nonzeros: m.NumNonzeros()}
		if _, err := Compile(readProblem(t, f), Options{Limits: exact}); err != nil {
			t.Errorf("%s: within limits equal to its size %+v: %v", f, exact, err)
		}
		for _, tc := range []struct {
			what string
			l    Limits
		}{
			{"variables", Limits{Vars: exact.Vars - 1}},
			{"rows", Limits{Rows: exact.Rows - 1}},
			{"nonzeros", Limits{Nonzeros: exact.Nonzeros - 1}},
		} {
			_, err := Compile(readProblem(t, f), Options{Limits: tc.l})
			var se *SizeError
			if !errors.Is(err, ErrTooLarge) || !errors.As(err, &se) || !strings.Contains(se.What, tc.what) || se.Size <= se.Limit {
				t.Errorf("%s: limits %+v: got %v, want a SizeError on %s", f, tc.l, err, tc.what)
			}
		}
	}
}

// TestLimitsStopBeforeAllocating: a problem whose model would have billions of nonzeros (a
// 20,000-machine window of 65,536 slices, every machine its own partition) is refused by the
// limits at once, without building the supply table or the model.
func TestLimitsStopBeforeAllocating(t *testing.T) {
	var ms []traces.Machine
	var leaves []strl.Expr
	for i := range 256 {
		ms = append(ms, traces.Machine{Name: fmt.Sprintf("m%d", i)})
		leaves = append(leaves, &strl.NCk{Set: strl.Machines(fmt.Sprintf("m%d", i)), K: 1, Start: 0, Dur: 1 << 40, Value: 1})
	}
	p := &Problem{Machines: ms, Grid: Grid{Quantum: 1, Slices: MaxSlices}, Expr: &strl.Sum{Children: leaves}}
	_, err := Compile(p, Options{Limits: Limits{Vars: 100_000, Rows: 100_000, Nonzeros: 2_000_000}})
	var se *SizeError
	if !errors.As(err, &se) || se.What != "supply cells (partitions × slices)" || se.Size != 256*MaxSlices {
		t.Fatalf("got %v, want the supply cells refused", err)
	}
}
