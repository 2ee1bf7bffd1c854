package milp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/policies/jvusched/strl"
	"github.com/schedlab/schedlab/traces"
)

// bruteForce returns the optimum of p by enumerating every choice at the level of machines: which
// operators are chosen (max: at most one child, sum: any, min: all or none, scale and barrier:
// with their child), and for each chosen leaf which concrete machines it takes (nck: exactly k of
// its set, lnck: up to k) or kills (killnck: exactly k, lkillnck: up to k). A choice is feasible
// when no machine is used twice in any slice, a killed machine counting as free over the slices
// its kill returns it. It shares nothing with the compiler but the expression types.
func bruteForce(t testing.TB, p *Problem) float64 {
	t.Helper()
	b := &brute{p: p}
	byName := map[string]int{}
	for i, m := range p.Machines {
		byName[m.Name] = i
	}
	strl.Walk(p.Expr, func(e strl.Expr) {
		b.nodes = append(b.nodes, e)
	})
	b.children = make([][]int, len(b.nodes))
	b.sets = make([][]int, len(b.nodes))
	b.span = make([][2]int, len(b.nodes))
	next := 0
	var index func(e strl.Expr) int
	index = func(e strl.Expr) int {
		me := next
		next++
		for _, c := range strl.Children(e) {
			b.children[me] = append(b.children[me], index(c))
		}
		return me
	}
	index(p.Expr)
	// Reservations: extra leaves, always chosen, worth nothing (outside the tree).
	for _, r := range p.Reserved {
		b.nodes = append(b.nodes, r)
		b.children = append(b.children, nil)
		b.sets = append(b.sets, nil)
		b.span = append(b.span, [2]int{})
	}
	q := p.Grid.Quantum
	for n, e := range b.nodes {
		var set strl.Set
		switch e := e.(type) {
		case *strl.NCk:
			set = e.Set
			from := e.Start - p.Grid.Origin
			b.span[n] = [2]int{int(from / q), int((from + e.Dur + q - 1) / q)}
		case *strl.KillNCk:
			set = e.Set
			b.span[n] = [2]int{int((e.StartP - p.Grid.Origin) / q), int((e.FinishP-p.Grid.Origin)/q) + 1}
		default:
			continue
		}
		b.span[n][1] = min(b.span[n][1], p.Grid.Slices)
		member := make([]bool, len(p.Machines))
		if _, err := set.Resolve(p.Machines, member, byName); err != nil {
			t.Fatal(err)
		}
		for m, in := range member {
			if in {
				b.sets[n] = append(b.sets[n], m)
			}
		}
		if _, kill := e.(*strl.KillNCk); kill {
			b.kills = append(b.kills, n)
		} else {
			b.allocs = append(b.allocs, n)
		}
	}
	b.on = make([]bool, len(b.nodes))
	for i := len(b.nodes) - len(p.Reserved); i < len(b.nodes); i++ {
		b.on[i] = true
	}
	b.took = make([]int, len(b.nodes))
	b.occ = make([][]int, len(p.Machines))
	for m := range b.occ {
		b.occ[m] = make([]int, p.Grid.Slices)
		for s := 0; s < p.Grid.Slices && p.Busy != nil && s < p.Busy[m]; s++ {
			b.occ[m][s] = 1
		}
	}
	b.best = math.Inf(-1)
	for _, rootOn := range []bool{false, true} {
		b.enumOn(0, rootOn, func() { b.leaves(append(append([]int(nil), b.kills...), b.allocs...)) })
	}
	return b.best
}

type brute struct {
	p        *Problem
	nodes    []strl.Expr
	children [][]int
	sets     [][]int  // leaves: their machines
	span     [][2]int // leaves: slices used or returned
	kills    []int
	allocs   []int
	on       []bool
	took     []int // leaves: machines taken (or killed)
	occ      [][]int
	best     float64
}

// enumOn fixes the on flags of n's subtree, n being on or off, in every way the semantics allow,
// calling k for each.
func (b *brute) enumOn(n int, on bool, k func()) {
	b.on[n] = on
	ch := b.children[n]
	if !on {
		b.seq(ch, func(int) bool { return false }, k)
		return
	}
	switch b.nodes[n].(type) {
	case *strl.Max:
		b.seq(ch, func(int) bool { return false }, k)
		for i := range ch {
			b.seq(ch, func(j int) bool { return j == i }, k)
		}
	case *strl.Sum:
		b.any(ch, k)
	default: // min, scale, barrier: children with their parent; leaves have none
		b.seq(ch, func(int) bool { return true }, k)
	}
}

func (b *brute) seq(ch []int, on func(i int) bool, k func()) {
	var rec func(i int)
	rec = func(i int) {
		if i == len(ch) {
			k()
			return
		}
		b.enumOn(ch[i], on(i), func() { rec(i + 1) })
	}
	rec(0)
}

