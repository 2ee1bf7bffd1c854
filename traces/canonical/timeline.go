package canonical

import (
	"encoding/json"
	"fmt"

	"github.com/schedlab/schedlab/traces"
)

// Metadata keys of a workload's initial load and cluster events (traces.Workload.Initial and
// ClusterEvents). Both are optional: a file without them has neither, and files written before
// they existed read as before. Each is a JSON object of equal-length columns (see jsonInitial
// and jsonEvents), so any trace or generator can supply the "cluster_events table".
const (
	KeyInitial       = "schedlab.initial"
	KeyClusterEvents = "schedlab.cluster_events"
	KeyFaults        = "schedlab.task_faults"
)

// jsonFaults is Faults column-wise: fault i at T[i] ends the run of task Task[i] of stage
// Stage[i] of the job with ID Job[i], as Kind[i] ("evicted", "failed", "killed").
type jsonFaults struct {
	T     []int64  `json:"t"`
	Job   []int64  `json:"job_id"`
	Stage []int32  `json:"stage"`
	Task  []int32  `json:"task"`
	Kind  []string `json:"kind"`
}

func encodeFaults(fs []traces.TaskFault) ([]byte, error) {
	n := len(fs)
	j := jsonFaults{T: make([]int64, n), Job: make([]int64, n), Stage: make([]int32, n), Task: make([]int32, n), Kind: make([]string, n)}
	for i, f := range fs {
		j.T[i], j.Job[i], j.Stage[i], j.Task[i], j.Kind[i] = f.T, f.Job, f.Stage, f.Task, f.Kind.String()
	}
	return json.Marshal(j)
}

func decodeFaults(s string) ([]traces.TaskFault, error) {
	if err := lenHint(s); err != nil {
		return nil, err
	}
	var j jsonFaults
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return nil, err
	}
	n := len(j.T)
	if err := columns(n, nil, len(j.Job), len(j.Stage), len(j.Task), len(j.Kind)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	fs := make([]traces.TaskFault, n)
	for i := range fs {
		k, ok := outcomeNamed(j.Kind[i])
		if !ok {
			return nil, fmt.Errorf("row %d: kind %q (want evicted, failed or killed)", i, j.Kind[i])
		}
		fs[i] = traces.TaskFault{T: j.T[i], Job: j.Job[i], Stage: j.Stage[i], Task: j.Task[i], Kind: k}
	}
	return fs, nil
}

