package experiments

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schedlab/schedlab/internal/buildid"
	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/policies/builtin"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// Version is schedlab's version, recorded in every result's provenance and in sweep cache keys.
const Version = "0.1.0"

// Outcome is a finished run.
type Outcome struct {
	Config       Config
	Workload     *traces.Workload
	WorkloadHash string
	Result       *replay.Result
	Summary      replay.Summary
	Engine       EngineStats
	// Report is what the policy added to the results when it implements policies.Reporter
	// (BPF's admission records, a solver's per-event records); nil otherwise.
	Report *policies.Report
	// Waits is how long tasks waited to start, and whether any job waited at all.
	Waits Waits
	// Nondeterministic says why the result is not a function of the configuration and seed
	// alone ("" when it is): see Nondeterminist.
	Nondeterministic string
	// rec holds the recordings (tasks.parquet, trace.json) until the outputs are written.
	rec *recorder
}

// Nondeterminist is an optional ability of a policy: after a run it says whether anything outside
// the configuration and seed (a wall-clock solver limit that was hit, say) shaped its decisions,
// and why. Such a run's provenance says deterministic: false, and sweeps do not cache it.
type Nondeterminist interface {
	// NondeterministicReason returns "" when the run just ended was deterministic.
	NondeterministicReason() string
}

// EngineStats are the engine's counters plus wall-clock figures, reported apart from results
// (wall time is the only thing in a run that is not deterministic).
type EngineStats struct {
	Events          int64   `json:"events"`
	EventsPerSecond float64 `json:"events_per_s"`
	WallSeconds     float64 `json:"wall_s"`
	SchedulingCalls int64   `json:"scheduling_calls"`
	Starts          int64   `json:"starts"`
	Preemptions     int64   `json:"preemptions"`
	// PolicyCalls is the wall-time summary of the policy's scheduling calls (calls, median_us,
	// p99_us, max_us, total_s) for a policy that measures them (callTimer: the external
	// policy); absent for the others. Wall-clock figures: never decided on, never a metric.
	PolicyCalls any `json:"policy_calls,omitempty"`
	// DecisionTime is what engine.decision_time did; absent when it is none.
	DecisionTime *DecisionStats `json:"decision_time,omitempty"`
}

// callTimer is an optional ability of a policy: a summary of its scheduling calls' wall times,
// recorded in summary.json's engine section.
type callTimer interface {
	CallLatency() any
}

// failureNoter is an optional ability of a policy: context to add to the error that ended its
// run, such as the last line an external scheduler wrote to its stderr before the engine
// rejected its plan.
type failureNoter interface {
	NoteFailure(err error) error
}