func (b *brute) any(ch []int, k func()) {
	if len(ch) == 0 {
		k()
		return
	}
	for _, o := range []bool{false, true} {
		b.enumOn(ch[0], o, func() { b.any(ch[1:], k) })
	}
}

// leaves chooses machines for each leaf in order (kills first), then scores the choice.
func (b *brute) leaves(order []int) {
	if len(order) == 0 {
		for m := range b.occ {
			for _, o := range b.occ[m] {
				if o > 1 {
					return
				}
			}
		}
		if v, ok := b.value(0); ok && v > b.best {
			b.best = v
		}
		return
	}
	n := order[0]
	if !b.on[n] {
		b.took[n] = 0
		b.leaves(order[1:])
		return
	}
	var k int
	var linear, kill bool
	switch e := b.nodes[n].(type) {
	case *strl.NCk:
		k, linear = e.K, e.Linear
	case *strl.KillNCk:
		k, linear, kill = e.K, e.Linear, true
	}
	set := b.sets[n]
	delta := 1
	if kill {
		delta = -1
	}
	sp := b.span[n]
	var pick func(from, chosen int)
	pick = func(from, chosen int) {
		if chosen == k || (linear && chosen <= k) {
			b.took[n] = chosen
			ok := true
			for m := range b.occ {
				for s := 0; s < len(b.occ[m]) && !kill; s++ {
					if b.occ[m][s] > 1 {
						ok = false
					}
				}
			}
			if ok {
				b.leaves(order[1:])
			}
			if chosen == k {
				return
			}
		}
		for i := from; i < len(set); i++ {
			m := set[i]
			for s := sp[0]; s < sp[1]; s++ {
				b.occ[m][s] += delta
			}
			pick(i+1, chosen+1)
			for s := sp[0]; s < sp[1]; s++ {
				b.occ[m][s] -= delta
			}
		}
	}
	pick(0, 0)
}

// value is node n's worth under the current choice; ok is false when a barrier is not met.
func (b *brute) value(n int) (float64, bool) {
	if !b.on[n] {
		return 0, true
	}
	switch e := b.nodes[n].(type) {
	case *strl.NCk:
		if e.Linear {
			return e.Value * float64(b.took[n]) / float64(e.K), true
		}
		return e.Value, true
	case *strl.KillNCk:
		if e.Linear {
			return -e.Cost * float64(b.took[n]) / float64(e.K), true
		}
		return -e.Cost, true
	}
	vals := make([]float64, 0, len(b.children[n]))
	for _, c := range b.children[n] {
		v, ok := b.value(c)
		if !ok {
			return 0, false
		}
		vals = append(vals, v)
	}
	switch e := b.nodes[n].(type) {
	case *strl.Min:
		m := math.Inf(1)
		for _, v := range vals {
			m = math.Min(m, v)
		}
		return m, true
	case *strl.Scale:
		return e.Factor * vals[0], true
	case *strl.Barrier:
		if vals[0] < e.Value-1e-9 {
			return 0, false
		}
		return e.Value, true
	}
	s := 0.0
	for _, v := range vals {
		s += v
	}
	return s, true
}

