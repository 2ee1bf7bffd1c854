// Package cora implements CORA ("Need for Speed: CORA Scheduler for Optimizing Completion-Times
// in the Cloud", Huang et al.; ../shared/papers/cora.txt): at every scheduling event the policy
// allocates the cluster to the active jobs so as to maximize lexicographically the sorted vector
// of their completion-time utilities U_i(T_i) — first the worst job's utility, then the next
// worst, and so on — and starts tasks as that allocation says until the next event.
//
// Registry name "cora". The comparator RRH is policies/rrh; FIFO, Fair and EDF are
// policies/baseline.
//
// # Events and the slotted model
//
// In event-driven mode (engine.cycle_s = 0) the engine calls the policy at every instant at
// which a job arrived, a task finished or a job completed — CORA's three scheduling events
// (§III-A) — and the policy solves the problem afresh for the active jobs' remaining work
// (Slotting documents the mapping):
//
//   - remaining work R_i^r: every unfinished task's demand × estimated time left (the whole
//     estimate for a waiting task, the estimate less the time run for a running one), in
//     unit-slots — CORA's task counts "scaled by task duration" (policies/internal/jobwork);
//   - capacity C^r: the cluster's whole units of each resource (40 containers in the CORA
//     workload); CORA's model is per resource, as in its §II;
//   - slots of policy.params.slot_s (default 5 s), stretched at busy events so that |T|, the
//     fewest slots that hold all the work (CORA's "just large enough" rule), stays near
//     policy.params.max_slots (default 256; 0: no bound);
//   - U_i(t), the job's utility at the end of slot t (jobs without a utility count as a flat 0).
//
// # Solvers (policy.params.solver)
//
//   - exact (default): Exact, the true lexicographic max-min by progressive filling over utility
//     levels with an earliest-deadline-first feasibility check on segment trees, exact within a
//     search budget for ties that is never reached in practice (counted as cora.inexact). Its doc
//     comment has the algorithm and the proof; exact_test.go checks it against enumerating every
//     slot assignment.
//   - lp: the paper's FINAL LP (FINAL, BuildFINAL) built on policies/solver and solved with HiGHS
//     at every event, with utilities scaled to integers by policy.params.lp_scale (resolvable —
//     the default —, no-underflow or a number; see ScaleFor). FINAL is not CORA: its objective
//     rewards spreading jobs over slots, so its optimum has a different sorted utility vector
//     on about half of small random instances (lp_test.go) and of the Table I events. With
//     policy.params.compare_exact (default true) each event is also solved exactly and the
//     disagreement counted (cora.lp_differs). policy.params.time_limit_s bounds HiGHS (default
//     0: none — a time limit makes a run depend on the machine's speed); `schedlab run
//     --dump-models DIR` writes every LP.
//
// A solver that fails or times out leaves the previous decision in force — jobs that arrived
// since go last, without a share — and is counted (cora.failures, cora.timeouts,
// cora.fallbacks); a missing or wrong highs.wasm ends the run with an error instead. So does,
// before anything is built, a problem over the size bounds (status size_limit,
// cora.size_limited): more than MaxProblemSlots slots, or for lp more than
// policy.params.max_lp_vars FINAL variables (4·jobs·slots·resources; default 1,000,000).
//
// # Acting on a solution
//
// The solution's first slot is what the scheduler acts on (CORA hands Hadoop's Capacity
// Scheduler each job's share of containers). The exact solver's schedule serves jobs earliest
// completion slot first, so its first-slot shares x_{i,1} fill the cluster in that order; the
// LP's are its x_{i,1}. The policy starts tasks for each job up to its share, in the solution's
// order (completion slot, then submit order), then gives what is still free to the jobs in the
// same order (policies/internal/grant): a job never starts more tasks than it has runnable, the
// map → reduce dependency holds, and no task is preempted.
//
// # Outputs (policies.Reporter)
//
//   - cora_events.parquet: one row per solve — time, active jobs, slots and slot length, solver,
//     status (optimal, inexact, failed, timeout), error, wall time (ms), the solution's predicted
//     min and sum utility, progressive-filling rounds and tie branches; for lp also the model's
//     size, utility scale and underflowed costs, HiGHS's iterations and time, the optimum's
//     largest fractional part and objective, and the exact solver's min, sum and agreement.
//   - cora_shadow.parquet (policy.params.shadow: true): the Fig. 3 evaluation — at every event,
//     the smallest projected utility under FIFO's, Fair's, EDF's and RRH's rules from the same
//     state (Shadow), CORA's own, and CORA's gain over each.
//   - metrics cora.events, cora.failures, cora.timeouts, cora.fallbacks, cora.inexact,
//     cora.lp_differs and cora.lp_fractional (lp), cora.shadow.<rule>.{positive, mean_gain,
//     rel_gain_q35, share_rel_gain_18} (shadow). Wall-clock times appear only in the tables; nothing the policy
//     decides depends on them, so a configuration and seed give byte-identical jobs.parquet and
//     metrics.
//
// # Cost
//
// A decision reads every active job's remaining work (O(its tasks)), builds the slotted problem
// and solves it. The exact solver at 10, 100 and 1,000 active jobs of the CORA workload takes
// about 0.05, 0.5 and 1.6 ms of CPU (BenchmarkDecide; README.md has the figures); FINAL on
// HiGHS takes 0.37 s at 10 jobs and 36 s at 100.
package cora
