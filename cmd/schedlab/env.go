package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/jvu"
	"github.com/schedlab/schedlab/experiments/reproduce"
	"github.com/schedlab/schedlab/policies/solver"
)

// otherEnv are the SCHEDLAB_* variables schedlab reads that are not configuration keys.
var otherEnv = []string{
	reproduce.SharedDataEnv, // the shared data folder
	jvu.PaperSrcEnv,         // the Google 2011 month of the jv reproductions
	solver.EnvWasm,          // the HiGHS WebAssembly build
	solver.EnvCache,         // wazero's compilation cache
	"SCHEDLAB_TEST_BIN",     // make test's prebuilt schedlab for the tests (internal/testbin); schedlab ignores it
}

// envNames lists every SCHEDLAB_* variable schedlab reads: one per configuration key, and
// otherEnv.
func envNames() []string {
	names := slices.Clone(otherEnv)
	for _, k := range experiments.KeyNames() {
		names = append(names, experiments.EnvName(k))
	}
	return names
}

// warnEnv writes a warning for each SCHEDLAB_* variable in environ that schedlab does not read
// (a typo such as SCHEDLAB_POLICY_NAM would otherwise be silently ignored), with the nearest
// names as suggestions. policy.params.* keys are not read from the environment at all.
func warnEnv(w io.Writer, environ []string) {
	names := envNames()
	params := experiments.EnvName("policy.params.")
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, experiments.EnvPrefix) || slices.Contains(names, name) {
			continue
		}
		if strings.HasPrefix(name, params) {
			fmt.Fprintf(w, "schedlab: warning: %s ignored: policy.params.* keys are not read from the environment (use --set or --config)\n", name)
			continue
		}
		fmt.Fprintf(w, "schedlab: warning: %s ignored: schedlab reads no such variable%s\n", name, experiments.SuggestOr(name, names, ""))
	}
}
