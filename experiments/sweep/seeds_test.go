package sweep

import (
	"reflect"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/experiments"
)

// TestSeedsShareOneResolution is a differential test of withSeed: for the points of the axes of
// every embedded spec's quick and paper labels (and the test specs), the configuration resolved
// for the first seed and given another seed by withSeed equals the one resolved for that seed
// through viper. A plan resolves one configuration per point and derives the other seeds'.
func TestSeedsShareOneResolution(t *testing.T) {
	specs := []*experiments.Spec{loadTiny(t)}
	thousand, err := experiments.LoadSpec("testdata/thousand.yaml")
	if err != nil {
		t.Fatal(err)
	}
	specs = append(specs, thousand)
	for _, id := range experiments.SpecIDs() {
		s, err := experiments.LoadSpec(id)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, s)
	}
	const maxPoints = 10 // per spec and label: the first ones in plan order
	points := 0
	for _, spec := range specs {
		for _, label := range []string{"quick", "paper"} {
			s, err := spec.WithLabel(label)
			if err != nil {
				t.Fatal(err)
			}
			var axes []experiments.Axis
			for _, g := range s.Axes {
				axes = append(axes, g.Axes...)
			}
			baseKeys := slices.Sorted(func(yield func(string) bool) {
				for k := range s.Base {
					if !yield(k) {
						return
					}
				}
			})
			seeds := s.Seeds.Values()
			if len(seeds) > 2 {
				seeds = seeds[:2]
			}
			steps := make([]int, len(s.Axes))
			for n := 0; n < maxPoints; n++ {
				var raw []any
				for gi, g := range s.Axes {
					for _, a := range g.Axes {
						raw = append(raw, a.Values[steps[gi]])
					}
				}
				first, err := resolvePoint(s, baseKeys, axes, raw, seeds[0])
				if err != nil {
					t.Fatalf("%s %s: %v", s.ID, label, err)
				}
				for _, seed := range seeds {
					want, err := resolvePoint(s, baseKeys, axes, raw, seed)
					if err != nil {
						t.Fatalf("%s %s seed %d: %v", s.ID, label, seed, err)
					}
					if got := withSeed(first, seed); !reflect.DeepEqual(got, want) {
						t.Errorf("%s %s %v seed %d:\n%+v\nwant\n%+v", s.ID, label, raw, seed, got, want)
					}
				}
				points++
				gi := len(steps) - 1
				for ; gi >= 0; gi-- {
					if steps[gi]++; steps[gi] < s.Axes[gi].Len() {
						break
					}
					steps[gi] = 0
				}
				if gi < 0 {
					break
				}
			}
		}
	}
	t.Logf("%d points of %d specs", points, len(specs))
}

// TestPlanResolvesOncePerPoint: planning with one resolution per point of the axes gives the
// same cells and keys as resolving every seed (the tiny spec's labels).
func TestPlanResolvesOncePerPoint(t *testing.T) {
	defer func() { resolveEverySeed = false }()
	s := loadTiny(t)
	for _, label := range []string{"quick", "paper"} {
		resolveEverySeed = false
		fast, err := NewPlan(s, label, nil)
		if err != nil {
			t.Fatal(err)
		}
		resolveEverySeed = true
		full, err := NewPlan(s, label, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(fast.Cells) != len(full.Cells) {
			t.Fatalf("%s: %d cells, want %d", s.ID, len(fast.Cells), len(full.Cells))
		}
		for i := range full.Cells {
			a, b := &fast.Cells[i], &full.Cells[i]
			if a.Key != b.Key || !reflect.DeepEqual(a.Config, b.Config) || !reflect.DeepEqual(a.Values, b.Values) {
				t.Fatalf("%s: cell %d differs:\n%+v\nwant\n%+v", s.ID, i, a.Config, b.Config)
			}
		}
	}
}