// NewPolicy builds the configured policy from the built-in registry.
func NewPolicy(c Config) (policies.Policy, error) {
	reg := builtin.Registry()
	if !reg.Has(c.Policy.Name) {
		return nil, configErr("policy.name: unknown policy %q (valid: %s)", c.Policy.Name, strings.Join(reg.Names(), ", "))
	}
	p, err := reg.New(c.Policy.Name, policies.Options{
		Level: c.Policy.Level, Backfill: c.Policy.Backfill, ClassOrder: c.Policy.ClassOrder,
		Params: c.Policy.Params, Seed: uint64(c.Seed), DumpModels: c.DumpModels,
		Cycle: traces.FromSeconds(c.Engine.CycleS),
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return p, nil
}

// EngineConfig converts the configuration's engine and metrics sections for the replay engine.
func (c Config) EngineConfig() replay.Config {
	return replay.Config{
		Cycle:            traces.FromSeconds(c.Engine.CycleS),
		PreemptDelay:     traces.FromSeconds(c.Engine.PreemptDelayS),
		PreemptKeepsWork: c.Engine.PreemptKeepsWork,
		Horizon:          traces.FromSeconds(c.Engine.HorizonS),
		Oracle:           c.Engine.Oracle,
		UsageWindow:      traces.FromSeconds(c.Metrics.UsageWindowS),
		Yarn:             c.Engine.Yarn.replay(),
		StopAfterQueue:   c.Engine.StopAfterQueue,
		Seed:             c.Seed,
		Holding:          c.Engine.Mechanics.holding(),
		Variance:         c.Engine.Mechanics.variance(),
		Durations:        c.Engine.Mechanics.contention(),
		IgnoreInitial:    !c.Engine.InitialState, IgnoreClusterEvents: !c.Engine.ClusterEvents,
		Failures:       traces.FailureModel{MTTF: traces.FromSeconds(c.Engine.FailuresMTTFS), MTTR: traces.FromSeconds(c.Engine.FailuresMTTRS)},
		FailureRand:    Rand(c.Seed, "engine.failures"),
		TraceEvictions: c.Engine.TraceEvictions == "replay",
		SaturateHolds:  c.Engine.InitialOvercommit == "saturate",
	}
}

// Run loads the workload, replays it under the configured policy and summarizes the result.
func Run(c Config) (*Outcome, error) {
	prog := startProgress(c.Progress, c.ProgressEvery, "loading workload "+c.Workload.input())
	defer prog.finish()
	w, err := LoadWorkload(c.Workload)
	if err != nil {
		return nil, err
	}
	return runHashed(c, w, w.Hash(), prog)
}

// RunWorkload replays an already loaded workload. The workload is not modified.
func RunWorkload(c Config, w *traces.Workload) (*Outcome, error) {
	return RunHashed(c, w, w.Hash())
}

// RunHashed is RunWorkload for a caller that already holds the workload's content hash (a sweep
// loads and hashes a workload once for many cells).
func RunHashed(c Config, w *traces.Workload, hash string) (*Outcome, error) {
	buildid.Prefetch() // the provenance names the build: hash the executable during the replay
	prog := startProgress(c.Progress, c.ProgressEvery, "preparing the replay")
	defer prog.finish()
	return runHashed(c, w, hash, prog)
}

func runHashed(c Config, w *traces.Workload, hash string, prog *runProgress) (*Outcome, error) {
	prog.setPhase("preparing the replay of " + w.Name)
	// Every replay passes here: refuse a workload over the limits before the engine allocates.
	if err := c.Workload.Limits.Check(w); err != nil {
		return nil, fmt.Errorf("workload %s: %w", w.Name, err)
	}
	if err := checkUsageWindows(c, w); err != nil {
		return nil, err
	}
	if err := checkStopQueue(c, w); err != nil {
		return nil, err
	}
	p, err := NewPolicy(c)
	if err != nil {
		return nil, err
	}
	if cl, ok := p.(io.Closer); ok {
		defer cl.Close() // an external scheduler's process ends with the run, failed or not
	}
	ec := c.EngineConfig()
	var plog *predictionLog
	if c.Predict.Name != "" {
		pr, err := newPredictor(c)
		if err != nil {
			return nil, err
		}
		plog = &predictionLog{Predictor: pr}
		ec.Estimator = plog
	}
	if err := c.Engine.Mechanics.startModel(&ec, c, w); err != nil {
		return nil, err
	}
	probe := newWaitProbe(w, ec.Cycle)
	ec.Log = probe.log
	var hprobe *horizonProbe // fixed-horizon metrics at engine.horizon_s (horizon.go)
	if ec.Horizon > 0 {
		hprobe = newHorizonProbe(w, ec.Horizon, ec.PreemptKeepsWork)
		ec.Log = func(e replay.LogEntry) { probe.log(e); hprobe.log(e) }
	}
	rec, err := newRecorder(c, w)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		ec.Recorder = rec.engineRecorder()
	}
	var engineP policies.Policy
	ec.DecisionTime, engineP = decisionTimer(c, p)
	e, err := replay.New(w, withWaker(prog.track(engineP), p), ec) // waker.go
	if err != nil {
		rec.release()
		if errors.Is(err, replay.ErrNotModelled) { // a combination of keys: exit 2
			err = fmt.Errorf("%w: %v", ErrConfig, err)
		}
		return nil, err
	}
	begin := time.Now()
	res, err := e.Run()
	wall := time.Since(begin).Seconds()
	if err == nil && rec != nil {
		err = rec.finish()
	}
	if err != nil {
		rec.release()
		if n, ok := p.(failureNoter); ok {
			err = n.NoteFailure(err)
		}
		return nil, fmt.Errorf("%w (seed %d)", err, c.Seed)
	}
	o := &Outcome{Config: c, Workload: w, WorkloadHash: hash, Result: res, Summary: replay.Summarize(res), Waits: probe.finish(res.End), rec: rec}
	if o.Report, err = policyReport(p, w.Dims); err != nil {
		return nil, fmt.Errorf("%w (seed %d)", err, c.Seed)
	}
	if plog != nil && !c.Engine.Oracle {
		if o.Report, err = mergeReport(o.Report, plog.report()); err != nil {
			return nil, fmt.Errorf("predictions: %w (seed %d)", err, c.Seed)
		}
	}
	if hprobe != nil {
		if o.Report, err = mergeReport(o.Report, hprobe.report(res)); err != nil {
			return nil, fmt.Errorf("horizon metrics: %w (seed %d)", err, c.Seed)
		}
	}
	if nd, ok := p.(Nondeterminist); ok {
		o.Nondeterministic = nd.NondeterministicReason()
	}
	o.Engine = EngineStats{
		Events: res.Stats.Events, WallSeconds: wall, SchedulingCalls: res.Stats.SchedulingCalls,
		Starts: res.Stats.Starts, Preemptions: res.Stats.Preemptions,
	}
	if wall > 0 {
		o.Engine.EventsPerSecond = float64(res.Stats.Events) / wall
	}
	if ct, ok := p.(callTimer); ok {
		o.Engine.PolicyCalls = ct.CallLatency()
	}
	decisionOutcome(o)
	return o, nil
}
