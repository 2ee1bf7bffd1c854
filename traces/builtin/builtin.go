// Package builtin holds the workloads compiled into schedlab, so a fresh clone can run without
// downloading anything. The default is 399 TPC-H query DAGs with Facebook-trace arrivals on the
// 25-machine cluster the queries were profiled on (see SOURCE.md).
package builtin

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/tpcdag"
)

//go:embed tpch_fb.txt
var tpchFB []byte

// Default is the name of the workload `schedlab run` uses when none is given.
const Default = "tpch-fb"

type entry struct {
	desc string
	load func() (*traces.Workload, error)
}

var workloads = map[string]entry{
	"tpch-fb": {
		desc: "399 TPC-H query DAGs (17 queries) with Facebook-trace arrivals over ~1 h, 25 machines (Carbyne/BoPF trace)",
		load: func() (*traces.Workload, error) {
			w, err := tpcdag.Parse(bytes.NewReader(tpchFB), "builtin:tpch-fb", tpcdag.Options{})
			if err != nil {
				return nil, err
			}
			w.Name = "tpch-fb"
			w.Source = "builtin:tpch-fb (IRFsim workload/queries_tpch_FB_distr.txt)"
			return w, nil
		},
	},
}

// Names lists the embedded workloads, sorted.
func Names() []string {
	var names []string
	for n := range workloads {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Describe returns a one-line description of an embedded workload.
func Describe(name string) string { return workloads[name].desc }

// Has reports whether name is an embedded workload.
func Has(name string) bool {
	_, ok := workloads[name]
	return ok
}

// Load parses the named embedded workload.
func Load(name string) (*traces.Workload, error) {
	e, ok := workloads[name]
	if !ok {
		return nil, fmt.Errorf("builtin: unknown workload %q (embedded: %s)", name, strings.Join(Names(), ", "))
	}
	return e.load()
}