func outcomeNamed(s string) (traces.TaskOutcome, bool) {
	for _, k := range []traces.TaskOutcome{traces.TaskEvicted, traces.TaskFailed, traces.TaskKilled} {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}

// MaxTimelineRows bounds the initial holds and the cluster events a file may declare, checked
// before they are allocated.
const MaxTimelineRows = 1 << 24

// jsonInitial is Initial column-wise: hold i is on machine Machine[i] over [Start[i], End[i])
// with demand Demand[d][i] in each dimension d (trailing all-zero dimensions omitted).
type jsonInitial struct {
	Machine []int32   `json:"machine"`
	Start   []int64   `json:"start"`
	End     []int64   `json:"end"`
	Demand  [][]int64 `json:"demand"`
}

// jsonEvents is ClusterEvents column-wise: event i at T[i] does Kind[i] ("add", "remove",
// "resize") to machine Machine[i], with capacity Capacity[d][i] for add and resize.
type jsonEvents struct {
	T        []int64   `json:"t"`
	Kind     []string  `json:"kind"`
	Machine  []int32   `json:"machine"`
	Capacity [][]int64 `json:"capacity"`
}

// usedDims returns how many leading dimensions some vector of vs uses.
func usedDims(n int, at func(int) traces.Vec) int {
	dims := 0
	for i := range n {
		v := at(i)
		for d := traces.MaxDims - 1; d >= dims; d-- {
			if v[d] != 0 {
				dims = d + 1
				break
			}
		}
	}
	return dims
}

func encodeInitial(hs []traces.Hold) ([]byte, error) {
	n := len(hs)
	dims := usedDims(n, func(i int) traces.Vec { return hs[i].Demand })
	j := jsonInitial{Machine: make([]int32, n), Start: make([]int64, n), End: make([]int64, n), Demand: make([][]int64, dims)}
	for d := range j.Demand {
		j.Demand[d] = make([]int64, n)
	}
	for i, h := range hs {
		j.Machine[i], j.Start[i], j.End[i] = h.Machine, h.Start, h.End
		for d := range j.Demand {
			j.Demand[d][i] = h.Demand[d]
		}
	}
	return json.Marshal(j)
}

func encodeEvents(evs []traces.ClusterEvent) ([]byte, error) {
	n := len(evs)
	dims := usedDims(n, func(i int) traces.Vec { return evs[i].Capacity })
	j := jsonEvents{T: make([]int64, n), Kind: make([]string, n), Machine: make([]int32, n), Capacity: make([][]int64, dims)}
	for d := range j.Capacity {
		j.Capacity[d] = make([]int64, n)
	}
	for i, ev := range evs {
		j.T[i], j.Kind[i], j.Machine[i] = ev.T, ev.Kind.String(), ev.Machine
		for d := range j.Capacity {
			j.Capacity[d][i] = ev.Capacity[d]
		}
	}
	return json.Marshal(j)
}

// columns checks that every column has n rows and that there are at most MaxDims amount columns.
func columns(n int, amounts [][]int64, lens ...int) error {
	if n > MaxTimelineRows {
		return fmt.Errorf("%d rows (at most %d)", n, MaxTimelineRows)
	}
	for _, l := range lens {
		if l != n {
			return fmt.Errorf("columns of %d and %d rows", n, l)
		}
	}
	if len(amounts) > traces.MaxDims {
		return fmt.Errorf("%d amount columns (at most %d)", len(amounts), traces.MaxDims)
	}
	for d, col := range amounts {
		if len(col) != n {
			return fmt.Errorf("amount column %d has %d rows, not %d", d, len(col), n)
		}
	}
	return nil
}

// lenHint is a cheap upper bound on the rows of a column-wise JSON document: its size, checked
// against MaxTimelineRows before decoding allocates.
func lenHint(s string) error {
	if len(s) > 64*MaxTimelineRows {
		return fmt.Errorf("%d bytes (too large)", len(s))
	}
	return nil
}

func decodeInitial(s string) ([]traces.Hold, error) {
	if err := lenHint(s); err != nil {
		return nil, err
	}
	var j jsonInitial
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return nil, err
	}
	n := len(j.Machine)
	if err := columns(n, j.Demand, len(j.Start), len(j.End)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	hs := make([]traces.Hold, n)
	for i := range hs {
		hs[i] = traces.Hold{Machine: j.Machine[i], Start: j.Start[i], End: j.End[i]}
		for d, col := range j.Demand {
			hs[i].Demand[d] = col[i]
		}
	}
	return hs, nil
}

func decodeEvents(s string) ([]traces.ClusterEvent, error) {
	if err := lenHint(s); err != nil {
		return nil, err
	}
	var j jsonEvents
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return nil, err
	}
	n := len(j.T)
	if err := columns(n, j.Capacity, len(j.Kind), len(j.Machine)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	evs := make([]traces.ClusterEvent, n)
	for i := range evs {
		k, ok := traces.ParseClusterEventKind(j.Kind[i])
		if !ok {
			return nil, fmt.Errorf("row %d: kind %q (want add, remove or resize)", i, j.Kind[i])
		}
		evs[i] = traces.ClusterEvent{T: j.T[i], Kind: k, Machine: j.Machine[i]}
		for d, col := range j.Capacity {
			evs[i].Capacity[d] = col[i]
		}
	}
	return evs, nil
}

// timelineMetadata returns the keys and values of m's initial holds and cluster events, none
// for empty ones.
func (m Meta) timelineMetadata() (keys, values []string, err error) {
	if len(m.Initial) > 0 {
		b, err := encodeInitial(m.Initial)
		if err != nil {
			return nil, nil, fmt.Errorf("canonical: encode initial: %w", err)
		}
		keys, values = append(keys, KeyInitial), append(values, string(b))
	}
	if len(m.ClusterEvents) > 0 {
		b, err := encodeEvents(m.ClusterEvents)
		if err != nil {
			return nil, nil, fmt.Errorf("canonical: encode cluster events: %w", err)
		}
		keys, values = append(keys, KeyClusterEvents), append(values, string(b))
	}
	if len(m.Faults) > 0 {
		b, err := encodeFaults(m.Faults)
		if err != nil {
			return nil, nil, fmt.Errorf("canonical: encode faults: %w", err)
		}
		keys, values = append(keys, KeyFaults), append(values, string(b))
	}
	if len(m.Placements) > 0 {
		b, err := encodePlacements(m.Placements)
		if err != nil {
			return nil, nil, fmt.Errorf("canonical: encode placements: %w", err)
		}
		keys, values = append(keys, KeyPlacements), append(values, string(b))
	}
	return keys, values, nil
}

// parseTimeline decodes the initial holds and cluster events of a file's metadata into m.
func (m *Meta) parseTimeline(find func(key string) (string, bool)) error {
	if s, ok := find(KeyInitial); ok {
		hs, err := decodeInitial(s)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", errMeta, KeyInitial, err)
		}
		m.Initial = hs
	}
	if s, ok := find(KeyClusterEvents); ok {
		evs, err := decodeEvents(s)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", errMeta, KeyClusterEvents, err)
		}
		m.ClusterEvents = evs
	}
	if s, ok := find(KeyFaults); ok {
		fs, err := decodeFaults(s)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", errMeta, KeyFaults, err)
		}
		m.Faults = fs
	}
	if s, ok := find(KeyPlacements); ok {
		ps, err := decodePlacements(s)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", errMeta, KeyPlacements, err)
		}
		m.Placements = ps
	}
	return nil
}