// randomProblem draws a tiny cluster, window and expression.
func randomProblem(r *rand.Rand) *Problem {
	n := 1 + r.IntN(4)
	rackSize := 1 + r.IntN(2)
	p := &Problem{Machines: traces.Uniform(n, traces.VecOf(1, 1), rackSize).Machines, Busy: make([]int, n)}
	for m := range p.Machines {
		p.Machines[m].GPU = r.IntN(2) == 0
	}
	q := 10 * traces.Second
	p.Grid = Grid{Origin: traces.Time(r.IntN(3)) * 5 * traces.Second, Quantum: q, Slices: 1 + r.IntN(3)}
	for m := range p.Busy {
		p.Busy[m] = r.IntN(p.Grid.Slices + 1)
	}
	randSet := func() strl.Set {
		switch r.IntN(5) {
		case 0:
			return strl.All()
		case 1:
			return strl.GPU()
		case 2:
			return strl.Rack(fmt.Sprintf("r%d", r.IntN((n+rackSize-1)/rackSize)))
		}
		var names []string
		for _, m := range p.Machines {
			if r.IntN(2) == 0 {
				names = append(names, m.Name)
			}
		}
		if len(names) == 0 {
			names = []string{p.Machines[r.IntN(n)].Name}
		}
		return strl.Machines(names...)
	}
	leaves := 0
	var expr func(depth int) strl.Expr
	leaf := func() strl.Expr {
		leaves++
		start := p.Grid.Start(r.IntN(p.Grid.Slices))
		if r.IntN(4) == 0 {
			start += traces.Time(r.IntN(9)+1) * traces.Second // unaligned
		}
		durs := []traces.Time{5, 10, 15, 20, 30}
		v := float64(r.IntN(21))
		if r.IntN(10) == 0 {
			v = -v
		}
		return &strl.NCk{Set: randSet(), K: 1 + r.IntN(3), Start: start, Dur: durs[r.IntN(len(durs))] * traces.Second,
			Value: v, Linear: r.IntN(4) == 0}
	}
	expr = func(depth int) strl.Expr {
		if depth >= 3 || leaves >= 4 || r.IntN(3) == 0 {
			return leaf()
		}
		var cs []strl.Expr
		for i := 0; i <= r.IntN(3) && leaves < 4; i++ {
			cs = append(cs, expr(depth+1))
		}
		if len(cs) == 0 {
			cs = append(cs, leaf())
		}
		switch r.IntN(6) {
		case 0:
			return &strl.Max{Children: cs}
		case 1:
			return &strl.Min{Children: cs}
		case 2:
			return &strl.Scale{Child: cs[0], Factor: []float64{0, 0.5, 1, 3}[r.IntN(4)]}
		case 3:
			return &strl.Barrier{Child: cs[0], Value: float64(r.IntN(26))}
		}
		return &strl.Sum{Children: cs}
	}
	top := []strl.Expr{expr(1)}
	// Kills: disjoint sets of busy machines, returned within the slices they are held.
	used := make([]bool, n)
	for range r.IntN(3) {
		var set []string
		minBusy := p.Grid.Slices
		for m := range p.Machines {
			if !used[m] && p.Busy[m] > 0 && r.IntN(2) == 0 {
				used[m] = true
				set = append(set, p.Machines[m].Name)
				minBusy = min(minBusy, p.Busy[m])
			}
		}
		if len(set) == 0 {
			continue
		}
		first := r.IntN(minBusy)
		last := first + r.IntN(minBusy-first)
		k := len(set)
		linear := r.IntN(3) == 0
		if linear {
			k = 1 + r.IntN(len(set))
		}
		top = append(top, &strl.KillNCk{Set: strl.Machines(set...), K: k, StartP: p.Grid.Start(first), FinishP: p.Grid.Start(last),
			Cost: float64(r.IntN(11)), Linear: linear})
	}
	if r.IntN(2) == 0 {
		top = append(top, expr(1))
	}
	if r.IntN(4) == 0 {
		// A reservation must fit: machines free in its one slice (kills aside).
		i := r.IntN(p.Grid.Slices)
		var free []string
		for m, b := range p.Busy {
			if b <= i && r.IntN(3) > 0 {
				free = append(free, p.Machines[m].Name)
			}
		}
		if len(free) > 0 {
			p.Reserved = append(p.Reserved, &strl.NCk{Set: strl.Machines(free...), K: 1 + r.IntN(len(free)), Start: p.Grid.Start(i),
				Dur: 10 * traces.Second, Value: 0})
		}
	}
	if len(top) == 1 && r.IntN(2) == 0 {
		p.Expr = top[0]
	} else {
		p.Expr = &strl.Sum{Children: top}
	}
	return p
}

// TestBruteForce is the compiler's differential test: the MILP optimum equals the optimum found
// by enumerating every machine-level choice, on random tiny clusters and expressions.
func TestBruteForce(t *testing.T) {
	cases := 400
	if testing.Short() {
		cases = 100
	}
	r := rand.New(rand.NewPCG(13, 17))
	nontrivial := 0
	for i := range cases {
		p := randomProblem(r)
		if err := strl.Validate(p.Expr); err != nil {
			t.Fatalf("case %d: generated an invalid expression: %v", i, err)
		}
		want := bruteForce(t, p)
		_, res := solve(t, p)
		if math.Abs(res.Objective-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Fatalf("case %d: MILP optimum %v, brute force %v\n%s", i, res.Objective, want, FormatProblem(p))
		}
		if want > 0 {
			nontrivial++
		}
	}
	if nontrivial < cases/3 {
		t.Errorf("only %d of %d cases have a positive optimum: the generator is too weak", nontrivial, cases)
	}
}

// TestBruteForceGolden solves the golden problems both ways, among them the jvusched
// problems of each best-effort cost model (becost-*.problem, written by jvusched's
// TestBECostVariants): the MILP optimum equals the brute-force optimum.
func TestBruteForceGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/becost-*.problem")
	if err != nil || len(files) == 0 {
		t.Fatalf("no becost problems: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p := readProblem(t, f)
			want := bruteForce(t, p)
			_, res := solve(t, p)
			if math.Abs(res.Objective-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Fatalf("MILP optimum %v, brute force %v", res.Objective, want)
			}
		})
	}
}
