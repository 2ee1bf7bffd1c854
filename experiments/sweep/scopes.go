package sweep

import (
	"slices"

	"github.com/schedlab/schedlab/experiments"
)

// checkScopes refuses a policy.params_for.<policy>.* key (in the base or on an axis with a
// value) whose policy no cell runs: no cell would receive it.
func checkScopes(s *experiments.Spec, cells []Cell) error {
	var keys, pols []string
	for k := range s.Base {
		keys = append(keys, k)
	}
	for _, g := range s.Axes {
		for _, a := range g.Axes {
			if slices.ContainsFunc(a.Values, func(v any) bool { return v != nil }) {
				keys = append(keys, a.Key)
			}
		}
	}
	slices.Sort(keys)
	for i := range cells {
		pols = append(pols, cells[i].Config.Policy.Name)
	}
	return experiments.CheckParamScopes(s.File, keys, pols)
}
