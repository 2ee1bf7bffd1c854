package milp

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/schedlab/schedlab/internal/solvertest"
	"github.com/schedlab/schedlab/internal/testutil"
	"github.com/schedlab/schedlab/policies/jvusched/strl"
	"github.com/schedlab/schedlab/policies/solver"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func readProblem(t testing.TB, path string) *Problem {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseProblem(string(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

var (
	sharedSolver     *solver.Solver
	sharedSolverOnce sync.Once
	sharedSolverErr  error
)

// solve compiles and solves p to proven optimality.
func solve(t testing.TB, p *Problem) (*Program, *solver.Result) {
	t.Helper()
	solvertest.Need(t)
	sharedSolverOnce.Do(func() { sharedSolver, sharedSolverErr = solver.NewSolver(context.Background()) })
	if sharedSolverErr != nil {
		t.Fatal(sharedSolverErr)
	}
	prog, err := Compile(p, Options{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sharedSolver.Solve(context.Background(), prog.Model, solver.Options{MIPGap: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != solver.StatusOptimal {
		t.Fatalf("status %s", res.Status)
	}
	if _, viol := prog.Model.Eval(res.Values); viol > 1e-6 {
		t.Fatalf("solution violates the model by %g", viol)
	}
	return prog, res
}

func TestGoldenMILPs(t *testing.T) {
	files, err := filepath.Glob("testdata/*.problem")
	if err != nil || len(files) == 0 {
		t.Fatalf("no problems: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p := readProblem(t, f)
			prog, err := Compile(p, Options{Name: "golden"})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := WriteModel(&b, prog.Model); err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, strings.TrimSuffix(f, ".problem")+".milp", b.Bytes(), *update)
		})
	}
}

// TestFig6 is JamaisVu's worked example (§4.1.3): the optimum 100 + 100 − 11 = 189 preempts
// job 1 and starts jobs 2 and 3 at t = 10 on their preferred resources.
func TestFig6(t *testing.T) {
	p := readProblem(t, "testdata/fig6.problem")
	prog, res := solve(t, p)
	if math.Abs(res.Objective-189) > 1e-9 {
		t.Fatalf("optimum %v, want 189", res.Objective)
	}
	if got := bruteForce(t, p); math.Abs(got-189) > 1e-9 {
		t.Fatalf("brute force %v, want 189", got)
	}
	choices, err := prog.Decode(res.Values)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ch := range choices {
		if ch.Chosen {
			got = append(got, strl.Format(prog.Leaves[ch.Leaf].Expr))
		}
	}
	want := []string{
		"killnck[job1]({m2,m3}, 2, 10, 10, 11)",
		"nck({m3,m4}, 2, 10, 20, 100)",
		"nck({m1,m2}, 2, 10, 20, 100)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chosen leaves %q, want %q", got, want)
	}
	// Without the preemption option the best is both jobs at 20 on any machines: 1 + 1.
	p.Expr.(*strl.Sum).Children = p.Expr.(*strl.Sum).Children[1:]
	if _, res := solve(t, p); math.Abs(res.Objective-2) > 1e-9 {
		t.Errorf("without preemption: optimum %v, want 2", res.Objective)
	}
}

// TestTestdataOptima solves every testdata problem and checks the optimum against the brute
// force.
func TestTestdataOptima(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.problem")
	for _, f := range files {
		p := readProblem(t, f)
		_, res := solve(t, p)
		if want := bruteForce(t, p); math.Abs(res.Objective-want) > 1e-9 {
			t.Errorf("%s: MILP optimum %v, brute force %v", f, res.Objective, want)
		}
	}
}

// TestPartitions checks the grouping of identical machines and the per-slice capacity.
func TestPartitions(t *testing.T) {
	p := readProblem(t, "testdata/attributes.problem")
	prog, err := Compile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Partition{{Machines: []int{0, 1, 2}}, {Machines: []int{3, 4, 5}}}; !reflect.DeepEqual(prog.Partitions, want) {
		t.Errorf("partitions %v, want %v", prog.Partitions, want)
	}
	if want := [][]int{{2, 2, 3, 3}, {2, 2, 2, 2}}; !reflect.DeepEqual(prog.Avail, want) {
		t.Errorf("avail %v, want %v", prog.Avail, want)
	}
	if prog.Binaries != 7 || prog.Integers != 2 {
		t.Errorf("%d binaries, %d integers; want 5, 2", prog.Binaries, prog.Integers)
	}
}

func TestProblemRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.problem")
	for _, f := range files {
		p := readProblem(t, f)
		text := FormatProblem(p)
		q, err := ParseProblem(text)
		if err != nil {
			t.Fatalf("%s: re-parse: %v\n%s", f, err, text)
		}
		if !reflect.DeepEqual(p, q) {
			t.Errorf("%s: round trip changed the problem:\n%s", f, text)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	base := "grid origin=10 quantum=10 slices=2\nmachine m1 busy=1\nmachine m2\n"
	for _, tt := range []struct{ text, want string }{
		{base + "expr nck({m1}, 1, 30, 10, 1)", "outside the window"},
		{base + "expr nck({m1}, 1, 0, 10, 1)", "outside the window"},
		{base + "expr killnck({m2}, 1, 10, 10, 1)", "held only for 0 slices"},
		{base + "expr killnck({m1}, 1, 10, 20, 1)", "held only for 1 slices"},
		{base + "expr killnck({m1}, 1, 0, 10, 1)", "before the window starts"},
		{base + "expr sum(killnck({m1}, 1, 10, 10, 1), killnck({m1}, 1, 10, 10, 1))", "in two kill sets"},
		{base + "expr nck({m9}, 1, 10, 10, 1)", `no machine "m9"`},
		{"grid origin=0 quantum=1 slices=1\nmachine a\nmachine a\nexpr nck({a}, 1, 0, 1, 1)", "two machines called"},
		{"grid origin=0 quantum=0 slices=1\nmachine a\nexpr nck({a}, 1, 0, 1, 1)", "quantum 0"},
		{"machine a\nexpr nck({a}, 1, 0, 1, 1)", "expr before grid"},
		{"grid origin=0 quantum=1 slices=1\nmachine a busy=x\nexpr nck({a}, 1, 0, 1, 1)", "line 2: busy"},
		{"grid origin=0 quantum=1 slices=1\nmachine a\nexpr\nsum(\n  nck({a}, 0, 0, 1, 1))", "line 5, column"},
		{"grid origin=0 quantum=1 slices=1\nmachine a\n", "no expr line"},
		{"grid origin=0 quantum=1 slices=1\nbogus\n", "unknown directive"},
	} {
		p, err := ParseProblem(tt.text)
		if err == nil {
			_, err = Compile(p, Options{})
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want an error containing %q", tt.text, err, tt.want)
		}
	}
}

// TestInfeasibleLeafIsFixed checks that a leaf asking for more machines than its set has can
// never be chosen, and drags a min that needs it down with it.
func TestInfeasibleLeafIsFixed(t *testing.T) {
	p, err := ParseProblem("grid origin=0 quantum=1 slices=1\nmachine a\nmachine b\nexpr sum(nck({a,b}, 3, 0, 1, 5), min(nck({a}, 1, 0, 1, 2), nck({b}, 2, 0, 1, 1)), nck({b}, 1, 0, 1, 1))")
	if err != nil {
		t.Fatal(err)
	}
	prog, res := solve(t, p)
	if !prog.Leaves[0].Fixed || !prog.Leaves[2].Fixed || prog.Leaves[1].Fixed {
		t.Errorf("fixed flags: %v %v %v", prog.Leaves[0].Fixed, prog.Leaves[1].Fixed, prog.Leaves[2].Fixed)
	}
	if res.Objective != 1 {
		t.Errorf("optimum %v, want 1", res.Objective)
	}
}

func FuzzParseProblem(f *testing.F) {
	for _, name := range []string{"fig6", "attributes", "operators"} {
		b, err := os.ReadFile("testdata/" + name + ".problem")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParseProblem(text)
		if err != nil {
			return
		}
		q, err := ParseProblem(FormatProblem(p))
		if err != nil {
			t.Fatalf("formatted problem does not parse: %v", err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip changed the problem")
		}
		if len(p.Machines) <= 64 && p.Grid.Slices <= 64 {
			if _, err := Compile(p, Options{}); err != nil && !errors.Is(err, ErrProblem) && !errors.Is(err, strl.ErrInvalid) {
				t.Fatalf("compile error not wrapping ErrProblem: %v", err)
			}
		}
	})
}
