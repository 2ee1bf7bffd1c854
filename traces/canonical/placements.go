package canonical

import (
	"encoding/json"

	"github.com/schedlab/schedlab/traces"
)

// KeyPlacements is the metadata key of a workload's trace placements (traces.Workload.Placements):
// optional, as the timeline keys are; files without it have none.
const KeyPlacements = "schedlab.placements"

// jsonPlacements is Placements column-wise: task Task[i] of stage Stage[i] of the job with ID
// Job[i] started on machine Machine[i] at Start[i].
type jsonPlacements struct {
	Job     []int64 `json:"job_id"`
	Stage   []int32 `json:"stage"`
	Task    []int32 `json:"task"`
	Machine []int32 `json:"machine"`
	Start   []int64 `json:"start"`
}

func encodePlacements(ps []traces.TaskPlacement) ([]byte, error) {
	n := len(ps)
	j := jsonPlacements{Job: make([]int64, n), Stage: make([]int32, n), Task: make([]int32, n), Machine: make([]int32, n), Start: make([]int64, n)}
	for i, p := range ps {
		j.Job[i], j.Stage[i], j.Task[i], j.Machine[i], j.Start[i] = p.Job, p.Stage, p.Task, p.Machine, p.Start
	}
	return json.Marshal(j)
}

// decodePlacements checks the document's size before decoding and the columns' lengths before
// allocating the placements; their meaning is checked by traces.Workload.Validate.
func decodePlacements(s string) ([]traces.TaskPlacement, error) {
	if err := lenHint(s); err != nil {
		return nil, err
	}
	var j jsonPlacements
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return nil, err
	}
	n := len(j.Job)
	if err := columns(n, nil, len(j.Stage), len(j.Task), len(j.Machine), len(j.Start)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	ps := make([]traces.TaskPlacement, n)
	for i := range ps {
		ps[i] = traces.TaskPlacement{Job: j.Job[i], Stage: j.Stage[i], Task: j.Task[i], Machine: j.Machine[i], Start: j.Start[i]}
	}
	return ps, nil
}
