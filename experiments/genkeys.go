package experiments

import (
	"errors"
	"regexp"
	"slices"
	"strings"
)

// generatorField matches a generator option error that names a Go field: "bpf: Options.LQs: want
// 0..10000, got -1", "decima: StreamOptions.InitJobs: …", "decima: Options.Executors must be …".
var generatorField = regexp.MustCompile(`^\w+: (?:Stream)?Options\.([A-Za-z0-9]+)(?:\[\d+\])?(?:: | )(.*)$`)

// generatorKey returns the configuration key of a generator's Options field (LQMaxCriticalPathS
// → workload.bpf.lq_max_critical_path_s), or "" when the field is no key (an input such as
// Queries, read from a key naming a file).
func generatorKey(gen, field string) string {
	for _, g := range generators {
		if g.name != gen {
			continue
		}
		for _, k := range g.keys() {
			if inputKey(k.Name) {
				continue // a file the generator reads: its problems are data errors
			}
			if strings.EqualFold(strings.ReplaceAll(k.Name, "_", ""), field) {
				return "workload." + gen + "." + k.Name
			}
		}
	}
	return ""
}

// inputKey reports whether a generator key names an input file rather than an option.
func inputKey(name string) bool { return name == "queries" || name == "trace" || name == "dir" }

// generatorKeyErrs splits a generator's (possibly joined) error into its problems and returns
// the first one naming an option that is a configuration key, as a configuration error naming
// that key; nil if none does.
func generatorKeyErrs(gen string, err error) error {
	for _, e := range splitJoined(err) {
		for _, line := range strings.Split(e.Error(), "\n") {
			m := generatorField.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			if key := generatorKey(gen, m[1]); key != "" {
				return configErr("%s: %s", key, strings.TrimPrefix(m[2], ": "))
			}
		}
	}
	return nil
}

// generatorErr is generatorKeyErrs' configuration error when the generator's error names an
// option key, else the error as it is (a data error, such as a bad query file).
func generatorErr(gen string, err error) error {
	if err == nil {
		return nil
	}
	if ke := generatorKeyErrs(gen, err); ke != nil {
		return ke
	}
	return err
}

// splitJoined returns the errors errors.Join combined, or err alone.
func splitJoined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitJoined(e)...)
		}
		return out
	}
	return []error{err}
}

// validateGenerator checks the options a generator's keys set, before its inputs are read: a
// problem with an option key is a configuration error naming the key. Problems with the inputs
// (not read yet, so always reported here) are left to the generator.
func validateGenerator(gen string, opts any) error {
	v, ok := opts.(interface{ Validate() error })
	if !ok {
		return errors.New("experiments: generator " + gen + " has no Validate")
	}
	var errs []error
	for _, e := range splitJoined(v.Validate()) {
		if m := generatorField.FindStringSubmatch(e.Error()); m != nil && slices.Contains(unreadInputs, m[1]) {
			continue
		}
		errs = append(errs, e)
	}
	return generatorKeyErrs(gen, errors.Join(errs...))
}

// unreadInputs are the Options fields validateGenerator cannot check: the inputs read later
// (Queries, Samples, Catalog) and Sizes, checked against the catalog.
var unreadInputs = []string{"Queries", "Samples", "Catalog", "Sizes"}
