package decima

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/traces"
)

// TestSampleKey: between two data points decima-sim draws the lower with probability
// (e − lower)/(upper − lower); at or outside the data points the key is fixed; a key the stage
// was never measured with falls back to its largest.
func TestSampleKey(t *testing.T) {
	m := measurements{first: map[int][]float64{5: nil, 10: nil, 20: nil, 40: nil, 50: nil, 60: nil, 80: nil, 100: nil}, keys: DataPoints}
	r := rand.New(rand.NewPCG(1, 2))
	for e, want := range map[int]int{1: 5, 5: 5, 10: 10, 100: 100, 250: 100} {
		for range 50 {
			if got := m.sampleKey(e, r); got != want {
				t.Fatalf("sampleKey(%d) = %d, want always %d", e, got, want)
			}
		}
	}
	for _, tc := range []struct {
		e, lo     int
		wantLower float64
	}{{7, 5, 0.4}, {9, 5, 0.8}, {12, 10, 0.2}, {45, 40, 0.5}, {90, 80, 0.5}} {
		const n = 40_000
		lower := 0
		for range n {
			if m.sampleKey(tc.e, r) == tc.lo {
				lower++
			}
		}
		if got := float64(lower) / n; got < tc.wantLower-0.015 || got > tc.wantLower+0.015 {
			t.Errorf("sampleKey(%d): lower key %.3f of draws, want %.2f", tc.e, got, tc.wantLower)
		}
	}
	small := measurements{first: map[int][]float64{2: nil, 5: nil, 10: nil, 13: nil}, keys: []int{2, 5, 10, 13}}
	if got := small.sampleKey(100, r); got != 13 {
		t.Errorf("unmeasured key: %d, want the largest measured 13", got)
	}
}

// TestProfileDraw: each wave draws from decima-sim's list for the key (q15 node 1 of the
// fixture, key 100): Join a fresh duration plus the 2 s moving delay (none with NoMovingDelay;
// a first-wave one with NoWarmUp), Idle a fresh one without the move, First a first-wave duration without the warm-ups, Rest a
// rest-wave duration. ReadProfiles keys jobs by the name Stream keeps.
func TestProfileDraw(t *testing.T) {
	_, nd := q15node1(t, Options{})
	fresh, rest := ms(nd.Fresh["100"]), ms(nd.Rest["100"])
	profiles := map[string]*Profile{}
	for _, o := range []Options{{}, {NoMovingDelay: true}, {NoWarmUp: true}} {
		if err := readProfilesFile(t, o, profiles); err != nil {
			t.Fatal(err)
		}
		p := profiles["TPC-H query15 2g_cut"]
		if p == nil || p.Stages() < 2 {
			t.Fatalf("%+v: no profile for q15 (have %v)", o, profiles)
		}
		m := p.stages[1]
		first := ms(m.first[100])
		r := rand.New(rand.NewPCG(3, 4))
		for range 300 {
			d, ok := p.Draw(1, 100, Join, r)
			switch {
			case !ok:
				t.Fatal("no duration")
			case o.NoWarmUp:
				if !slices.Contains(first, d-2*traces.Second) {
					t.Fatalf("NoWarmUp join: %d µs is not a first-wave duration + 2 s", d)
				}
			case o.NoMovingDelay:
				if !slices.Contains(fresh, d) {
					t.Fatalf("join without moving delay: %d µs is not a fresh duration", d)
				}
			default:
				if !slices.Contains(fresh, d-2*traces.Second) {
					t.Fatalf("join: %d µs is not a fresh duration + 2 s", d)
				}
			}
			if d, _ := p.Draw(1, 100, First, r); !slices.Contains(first, d) {
				t.Fatalf("first wave: %d µs is not a cleaned first-wave duration", d)
			}
			if d, _ := p.Draw(1, 100, Idle, r); !o.NoWarmUp && !slices.Contains(fresh, d) || o.NoWarmUp && !slices.Contains(first, d) {
				t.Fatalf("idle executor: %d µs is not a fresh duration without the move (NoWarmUp: a first-wave one)", d)
			}
			if d, _ := p.Draw(1, 100, Rest, r); !slices.Contains(rest, d) {
				t.Fatalf("rest wave: %d µs is not a rest-wave duration", d)
			}
		}
		if _, ok := p.Draw(p.Stages(), 100, First, r); ok {
			t.Error("a stage the job does not have: ok")
		}
	}
}

func readProfilesFile(t *testing.T, o Options, out map[string]*Profile) error {
	t.Helper()
	got, err := ReadProfiles("testdata", []string{"2g_cut"}, o)
	for k, v := range got {
		out[k] = v
	}
	return err
}
