package solver

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func newTestSolver(t *testing.T) *Solver {
	t.Helper()
	needWasm(t)
	s, err := NewSolver(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

func TestLoadReportsVersion(t *testing.T) {
	needWasm(t)
	info, err := Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.HiGHSVersion != "1.15.1" {
		t.Errorf("HiGHS version %q, want 1.15.1", info.HiGHSVersion)
	}
	if info.WasmPath == "" {
		t.Error("empty WasmPath")
	}
}

func TestCheck(t *testing.T) {
	needWasm(t)
	var buf bytes.Buffer
	if err := Check(context.Background(), &buf); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	out := buf.String()
	for _, want := range []string{"HiGHS 1.15.1", "status=optimal objective=36", "status=optimal objective=38"} {
		if !strings.Contains(out, want) {
			t.Errorf("Check output lacks %q:\n%s", want, out)
		}
	}
}

func TestLPKnownOptima(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()

	m, want := CheckLP()
	res, err := s.Solve(ctx, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusOptimal || !near(res.Objective, want) || !near(res.Values[0], 2) || !near(res.Values[1], 6) {
		t.Fatalf("wyndor: %v obj=%v x=%v, want optimal 36 at (2,6)", res.Status, res.Objective, res.Values)
	}
	wantDuals := []float64{0, 1.5, 1}
	for i, d := range res.RowDuals {
		if !near(math.Abs(d), wantDuals[i]) {
			t.Errorf("wyndor row %d dual %v, want ±%v", i, d, wantDuals[i])
		}
	}
	if res.Basis == nil || len(res.Basis.Vars) != 2 || len(res.Basis.Rows) != 3 {
		t.Errorf("wyndor: basis %+v", res.Basis)
	}

	// min x + 2y − z, x free, y ≥ 1, z ≤ 3, x + y + z = 10, 2 ≤ x − y ≤ 4:
	// optimum 5.5 at (5.5, 1.5, 3); with offset 100, 105.5.
	for _, offset := range []float64{0, 100} {
		m := NewModel("ranged")
		x := m.AddContinuous(-Inf, Inf, 1, "x")
		y := m.AddContinuous(1, Inf, 2, "y")
		z := m.AddContinuous(-Inf, 3, -1, "z")
		m.AddRow(10, 10, []Var{x, y, z}, []float64{1, 1, 1}, "sum")
		m.AddRow(2, 4, []Var{x, y}, []float64{1, -1}, "diff")
		m.SetOffset(offset)
		res, err := s.Solve(ctx, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != StatusOptimal || !near(res.Objective, 5.5+offset) {
			t.Fatalf("ranged: %v obj=%v, want optimal %v", res.Status, res.Objective, 5.5+offset)
		}
		for j, w := range []float64{5.5, 1.5, 3} {
			if !near(res.Values[j], w) {
				t.Errorf("ranged: x[%d]=%v, want %v", j, res.Values[j], w)
			}
		}
		if obj, viol := m.Eval(res.Values); !near(obj, res.Objective) || viol > 1e-7 {
			t.Errorf("Eval: obj %v viol %v", obj, viol)
		}
	}
}

func TestMILPKnownOptima(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()

	m, want := CheckMILP()
	res, err := s.Solve(ctx, m, Options{MIPGap: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	wantX := []float64{0, 1, 1, 1, 0, 1, 0, 1, 0}
	if res.Status != StatusOptimal || !near(res.Objective, want) {
		t.Fatalf("knapsack: %v obj=%v, want optimal %v", res.Status, res.Objective, want)
	}
	for j := range wantX {
		if !near(res.Values[j], wantX[j]) {
			t.Fatalf("knapsack: x=%v, want %v", res.Values, wantX)
		}
	}
	if res.RowDuals != nil || res.Basis != nil {
		t.Error("MIP result has duals or basis")
	}

	// max 5a + 4b s.t. 6a + 4b ≤ 24, a + 2b ≤ 6, a, b ∈ ℤ₊: 20 at (4, 0)
	// (the LP optimum 21 is at (3, 1.5)).
	m = NewModel("ip")
	m.SetSense(Maximize)
	a := m.AddInteger(0, Inf, 5, "a")
	b := m.AddInteger(0, Inf, 4, "b")
	m.AddRow(-Inf, 24, []Var{a, b}, []float64{6, 4}, "")
	m.AddRow(-Inf, 6, []Var{a, b}, []float64{1, 2}, "")
	res, err = s.Solve(ctx, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusOptimal || !near(res.Objective, 20) || !near(res.Values[0], 4) || !near(res.Values[1], 0) {
		t.Fatalf("ip: %v obj=%v x=%v, want 20 at (4,0)", res.Status, res.Objective, res.Values)
	}

	// Negative integer range: min x s.t. x ≥ −3.5, x ∈ ℤ ∩ [−10, 10] → −3.
	m = NewModel("neg")
	x := m.AddInteger(-10, 10, 1, "x")
	m.AddRow(-3.5, Inf, []Var{x}, []float64{1}, "")
	res, err = s.Solve(ctx, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusOptimal || !near(res.Objective, -3) {
		t.Fatalf("neg: %v obj=%v, want −3", res.Status, res.Objective)
	}
}

func TestInfeasible(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()
	lp := NewModel("inf_lp")
	x := lp.AddContinuous(0, Inf, 1, "")
	y := lp.AddContinuous(0, Inf, 1, "")
	lp.AddRow(3, Inf, []Var{x, y}, []float64{1, 1}, "")
	lp.AddRow(-Inf, 2, []Var{x, y}, []float64{1, 1}, "")

	mip := NewModel("inf_mip")
	z := mip.AddInteger(0, 10, 1, "")
	mip.AddRow(1, 1, []Var{z}, []float64{2}, "") // 2z = 1

	bounds := NewModel("inf_bounds")
	bounds.AddContinuous(2, 1, 1, "")

	for _, m := range []*Model{lp, mip, bounds} {
		for _, p := range []Presolve{PresolveAuto, PresolveOff} {
			res, err := s.Solve(ctx, m, Options{Presolve: p})
			if err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}
			if res.Status != StatusInfeasible || res.Values != nil {
				t.Errorf("%s presolve=%s: status %v values %v, want infeasible", m.Name, p.highs(), res.Status, res.Values)
			}
		}
	}
}

func TestUnbounded(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()
	for _, typ := range []VarType{Continuous, Integer} {
		m := NewModel("unbounded_" + typ.String())
		m.SetSense(Maximize)
		x := m.AddVar(0, Inf, 1, typ, "x")
		y := m.AddVar(0, Inf, 0, typ, "y")
		m.AddRow(-Inf, 1, []Var{x, y}, []float64{1, -1}, "")
		for _, p := range []Presolve{PresolveAuto, PresolveOn, PresolveOff} {
			res, err := s.Solve(ctx, m, Options{Presolve: p})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != StatusUnbounded {
				t.Errorf("%s presolve=%s: %v (%s), want unbounded", m.Name, p.highs(), res.Status, res.HiGHSStatus)
			}
		}
	}
}

func TestEmptyModel(t *testing.T) {
	s := newTestSolver(t)
	m := NewModel("empty")
	m.SetOffset(3)
	res, err := s.Solve(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusOptimal || res.Objective != 3 {
		t.Fatalf("empty: %v %v", res.Status, res.Objective)
	}
}

// hardMIP does not solve to optimality within seconds.
func hardMIP() *Model { return tetriMIP(1, 300, 6, 8, 12) }

func TestTimeLimit(t *testing.T) {
	s := newTestSolver(t)
	limit := 300 * time.Millisecond
	t0 := time.Now()
	res, err := s.Solve(context.Background(), hardMIP(), Options{TimeLimit: limit})
	elapsed := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusFeasible && res.Status != StatusLimit {
		t.Fatalf("status %v (%s), want feasible or limit", res.Status, res.HiGHSStatus)
	}
	if res.HiGHSStatus != "time limit" {
		t.Errorf("HiGHS status %q, want time limit", res.HiGHSStatus)
	}
	if elapsed > limit+2*time.Second {
		t.Errorf("solve took %v with a %v limit", elapsed, limit)
	}
	if res.Status == StatusFeasible {
		if _, viol := hardMIP().Eval(res.Values); viol > 1e-6 {
			t.Errorf("feasible-at-limit solution violates constraints by %v", viol)
		}
		if res.Stats.MIPGap <= 0 {
			t.Errorf("MIP gap %v at limit", res.Stats.MIPGap)
		}
	}
}

// twoKnapsacks is a 0-1 program with two knapsack rows of large, nearly equal weights, which
// HiGHS does not close at the root: it needs branch and bound.
func twoKnapsacks(n int, seed uint64) *Model {
	r := rand.New(rand.NewPCG(seed, 1))
	m := NewModel("knapsacks")
	m.SetSense(Maximize)
	vs := make([]Var, n)
	ws := make([]float64, n)
	total := 0.0
	for i := range vs {
		ws[i] = float64(1000 + r.IntN(1000))
		vs[i] = m.AddBinary(ws[i]+float64(r.IntN(10)), "")
		total += ws[i]
	}
	m.AddRow(-Inf, total/2+0.5, vs, ws, "half")
	m.AddRow(-Inf, total/3+0.5, vs[:n/2], ws[:n/2], "third")
	return m
}

// TestMaxNodes checks the deterministic node limit: it stops branch and bound at the same point,
// with the same incumbent, every time, and a later solve without it is not limited.
func TestMaxNodes(t *testing.T) {
	s := newTestSolver(t)
	var first *Result
	for range 2 {
		res, err := s.Solve(context.Background(), twoKnapsacks(20, 3), Options{MaxNodes: 3, MIPGap: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != StatusFeasible || res.Stats.Nodes > 3 {
			t.Fatalf("status %v (%s) after %d nodes, want feasible at the node limit", res.Status, res.HiGHSStatus, res.Stats.Nodes)
		}
		if first == nil {
			first = res
		} else if res.Objective != first.Objective || res.Stats.Nodes != first.Stats.Nodes {
			t.Errorf("node-limited solves differ: objective %v vs %v, nodes %d vs %d", res.Objective, first.Objective, res.Stats.Nodes, first.Stats.Nodes)
		}
	}
	if _, err := s.Solve(context.Background(), twoKnapsacks(20, 3), Options{MaxNodes: -1}); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("MaxNodes -1: %v, want ErrInvalidOption", err)
	}
	m, want := CheckMILP()
	res, err := s.Solve(context.Background(), m, Options{MIPGap: 1e-9})
	if err != nil || res.Status != StatusOptimal || !near(res.Objective, want) {
		t.Fatalf("unlimited solve after a limited one: %v %v %v", res.Status, res.Objective, err)
	}
}

func TestContextCancelStopsSolve(t *testing.T) {
	s := newTestSolver(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := s.Solve(ctx, hardMIP(), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if !strings.HasPrefix(err.Error(), "solver: ") {
		t.Errorf("error %q lacks the solver: prefix", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	// The interrupted instance was discarded; the next solve uses a fresh one.
	m, want := CheckLP()
	res, err := s.Solve(context.Background(), m, Options{})
	if err != nil || res.Status != StatusOptimal || !near(res.Objective, want) || !res.Stats.NewInstance {
		t.Fatalf("after cancel: %+v, %v", res, err)
	}
}

func TestContextDeadlineIsGraceful(t *testing.T) {
	s := newTestSolver(t)
	// Instantiate the module first: on a loaded host (CI under -race) creating the instance
	// alone could take the whole budget, and the solve would then not start at all.
	warm, _ := CheckMILP()
	if _, err := s.Solve(context.Background(), warm, Options{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, err := s.Solve(ctx, hardMIP(), Options{})
	if err != nil {
		t.Fatalf("deadline: %v", err)
	}
	if res.Status != StatusFeasible && res.Status != StatusLimit {
		t.Fatalf("status %v, want feasible or limit", res.Status)
	}
}

func TestAbortRecovery(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()
	m, want := CheckMILP()
	for _, crash := range []struct {
		name string
		args func(in *instance) (fnName string, args []uint64)
	}{
		// A huge model size makes HiGHS's allocation fail inside the
		// module: abort().
		{"abort", func(in *instance) (string, []uint64) {
			return "passLp", []uint64{uint64(in.highs), 1 << 28, 1, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}
		}},
		// A wild Highs* pointer: out-of-bounds memory access trap.
		{"trap", func(in *instance) (string, []uint64) { return "run", []uint64{0xfffffff0} }},
	} {
		if _, err := s.Solve(ctx, m, Options{}); err != nil {
			t.Fatal(err)
		}
		in := s.in
		fnName, args := crash.args(in)
		fn := map[string]func() error{
			"passLp": func() error {
				_, err := in.call(context.WithValue(ctx, instKey{}, in), in.fn.passLp, args...)
				return err
			},
			"run": func() error { _, err := in.call(context.WithValue(ctx, instKey{}, in), in.fn.run, args...); return err },
		}[fnName]
		err := fn()
		if !errors.Is(err, ErrAborted) {
			t.Fatalf("%s: err %v, want ErrAborted", crash.name, err)
		}
		t.Logf("%s: %v", crash.name, err)
		if !in.broken {
			t.Fatalf("%s: instance not marked broken", crash.name)
		}
		s.release(ctx)
		res, err := s.Solve(ctx, m, Options{})
		if err != nil || res.Status != StatusOptimal || !near(res.Objective, want) {
			t.Fatalf("%s: solve after crash: %+v, %v", crash.name, res, err)
		}
		if !res.Stats.NewInstance {
			t.Errorf("%s: solve after crash did not use a fresh instance", crash.name)
		}
	}
}

func TestPoolDiscardsBrokenInstance(t *testing.T) {
	needWasm(t)
	ctx := context.Background()
	p := NewPool(1)
	defer p.Close()
	m, want := CheckLP()
	if _, err := p.Solve(ctx, m, Options{}); err != nil {
		t.Fatal(err)
	}
	in, _, err := p.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.call(context.WithValue(ctx, instKey{}, in), in.fn.run, 0xfffffff0)
	if !errors.Is(err, ErrAborted) {
		t.Fatalf("err %v", err)
	}
	p.put(ctx, in)
	res, err := p.Solve(ctx, m, Options{})
	if err != nil || !near(res.Objective, want) || !res.Stats.NewInstance {
		t.Fatalf("pool after crash: %+v %v", res, err)
	}
}

func TestConcurrentSolves(t *testing.T) {
	needWasm(t)
	ctx := context.Background()
	models := []*Model{transportLP(5, 10, 150, 2), tetriMIP(3, 25, 4, 4, 6), transportLP(6, 12, 200, 3)}
	ref := make([]float64, len(models))
	s := newTestSolver(t)
	for i, m := range models {
		res, err := s.Solve(ctx, m, Options{})
		if err != nil || res.Status != StatusOptimal {
			t.Fatalf("reference %d: %v %v", i, res, err)
		}
		ref[i] = res.Objective
	}
	check := func(who string, i int, res *Result, err error) {
		if err != nil {
			t.Errorf("%s model %d: %v", who, i, err)
			return
		}
		if res.Status != StatusOptimal || !near(res.Objective, ref[i]) {
			t.Errorf("%s model %d: %v %v, want %v", who, i, res.Status, res.Objective, ref[i])
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := NewSolver(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			for r := 0; r < 2; r++ {
				for i, m := range models {
					res, err := s.Solve(ctx, m, Options{})
					check("solver", i, res, err)
				}
			}
		}()
	}
	pool := NewPool(2)
	defer pool.Close()
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := g % len(models)
			res, err := pool.Solve(ctx, models[i], Options{})
			check("pool", i, res, err)
		}()
	}
	wg.Wait()
}

func TestDeterminism(t *testing.T) {
	ctx := context.Background()
	a := newTestSolver(t)
	b := newTestSolver(t)
	other := transportLP(9, 8, 100, 2)
	for _, m := range []*Model{transportLP(3, 20, 400, 3), tetriMIP(2, 40, 4, 4, 8)} {
		var results []*Result
		for _, s := range []*Solver{a, a, b} {
			res, err := s.Solve(ctx, m, Options{})
			if err != nil || res.Status != StatusOptimal {
				t.Fatalf("%s: %v %v", m.Name, res, err)
			}
			results = append(results, res)
			if _, err := s.Solve(ctx, other, Options{}); err != nil { // disturb instance state
				t.Fatal(err)
			}
		}
		for k, r := range results[1:] {
			if r.Objective != results[0].Objective || r.Stats.SimplexIterations != results[0].Stats.SimplexIterations {
				t.Errorf("%s run %d: objective %v iterations %d, first run %v %d", m.Name, k+1,
					r.Objective, r.Stats.SimplexIterations, results[0].Objective, results[0].Stats.SimplexIterations)
			}
			for j := range r.Values {
				if r.Values[j] != results[0].Values[j] {
					t.Fatalf("%s run %d: x[%d]=%v, first run %v", m.Name, k+1, j, r.Values[j], results[0].Values[j])
				}
			}
		}
	}
}

func TestWarmStartLP(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()
	m := transportLP(4, 30, 800, 2)
	first, err := s.Solve(ctx, m, Options{})
	if err != nil || first.Basis == nil {
		t.Fatalf("%+v %v", first, err)
	}
	// A scheduler event: a few costs and one demand change.
	for j := 0; j < m.NumVars(); j += 97 {
		_, _, c, _, _ := m.VarInfo(Var(j))
		m.SetCost(Var(j), c+3)
	}
	lb, ub, _, _, _ := m.RowInfo(Row(m.NumRows() - 1))
	m.SetRowBounds(Row(m.NumRows()-1), lb+2, ub)

	cold, err := s.Solve(ctx, m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	warm, err := s.Solve(ctx, m, Options{WarmStart: first.WarmStart()})
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Stats.WarmStarted {
		t.Fatal("basis not accepted")
	}
	if warm.Status != StatusOptimal || !near(warm.Objective, cold.Objective) {
		t.Fatalf("warm %v %v, cold %v %v", warm.Status, warm.Objective, cold.Status, cold.Objective)
	}
	t.Logf("iterations: cold %d, warm %d", cold.Stats.SimplexIterations, warm.Stats.SimplexIterations)
	if warm.Stats.SimplexIterations >= cold.Stats.SimplexIterations {
		t.Errorf("warm start took %d iterations, cold %d", warm.Stats.SimplexIterations, cold.Stats.SimplexIterations)
	}
	// A basis of the wrong shape is ignored, not an error.
	res, err := s.Solve(ctx, transportLP(5, 10, 150, 2), Options{WarmStart: first.WarmStart()})
	if err != nil || res.Status != StatusOptimal || res.Stats.WarmStarted {
		t.Fatalf("mismatched basis: %+v %v", res, err)
	}
}

func TestWarmStartMIP(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()
	m := tetriMIP(2, 40, 4, 4, 8)
	first, err := s.Solve(ctx, m, Options{})
	if err != nil || first.Status != StatusOptimal {
		t.Fatalf("%+v %v", first, err)
	}
	warm, err := s.Solve(ctx, m, Options{WarmStart: first.WarmStart()})
	if err != nil {
		t.Fatal(err)
	}
	if !warm.Stats.WarmStarted || warm.Status != StatusOptimal || !near(warm.Objective, first.Objective) {
		t.Fatalf("MIP start: warm=%v %v %v, want %v", warm.Stats.WarmStarted, warm.Status, warm.Objective, first.Objective)
	}
	// Partial start: fix the chosen options of the first ten jobs.
	var vars []Var
	var vals []float64
	for j := 0; j < 40; j++ {
		vars, vals = append(vars, Var(j)), append(vals, first.Values[j])
	}
	part, err := s.Solve(ctx, m, Options{WarmStart: &WarmStart{PartialVars: vars, PartialValues: vals}})
	if err != nil || part.Status != StatusOptimal || !near(part.Objective, first.Objective) {
		t.Fatalf("partial MIP start: %+v %v", part, err)
	}
}

// solveText loads a model file into the instance with Highs_readModel and
// solves it.
func solveText(t *testing.T, s *Solver, text []byte, ext string) (int, float64) {
	t.Helper()
	ctx := context.Background()
	in := s.in
	cctx := context.WithValue(ctx, instKey{}, in)
	path := "/roundtrip" + ext
	in.files[path] = text
	p, err := in.tempString(cctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.freePtr(cctx, p)
	st, err := in.call(cctx, in.fn.readModel, uint64(in.highs), uint64(p))
	if err != nil || int32(st) == highsStatusError {
		t.Fatalf("readModel %s: %v status %d\n%s", ext, err, int32(st), text)
	}
	if _, err := in.call(cctx, in.fn.run, uint64(in.highs)); err != nil {
		t.Fatal(err)
	}
	ms, _ := in.call(cctx, in.fn.getModelStatus, uint64(in.highs))
	obj, _ := in.call(cctx, in.fn.getObjective, uint64(in.highs))
	return int(int32(ms)), math.Float64frombits(obj)
}

func TestWriteModelRoundTrip(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()
	lp, _ := CheckLP()
	mip, _ := CheckMILP()
	ranged := NewModel("ranged model")
	x := ranged.AddContinuous(-Inf, Inf, 1, "x free")
	y := ranged.AddContinuous(1, Inf, 2, "")
	z := ranged.AddInteger(-5, 3, -1, "3z")
	ranged.AddRow(10, 10, []Var{x, y, z}, []float64{1, 1, 1}, "sum")
	ranged.AddRow(2, 4, []Var{x, y}, []float64{1, -1}, "sum") // duplicate name
	ranged.SetOffset(7)
	for _, m := range []*Model{lp, mip, ranged, tetriMIP(2, 20, 3, 3, 5)} {
		want, err := s.Solve(ctx, m, Options{MIPGap: 1e-9})
		if err != nil || want.Status != StatusOptimal {
			t.Fatalf("%s: %+v %v", m.Name, want, err)
		}
		for _, f := range []Format{FormatLP, FormatMPS} {
			var buf bytes.Buffer
			if err := s.WriteModel(ctx, &buf, m, f); err != nil {
				t.Fatalf("%s%s: %v", m.Name, f.Ext(), err)
			}
			if m == lp && !strings.Contains(buf.String(), "plant3") {
				t.Errorf("%s%s lacks row names:\n%s", m.Name, f.Ext(), buf.String())
			}
			st, obj := solveText(t, s, buf.Bytes(), f.Ext())
			if st != hmsOptimal || !near(obj, want.Objective) {
				t.Errorf("%s%s round trip: status %d objective %v, want %v\n%s", m.Name, f.Ext(), st, obj, want.Objective, buf.String())
			}
		}
	}
}

func TestDumpDir(t *testing.T) {
	s := newTestSolver(t)
	dir := filepath.Join(t.TempDir(), "dumps")
	m, want := CheckLP()
	res, err := s.Solve(context.Background(), m, Options{DumpDir: dir})
	if err != nil || !near(res.Objective, want) {
		t.Fatalf("%+v %v", res, err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "check_lp_wyndor-*.lp"))
	if len(files) != 1 {
		t.Fatalf("dump files %v", files)
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), "plant1") {
		t.Errorf("dump:\n%s", b)
	}
}

func TestValidate(t *testing.T) {
	for name, build := range map[string]func(m *Model){
		"nan cost":       func(m *Model) { m.AddContinuous(0, 1, math.NaN(), "") },
		"inf cost":       func(m *Model) { m.AddContinuous(0, 1, Inf, "") },
		"lower +inf":     func(m *Model) { m.AddContinuous(Inf, Inf, 1, "") },
		"nan bound":      func(m *Model) { m.AddContinuous(math.NaN(), 1, 1, "") },
		"nan coef":       func(m *Model) { v := m.AddContinuous(0, 1, 1, ""); m.AddRow(0, 1, []Var{v}, []float64{math.NaN()}, "") },
		"unknown var":    func(m *Model) { m.AddContinuous(0, 1, 1, ""); m.AddRow(0, 1, []Var{3}, []float64{1}, "") },
		"length":         func(m *Model) { v := m.AddContinuous(0, 1, 1, ""); m.AddRow(0, 1, []Var{v}, nil, "") },
		"row upper -inf": func(m *Model) { v := m.AddContinuous(0, 1, 1, ""); m.AddRow(-Inf, -Inf, []Var{v}, []float64{1}, "") },
		"bad SetCost":    func(m *Model) { m.SetCost(5, 1) },
	} {
		m := NewModel(name)
		build(m)
		err := m.Validate()
		if !errors.Is(err, ErrInvalidModel) || !strings.HasPrefix(err.Error(), "solver: ") {
			t.Errorf("%s: Validate() = %v, want ErrInvalidModel", name, err)
		}
	}
	m, _ := CheckMILP()
	if err := m.Validate(); err != nil {
		t.Error(err)
	}
}

func TestSolveRejectsBadInput(t *testing.T) {
	s := newTestSolver(t)
	m, _ := CheckLP()
	if _, err := s.Solve(context.Background(), m, Options{Threads: 2}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Threads=2: %v, want ErrUnsupported", err)
	}
	if _, err := s.Solve(context.Background(), m, Options{MIPGap: -1}); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("negative MIPGap: %v, want ErrInvalidOption", err)
	}
	bad := NewModel("bad")
	bad.AddContinuous(0, 1, math.NaN(), "")
	if _, err := s.Solve(context.Background(), bad, Options{}); !errors.Is(err, ErrInvalidModel) {
		t.Errorf("NaN cost: %v", err)
	}
	// The solver is still usable.
	if res, err := s.Solve(context.Background(), m, Options{}); err != nil || res.Status != StatusOptimal {
		t.Fatalf("%+v %v", res, err)
	}
	s.Close()
	if _, err := s.Solve(context.Background(), m, Options{}); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

func TestAddRowMergesDuplicates(t *testing.T) {
	m := NewModel("dups")
	x := m.AddContinuous(0, 1, 1, "")
	y := m.AddContinuous(0, 1, 1, "")
	m.AddRow(0, 1, []Var{x, y, x, y}, []float64{1, 2, 3, -2}, "")
	_, _, vars, coefs, _ := m.RowInfo(0)
	if len(vars) != 1 || vars[0] != int32(x) || coefs[0] != 4 {
		t.Fatalf("row = %v %v, want x with 4", vars, coefs)
	}
	if m.NumNonzeros() != 1 {
		t.Fatalf("nnz %d", m.NumNonzeros())
	}
}

func TestStats(t *testing.T) {
	s := newTestSolver(t)
	ctx := context.Background()
	lp, err := s.Solve(ctx, transportLP(7, 20, 400, 2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if lp.Stats.SimplexIterations <= 0 || lp.Stats.SolverTime <= 0 || lp.Stats.WallTime < lp.Stats.SolverTime || lp.Stats.Nodes != 0 {
		t.Errorf("LP stats %+v", lp.Stats)
	}
	mip, err := s.Solve(ctx, tetriMIP(2, 40, 4, 4, 8), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if mip.Stats.Nodes <= 0 || mip.Stats.MIPGap < 0 || mip.Stats.MIPGap > 1e-4 || mip.Stats.Overhead() < 0 {
		t.Errorf("MIP stats %+v", mip.Stats)
	}
}

func TestLogOption(t *testing.T) {
	s := newTestSolver(t)
	var buf bytes.Buffer
	m, _ := CheckLP()
	if _, err := s.Solve(context.Background(), m, Options{Log: &buf}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "HiGHS") {
		t.Errorf("log: %q", buf.String())
	}
	buf.Reset()
	if _, err := s.Solve(context.Background(), m, Options{}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("log written without Options.Log")
	}
}

func TestPackageLevelSolve(t *testing.T) {
	needWasm(t)
	m, want := CheckMILP()
	res, err := Solve(context.Background(), m, Options{})
	if err != nil || !near(res.Objective, want) {
		t.Fatalf("%+v %v", res, err)
	}
	var buf bytes.Buffer
	if err := WriteModel(context.Background(), &buf, m, FormatMPS); err != nil || !strings.Contains(buf.String(), "capacity") {
		t.Fatalf("%v\n%s", err, buf.String())
	}
}

func TestTuning(t *testing.T) {
	s := newTestSolver(t)
	m, want := CheckMILP()
	res, err := s.Solve(context.Background(), twoKnapsacks(20, 3), Options{MIPGap: 1e-9, Tuning: []Setting{{"mip_max_leaves", 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status == StatusOptimal {
		t.Fatalf("mip_max_leaves=1: status %v after %d nodes, want a limit", res.Status, res.Stats.Nodes)
	}
	for _, bad := range [][]Setting{{{"no_such_option", 1}}, {{"mip_max_leaves", "x"}}, {{"mip_heuristic_effort", 0.5}, {"mip_max_leaves", []int{1}}}} {
		if _, err := s.Solve(context.Background(), m, Options{Tuning: bad}); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("tuning %v: %v, want ErrInvalidOption", bad, err)
		}
	}
	// Settings never leak into a solve that does not ask for them.
	res, err = s.Solve(context.Background(), twoKnapsacks(20, 3), Options{MIPGap: 1e-9})
	if err != nil || res.Status != StatusOptimal {
		t.Fatalf("untuned solve after tuned ones: %v %v", res.Status, err)
	}
	res, err = s.Solve(context.Background(), m, Options{MIPGap: 1e-9, Tuning: []Setting{{"mip_detect_symmetry", false}, {"mip_heuristic_effort", 0.0}}})
	if err != nil || res.Status != StatusOptimal || !near(res.Objective, want) {
		t.Fatalf("tuned solve: %v %v %v", res.Status, res.Objective, err)
	}
}
