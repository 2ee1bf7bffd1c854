package calibrate

import (
	"fmt"
	"math"
	"strconv"
)

// Param is one testbed-profile setting the calibration fixes, with how it was derived.
type Param struct {
	Key        string `json:"key"`
	Value      any    `json:"value"`
	Derivation string `json:"derivation"`
}

// round2 rounds to hundredths, the precision a profile records.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

func (r *Result) property(name string) Property {
	for _, p := range r.Properties {
		if p.Name == name {
			return p
		}
	}
	return Property{Name: name}
}

// Profile is Params with the setup Run read.
func (r *Result) Profile() ([]Param, error) { return r.Params(r.setup) }

// Params maps the measurements onto the engine's testbed keys (MECHKEYS). The setup gives the
// AM container's share of a node, the resource order being the BPF workloads' (cpu, mem).
func (r *Result) Params(s *Setup) ([]Param, error) {
	hbProp := r.property("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms")
	hbMS, err := strconv.ParseFloat(hbProp.Value, 64)
	if err != nil || hbMS <= 0 {
		return nil, fmt.Errorf("heartbeat-interval-ms: %q (%s) is not a positive number", hbProp.Value, hbProp.Source)
	}
	hb := hbMS / 1000
	perHB := int64(1)
	multi := r.property("yarn.scheduler.fair.assignmultiple")
	if multi.Value == "true" {
		perHB = 0
	}
	amShare, err := strconv.ParseFloat(r.property("maxAMShare").Value, 64)
	if err != nil {
		return nil, fmt.Errorf("maxAMShare: %q is not a number", r.property("maxAMShare").Value)
	}
	slow, err := strconv.ParseFloat(r.property("tez.shuffle-vertex-manager.min-src-fraction").Value, 64)
	if err != nil {
		return nil, fmt.Errorf("tez.shuffle-vertex-manager.min-src-fraction: not a number")
	}
	am := s.Containers["am"]
	mapHold := r.Stages[0].HoldingS
	return []Param{
		{"engine.heartbeat_s", round2(hb), fmt.Sprintf("yarn.resourcemanager.nodemanagers.heartbeat-interval-ms = %s (%s)", hbProp.Value, hbProp.Source)},
		{"engine.containers_per_heartbeat", perHB, fmt.Sprintf("yarn.scheduler.fair.assignmultiple = %s (%s)", multi.Value, multi.Source)},
		{"engine.am", true, "every job is a Tez application with its own AM container"},
		{"engine.am_demand", fmt.Sprintf("%g,%g", float64(am.Vcores)/float64(s.Cluster.NodeVcores), float64(am.MemMB)/float64(s.Cluster.NodeMemMB)),
			fmt.Sprintf("AM container %d vcore, %d MB of a %d-vcore, %d-MB node (cpu, mem)", am.Vcores, am.MemMB, s.Cluster.NodeVcores, s.Cluster.NodeMemMB)},
		{"engine.am_startup_s", round2(r.AMStartupS), fmt.Sprintf("median attempt creation → AM registration of the %d of %d jobs within %g s of the fastest (%.2f s)", r.AMStartupN, r.AMStartupAll, s.HeartbeatBandS, r.AMStartupMinS)},
		{"engine.am_setup_s", round2(r.AMSetupS), fmt.Sprintf("median DAG start − AM registration over %d jobs (1-s log resolution)", r.AMSetupN)},
		{"engine.am_teardown_s", round2(r.AMTeardownS), fmt.Sprintf("median AM lifetime − DAG duration (%.2f s, ms resolution) − setup", r.AMSetupTeardownS)},
		{"engine.max_am_share", amShare, fmt.Sprintf("maxAMShare = %s (%s)", r.property("maxAMShare").Value, r.property("maxAMShare").Source)},
		{"engine.task_startup_s", round2(mapHold - hb/2), fmt.Sprintf("%s container-seconds per task beyond its work, median of %d job groups (%.2f s), less the mean %.2f-s wait for the next heartbeat at release that engine.heartbeat_s adds", r.Stages[0].Name, r.HoldingGroups, mapHold, hb/2)},
		{"engine.task_release_s", 0.0, "the release wait is the heartbeat's (above); no separate teardown is visible in the logs"},
		{"engine.slowstart", slow, fmt.Sprintf("tez.shuffle-vertex-manager.min-src-fraction = %s (%s)", r.property("tez.shuffle-vertex-manager.min-src-fraction").Value, r.property("tez.shuffle-vertex-manager.min-src-fraction").Source)},
		{"engine.reservations", true, "FairScheduler reserves a node for a container that does not fit (Hadoop 2.7 behaviour; no switch in the configs)"},
	}, nil
}
