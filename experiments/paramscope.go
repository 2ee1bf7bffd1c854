package experiments

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/policies/builtin"
	"github.com/spf13/viper"
)

// ParamsForPrefix starts a policy-scoped parameter: policy.params_for.<policy>.<param> = v sets
// policy.params.<param> = v only in runs whose policy.name is <policy>, and is dropped
// otherwise. A spec can so sweep one system's parameters in cells that also run other
// systems (jvusched's be_value in Figs. 9/10, whose prio cells run sp and reject it). A scoped
// value overrides policy.params.<param>.
const ParamsForPrefix = "policy.params_for."

// scopedParam splits a policy-scoped key into its policy and parameter path.
func scopedParam(key string) (policy, param string, ok bool) {
	rest, ok := strings.CutPrefix(key, ParamsForPrefix)
	if !ok {
		return "", "", false
	}
	policy, param, ok = strings.Cut(rest, ".")
	return policy, param, ok && policy != "" && param != ""
}

// applyScopedParams moves the policy.params_for.<policy>.* keys of the policy being run into
// c.Policy.Params; a scope that names no registered policy is a configuration error.
func applyScopedParams(v *viper.Viper, c *Config) error {
	for _, k := range slices.Sorted(slices.Values(v.AllKeys())) {
		if !strings.HasPrefix(k, ParamsForPrefix) {
			continue
		}
		if err := checkScopedKey(k); err != nil {
			return err
		}
		pol, param, _ := scopedParam(k)
		if pol != c.Policy.Name {
			continue
		}
		if val := v.Get(k); val != nil { // null (a sweep axis's base point) leaves it unset
			setNested(c.Policy.Params, strings.Split(param, "."), val)
		}
	}
	return nil
}

// checkScopedKey rejects a malformed scoped key or one whose scope names no registered policy,
// suggesting the nearest policy names.
func checkScopedKey(k string) error {
	pol, _, ok := scopedParam(k)
	if !ok {
		return configErr("%s: want %s<policy>.<param>", k, ParamsForPrefix)
	}
	if names := builtin.Registry().Names(); !slices.Contains(names, pol) {
		return configErr("%s: unknown policy %q in the scope%s", k, pol, SuggestOr(pol, names, " (valid: "+strings.Join(names, ", ")+")"))
	}
	return nil
}

// CheckParamScopes rejects policy-scoped keys that no cell of a sweep would receive: keys lists
// the configuration keys a spec sets (base and axes, null-only axes excluded), policies the
// policy.name of its cells.
func CheckParamScopes(file string, keys, policies []string) error {
	for _, k := range keys {
		pol, _, ok := scopedParam(k)
		if !ok || slices.Contains(policies, pol) {
			continue
		}
		ps := slices.Compact(slices.Sorted(slices.Values(policies)))
		return configErr("%s: %s: no cell runs policy %s, so no cell accepts it (the cells run %s)%s",
			file, k, pol, strings.Join(ps, ", "), SuggestOr(pol, ps, ""))
	}
	return nil
}

// scopedKeyDoc is the key table's row for the policy-scoped parameters.
const scopedKeyDoc = "policy.params.<param> for runs of that policy only (dropped for other policies; overrides policy.params.<param>): sweeps one system's parameters in cells that also run others"

// ScopedKeyRow is the README key table's row for policy.params_for.<policy>.*.
func ScopedKeyRow() string {
	return fmt.Sprintf("| `%s<policy>.*` | — | %s |\n", ParamsForPrefix, scopedKeyDoc)
}
