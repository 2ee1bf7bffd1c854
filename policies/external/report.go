package external

import (
	"slices"
	"time"

	"github.com/schedlab/schedlab/policies"
)

// Output names of the policy's report.
const (
	// CallsTable is external_calls.parquet: one row per scheduling call.
	CallsTable = "external_calls"
	// SummaryDoc is external.json: the scheduler's hello and the call latency summary.
	SummaryDoc = "external"
)

// Latency summarizes the wall time of the calls, in microseconds: from the first byte of the
// call written to the last byte of the plan read, so it includes the transport.
type Latency struct {
	Calls    int     `json:"calls"`
	MedianUS float64 `json:"median_us"`
	P99US    float64 `json:"p99_us"`
	MaxUS    float64 `json:"max_us"`
	TotalS   float64 `json:"total_s"`
}

// Summary is external.json.
type Summary struct {
	Scheduler    string   `json:"scheduler"`
	Protocol     int      `json:"protocol"`
	Capabilities []string `json:"capabilities"`
	Latency      Latency  `json:"latency"`
	// Deterministic is false: the latencies are wall-clock figures. The plans, and so every
	// other output, do not depend on them.
	Deterministic bool `json:"deterministic"`
}

// CallLatency returns the summary of the calls' wall times so far, which schedlab records in
// summary.json's engine section (policy_calls) beside the engine's own wall-clock figures.
func (p *Policy) CallLatency() any { return LatencyOf(p.wall) }

// LatencyOf summarizes per-call wall times in nanoseconds (nearest-rank percentiles).
func LatencyOf(ns []int64) Latency {
	l := Latency{Calls: len(ns)}
	if len(ns) == 0 {
		return l
	}
	s := slices.Clone(ns)
	slices.Sort(s)
	rank := func(q float64) float64 {
		i := int(q*float64(len(s))+0.999999) - 1
		return float64(s[min(max(i, 0), len(s)-1)]) / 1e3
	}
	l.MedianUS, l.P99US, l.MaxUS = rank(0.5), rank(0.99), float64(s[len(s)-1])/1e3
	var total int64
	for _, x := range s {
		total += x
	}
	l.TotalS = float64(total) / 1e9
	return l
}

// Report ends the scheduler and returns the per-call table and the latency summary. The
// latencies are wall-clock figures, so they are a table and a document, never metrics.
func (p *Policy) Report(policies.ReportContext) (*policies.Report, error) {
	p.Close()
	if p.err != nil {
		return nil, p.err
	}
	call := make([]int64, len(p.wall))
	wallUS := make([]float64, len(p.wall))
	for i := range call {
		call[i] = int64(i + 1)
		wallUS[i] = float64(p.wall[i]) / 1e3
	}
	caps := p.caps
	if caps == nil {
		caps = []string{}
	}
	return &policies.Report{
		Tables: []policies.Table{{Name: CallsTable, Columns: []policies.Column{
			{Name: "call", Int64: call},
			{Name: "t_us", Int64: append([]int64{}, p.simT...)},
			{Name: "wall_us", Float64: wallUS},
			{Name: "bytes_out", Int64: append([]int64{}, p.out...)},
			{Name: "bytes_in", Int64: append([]int64{}, p.in...)},
		}}},
		Docs: []policies.Doc{{Name: SummaryDoc, Value: Summary{
			Scheduler: p.name, Protocol: Version, Capabilities: caps, Latency: LatencyOf(p.wall),
		}}},
	}, nil
}

// LastCallWall is the wall time of the latest scheduling call, from the first byte of the call
// written to the last byte of the plan read: what engine.decision_time: measured charges to the
// simulated clock.
func (p *Policy) LastCallWall() time.Duration {
	if len(p.wall) == 0 {
		return 0
	}
	return time.Duration(p.wall[len(p.wall)-1])
}
