// Package generate groups the synthetic workload generators, one subpackage per paper's workload
// recipe:
//
//   - cora: CORA §III-C — Poisson arrivals of PUMA-like MapReduce jobs on a pooled cluster of
//     containers, with sigmoid completion-time utilities in three sensitivity classes.
//   - bpf: BPF §5.1 — latency-sensitive queues (LQs) with periodic bursts of TPC/BigBench query
//     DAGs scaled to fill a resource, and batch queues (TQs) backlogged at time 0.
//   - jamaisvu: JamaisVu §5 — k-means job classes over Google trace runtimes, sampled onto a
//     256-node, 8-rack cluster with the SLO/best-effort mixes of its Table 3.
//
// Every generator has the same shape: an Options struct whose Defaults() are the paper's recipe,
// Options.Validate naming each bad field, Keys() documenting the options as configuration keys,
// and Generate(o, r) returning a validated *traces.Workload whose Source records the generator
// and its options. All randomness comes from the *rand.Rand passed in (callers seed it from the
// experiment seed and a component name); each generator splits it into one stream per component
// (arrivals, class mix, ...) up front, so changing one component's options does not shift the
// draws of the others.
package generate

// Key documents one configuration key of a generator: its name (without a prefix such as
// "workload.cora."), its default and a one-line description.
type Key struct {
	Name    string
	Default any
	Doc     string
}
