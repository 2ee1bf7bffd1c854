package cora

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteForce returns the lexicographically largest sorted utility vector over every assignment
// of completion slots (Slots^Jobs of them), and one assignment that reaches it.
func bruteForce(p *Problem) ([]float64, []int) {
	n := p.Jobs()
	T := make([]int, n)
	for i := range T {
		T[i] = 1
	}
	var best []float64
	var bestT []int
	for {
		if p.Feasible(T) {
			v := make([]float64, n)
			for i := range v {
				v[i] = p.Utility.At(i, T[i])
			}
			slices.Sort(v)
			if best == nil || CompareSorted(v, best) > 0 {
				best, bestT = v, slices.Clone(T)
			}
		}
		k := 0
		for k < n && T[k] == p.Slots {
			T[k] = 1
			k++
		}
		if k == n {
			return best, bestT
		}
		T[k]++
	}
}

// randomUtility returns a non-increasing row of length slots. Styles mix ties (values from a
// small integer set, flat rows, zero tails) with generic reals and sigmoid shapes.
func randomUtility(r *rand.Rand, slots int) []float64 {
	row := make([]float64, slots)
	switch r.IntN(5) {
	case 0: // small integers: ties within and across jobs
		v := float64(r.IntN(4) + 1)
		for t := range row {
			if r.IntN(2) == 0 {
				v = math.Max(0, v-float64(r.IntN(2)+1))
			}
			row[t] = v
		}
	case 1: // flat
		v := float64(r.IntN(3))
		for t := range row {
			row[t] = v
		}
	case 2: // step to zero at a target
		d := r.IntN(slots + 1)
		v := float64(r.IntN(3) + 1)
		for t := range row {
			if t < d {
				row[t] = v
			}
		}
	case 3: // sigmoid sampled at slot ends
		p, mu, d := 1+4*r.Float64(), 0.2+3*r.Float64(), float64(r.IntN(slots+1))
		for t := range row {
			row[t] = p / (1 + math.Exp(mu*(float64(t+1)-d)))
		}
	default: // generic decreasing reals
		v := 1 + 5*r.Float64()
		for t := range row {
			v -= r.Float64()
			row[t] = math.Max(0, v)
		}
	}
	return row
}

// randomProblem draws a small instance: 1-5 jobs, 1-2 resources, capacity 1-4, |T| between the
// minimum and two more.
func randomProblem(r *rand.Rand) *Problem {
	n := 1 + r.IntN(5)
	res := 1
	if r.IntN(5) == 0 {
		res = 2
	}
	capacity := make([]int64, res)
	for k := range capacity {
		capacity[k] = int64(1 + r.IntN(4))
	}
	work := make([][]int64, n)
	for i := range work {
		work[i] = make([]int64, res)
		for k := range work[i] {
			work[i][k] = int64(r.IntN(int(2*capacity[k]) + 1))
		}
	}
	slots := MinSlots(capacity, work) + r.IntN(3)
	for slots > 6 { // keep the enumeration small: shed work
		i := r.IntN(n)
		for k := range work[i] {
			work[i][k] /= 2
		}
		slots = MinSlots(capacity, work) + r.IntN(2)
	}
	u := make(Table, n)
	for i := range u {
		u[i] = randomUtility(r, slots)
	}
	return &Problem{Slots: slots, Capacity: capacity, Work: work, Utility: u}
}

func (p *Problem) String() string {
	return fmt.Sprintf("slots=%d capacity=%v work=%v utility=%v", p.Slots, p.Capacity, p.Work, p.Utility)
}

// TestExactMatchesBruteForce is the differential test: on random small instances, with ties,
// flat utilities and multiple resources, Exact's sorted utility vector equals the best over
// every assignment of completion slots, its slots are feasible, and it never reports Inexact.
func TestExactMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	n := 2000
	if testing.Short() {
		n = 500
	}
	ties := 0
	for k := range n {
		p := randomProblem(r)
		want, wantT := bruteForce(p)
		got, err := Exact(p, ExactBudget{})
		if err != nil {
			t.Fatalf("instance %d: %v\n%v", k, err, p)
		}
		if !p.Feasible(got.Slot) {
			t.Fatalf("instance %d: infeasible slots %v\n%v", k, got.Slot, p)
		}
		for i := range got.Utility {
			if got.Utility[i] != p.Utility.At(i, got.Slot[i]) {
				t.Fatalf("instance %d: utility of job %d is %v, want U(%d) = %v", k, i, got.Utility[i], got.Slot[i], p.Utility.At(i, got.Slot[i]))
			}
		}
		if CompareSorted(got.Sorted(), want) != 0 {
			t.Fatalf("instance %d: exact %v (slots %v), brute force %v (slots %v)\n%v", k, got.Sorted(), got.Slot, want, wantT, p)
		}
		if got.Inexact {
			t.Fatalf("instance %d: inexact", k)
		}
		if hasCrossJobTie(p) {
			ties++
		}
	}
	if ties < n/10 {
		t.Errorf("only %d of %d instances have utilities equal across jobs; the tie path is not exercised", ties, n)
	}
}

// hasCrossJobTie reports whether two jobs share a utility value.
func hasCrossJobTie(p *Problem) bool {
	seen := map[float64]int{}
	for i := range p.Jobs() {
		for t := 1; t <= p.Slots; t++ {
			v := p.Utility.At(i, t)
			if j, ok := seen[v]; ok && j != i {
				return true
			}
			seen[v] = i
		}
	}
	return false
}

// guessed is a Table with a Guesser that guesses at random, so the guided searches are checked
// against the same brute force.
type guessed struct {
	Table
	r *rand.Rand
}

func (g guessed) Guess(int, float64) float64 { return float64(g.r.IntN(len(g.Table[0])+5)) - 2.5 }

func TestExactGuidedSearchMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	for k := range 500 {
		p := randomProblem(r)
		want, _ := bruteForce(p)
		p.Utility = guessed{p.Utility.(Table), r}
		got, err := Exact(p, ExactBudget{})
		if err != nil {
			t.Fatal(err)
		}
		if CompareSorted(got.Sorted(), want) != 0 {
			t.Fatalf("instance %d: exact %v, brute force %v\n%v", k, got.Sorted(), want, p)
		}
	}
}
