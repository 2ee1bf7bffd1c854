// Package jvusched is JVuSched, the scheduler of JamaisVu (Tumanov et al., CMU-PDL-16-104, §4):
// a TetriSched-style space-time scheduler (Tumanov et al., EuroSys 2016) that, at every
// scheduling cycle, expresses every pending job's options and every running job's preemption
// cost in STRL/pSTRL (package strl), compiles them into one MILP (package milp), solves it with
// HiGHS (policies/solver) and starts what the solution starts now, preempting what it kills.
//
// # A cycle
//
// jvusched runs at the engine's scheduling points; it is meant for a cycle (engine.cycle_s; the
// paper uses 5 s). The plan covers plan_ahead_s in slices of quantum_s (default: the cycle).
// It allocates whole machines, one task per machine (TetriSched's node model; JamaisVu's tasks
// take a node), and schedules single-stage jobs as gangs: all of a job's tasks start together,
// and a preemption takes all of them. It needs machines (not pooled mode), and rejects
// multi-stage jobs and tasks larger than a machine with an error naming the job.
//
// Pending job j (k tasks, estimate T̂ — the configured predictor's, plus what u added) gets, for
// every start slice s of the window and every placement option, a leaf nck(set, k, s, d, v):
//
//   - placement: preferred resources at the nominal runtime d = T̂ — the GPU machines for kind
//     gpu, each rack with ≥ k machines for kind rack (one task is always on one rack); for a soft
//     constraint also any machines at d = Slowdown·T̂; for a hard one nothing else; without a
//     constraint any machines;
//   - value of an SLO job (one with a deadline) completing at c = s + d: slo_value (1000) if
//     c ≤ deadline, else 0 — with flag o, slo_value·max(0, 1 − (c − deadline)/(o_decay·T̂)) —
//     minus a tie-break below ε/10 growing with c − (now + T̂), so that equal-valued options do
//     not postpone a job cycle after cycle. Options worth nothing are left out;
//   - value of a best-effort job: W/(W + c − (now + T̂)) for the window W: 1 at the earliest
//     completion, ½ a window later (latency-sensitive, never zero);
//   - an SLO job none of whose options is worth anything can no longer meet its deadline; with
//     late_slo=be (default) it is valued as a best-effort job from then on, with drop it is never
//     started again (counted in jvusched.late_slo_jobs either way).
//
// The options of one job are alternatives: max[j](…). With be_plan_ahead=false best-effort jobs
// get only a start now.
//
// # In-situ preemption (flag p)
//
// Each running job contributes killnck(its machines, k, start_p, finish_p, c): choosing it
// returns its machines from start_p = now + engine.preempt_delay_s (rounded up to a slice)
// through its expected completion, at cost c = the value of completing it at its expected
// completion (as above, with no tie-break; a late SLO job is worth 1 with late_slo=be, 0 with
// drop) plus ε (epsilon, 0.01). So preempting an admitted SLO job costs slo_value/1 = 1000× a
// best-effort job's, and ε keeps a running job from being preempted for an equally valued
// pending one (JamaisVu §4.1.2). The paper's c(t) is "a function of time" whose form it does
// not state, and its linear KillnCk sizes the cost by nodes; both are parameters here, each a
// declared choice: be_value=node makes a best-effort job worth 1 per task (pending value and
// initial cost alike), be_kill_growth=g adds g per node-hour the running job has done (c(t)
// linear in work done). The defaults (job, 0) are the constant 1 per job. Single-task running jobs the MILP cannot tell apart (same
// partition, returned slices and cost) are offered together as one linear KillnCk over their
// machines at the same cost per machine — an exact aggregation; which of them are preempted is
// decided by the policy: the most recently started first. The MILP is sum(kills…, max[j]…);
// its optimum decides preemptions and starts together (Fig. 6). Preempted work is lost (the
// engine restarts the tasks unless engine.preempt_keeps_work) and the preempted job is pending
// again. With a preemption delay, the freed machines serve options from start_p on, so a job
// placed on them starts in a later cycle.
//
// # Under-estimates (flag u) and over-estimates (flag o)
//
// Without u, a running job past its expected completion is expected to end within the current
// slice. With u, at every cycle at which a running job is past its expected completion its
// expected runtime grows by one cycle (backoff=incby1) or by 2^t cycles (expinc, the paper's:
// t = 0 at the first late cycle, then 1, 2, …; the paper's "t incremented on each cycle" read
// as each late cycle). The growth widens its KillnCk window and, past the deadline, lowers its
// preemption cost (§4.2). A job's estimate only grows: a preempted job keeps what u added. The
// cycle is the engine's (policies.Timing); in event-driven mode it is the quantum.
//
// With o, an SLO job's value decays linearly past its deadline instead of dropping to zero
// (§4.3); the slope is not stated in the paper: it reaches zero o_decay (1) estimated runtimes
// after the deadline.
//
// # Modes
//
// mode=global (default) puts every pending job into one MILP per cycle (at most max_pending,
// SLO jobs first, each class oldest first). mode=greedy is §4.1.4's: one MILP per pending job,
// SLO jobs first then best effort, each FCFS, each with the running jobs' KillnCk terms; a job's
// chosen option is held (a milp reservation) for the jobs solved after it in the same cycle.
//
// # Solving, limits and determinism
//
// Each MILP is solved to a relative gap of 1e-9 (values span ε·10⁻² to slo_value·jobs) with a
// time limit (time_limit_s, 10 s) and optionally a branch-and-bound node limit (max_nodes). A
// solve stopped by a limit with a solution uses it (jvusched.limit_incumbent); one with none, or
// a solver error, starts and preempts nothing new that cycle (jvusched.fallbacks). Wall time is
// recorded, never decided on — but a time limit that is hit makes the result depend on the
// machine's speed: the node limit is deterministic, yet HiGHS closes these MILPs at the root (it
// does not bound the root's work), so the default relies on a limit generous enough never to be
// hit on the reproductions' workloads, and counts any solve that hit one (see README.md for
// the measured cycle times); a run in which a limit stopped a solve while time_limit_s was set
// reports itself nondeterministic (NondeterministicReason: provenance deterministic: false, never
// cached by sweeps). With no limit hit, the same configuration and seed give the same
// results (HiGHS is deterministic single-threaded). warm_start=true seeds each solve with the
// options chosen in the previous cycle that are still offered, as a partial solution; it is off
// by default because HiGHS completes a partial start with a sub-MIP, which costs more than it
// saves on these models (EXP1 at 2.5× the arrival rate: 25% more simplex iterations, 1.5× the
// solver time).
//
// Sizes are bounded before anything large is allocated: plan_ahead_s / quantum_s may make at
// most MaxPlanSlices slices (checked by New against the engine's cycle), and each MILP is
// compiled within max_milp_vars, max_milp_rows and max_milp_nonzeros (milp.Limits). A global
// MILP over them is recorded (status size_limit, a fallback, jvusched.size_limited) and
// retried with the first half of its jobs, down to one; a greedy job's starts nothing that
// cycle. The defaults are far above the reproductions' models, so they change none of them.
//
// # Records
//
// jvusched implements policies.Reporter: metrics jvusched.solves, limit_incumbent, fallbacks,
// preempted_jobs, estimate_increments, late_slo_jobs, unschedulable_jobs, size_limited and milp.max_rows,
// max_cols, max_integers; and the table cycles (cycles.parquet), one row per MILP: t_s, call
// (scheduling call), solve (index within the cycle), job (greedy: the job solved; -1 global),
// pending, considered, running, leaves, rows, cols, binaries, integers, nonzeros, partitions,
// slices, status, objective, gap, nodes, simplex_iterations, wall_ms and solver_ms (solver
// statistics), warm_started, limit, fallback, starts and preemptions (jobs). With
// `schedlab run --dump-models DIR` every MILP is written as DIR/jvusched_c<call>_s<solve>-<seq>.lp
// and, unless dump_problems=false, its input as DIR/jvusched_c<call>_s<solve>.problem (milp's
// text form: machines, busy slices, reservations and the pSTRL expression; milp.ParseProblem
// reads it back).
package jvusched
