package replay

import (
	"strings"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/baseline"
)

// scenarioPolicy builds the real policy a scenario's `policy` line names, which then decides
// after the scripted decisions of each call (the script still logs every call):
//
//	policy sp [preempt] [backfill] [order=slo,be]
func scenarioPolicy(kv map[string]string, flags map[string]bool) (policies.Policy, error) {
	o := policies.Options{Params: map[string]any{}, Backfill: flags["backfill"]}
	if flags["preempt"] {
		o.Params["preempt"] = true
	}
	if s := kv["order"]; s != "" {
		o.ClassOrder = strings.Split(s, ",")
	}
	return baseline.NewSP(o)
}
