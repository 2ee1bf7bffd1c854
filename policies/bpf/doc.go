// Package bpf implements Bounded Priority Fairness (BPF, "BPF: Mitigating the
// Burstiness-Fairness Tradeoff in Multi-Resource Clusters") and its comparators N-BPF and M-BVT:
// policies that share a cluster between latency-sensitive queues (LQs), whose jobs arrive in
// ON/OFF bursts, and throughput-sensitive queues (TQs) of backlogged batch jobs.
//
// Registry names: "bpf", "nbpf", "mbvt" (see Entries). The foundation's "drf" and "sp" at
// queue level are the paper's other baselines.
//
// # Queue model
//
// Allocation is decided per queue, like YARN queues; inside a queue, jobs run in FIFO order
// (JobID, which follows submit order): the queue's first job with pending runnable tasks is
// served, lowest runnable stage first, and a job none of whose tasks fits blocks its queue. A
// queue is an LQ if policy.params.queues declares class "lq" for it or, undeclared, if its first
// job's Class is "lq" (any case; traces/tpcdag and the bpf generator label LQ jobs so); every
// other queue is a TQ.
//
// An LQ's n-th ON period brings a burst with start T(n), allowed processing time t(n) (its jobs
// are due at T(n)+t(n)) and demand vector d(n). These come from two sources, field by field:
//
//   - Declared, in policy.params.queues.<name> (the paper's LQs declare them at admission;
//     BoPF's queue_input files carry them): start_s (T(0)), period_s (T(n+1)−T(n)), duration_s
//     (t), demand (d as fractions of cluster capacity: a list in View.Dims order or a map from
//     dimension name), count (number of bursts), or instead of period_s/duration_s/demand a list
//     bursts: [{duration_s, period_s, demand}, …] that repeats cyclically (one entry per line of a
//     BoPF queue_input file), and class ("lq" or "tq") to override the jobs' class.
//     Configuration files deliver these flattened and lower-cased (the key
//     policy.params.queues.lq0.period_s arrives as "queues.lq0.period_s"); nested and flattened
//     forms are both accepted, and a declaration matches a queue name exactly or else up to case.
//   - Derived from the jobs, for every field not declared: T(0) is the queue's first arrival;
//     the period is policy.params.period_s (an LQ with no period at all cannot be checked and is
//     admitted as elastic, reason "burst parameters unknown"); a burst is the set of the queue's
//     jobs that arrive within one cycle [T(n), T(n+1)); its t(n) is the latest Job.Deadline
//     less T(n) (the bpf generator sets Deadline = burst start + allowed processing time), or
//     without deadlines the burst's estimated shortest completion time (the paper's "ON period
//     equal to the shortest completion time"), at most the period; its d(n) is the
//     per-dimension peak of the same estimated execution — the burst alone on the cluster, every
//     stage starting when its parents end and running its tasks in as few waves as capacity
//     allows — capped at capacity; and t(n) is stretched where d(n)·t(n) would not cover the
//     burst's estimated work Σ tasks × demand × estimate (stages overlapping beyond capacity, a
//     deadline tighter than feasible). Only StageInfo.Estimate is used, never true durations.
//   - Contracts end at count bursts, or without one at the last burst starting before
//     policy.params.horizon_s (default one day).
//
// Admission sees the first burst only: the conditions are checked for the contract that repeats
// the first burst's derived d and t (and the declared fields) every period. At run time each
// later burst's derived d(n), t(n) apply, but its budget d(n)·t(n) is held to its long-term fair
// share C·(T(n+1)−T(n))/N among the N queues admitted so far (condition (3) at the current N),
// so a queue cannot gain by bursting larger than its fair share (see Allocation). Declared
// fields apply to every burst as declared.
//
// # Admission (Algorithm 1, §3.3)
//
// A queue is admitted when its first job is seen; at one scheduling point new LQs are admitted
// before new TQs, each in queue order. With N queues already admitted (|H|+|S|+|E|):
//
//   - safety (2): every guaranteed queue's bursts stay within C·(T(n+1)−T(n))/(N+1); else the
//     new queue is rejected. The largest burst ratio max_n,k d^k(n)t(n)/(C^k·(T(n+1)−T(n))) among
//     H ∪ S is kept, so the check is O(1).
//   - fairness (3): the new LQ's own bursts satisfy the same bound; else it is elastic (E).
//   - resource (4): during each of its ON periods [T(n), T(n)+t(n)) its d(n) fits beside the
//     demand committed by hard queues; if so it is hard (H), else soft (S) — or, under N-BPF,
//     elastic. ON periods are half-open: bursts that touch do not overlap.
//   - a TQ is elastic if the safety condition holds, else rejected.
//
// Queues never leave. Comparisons carry a relative tolerance of 1e-9 in favour of admission.
// Every decision is recorded as an Admission (queue, kind, class, failed condition, a one-line
// reason with the numbers, time, N+1, the first burst's parameters and the contract's length);
// the policies implement policies.Reporter, so a run's outputs include them as admissions.json and
// the per-class counts as the metrics admissions.H, admissions.S, admissions.E and
// admissions.rejected.
//
// # Allocation (§3.3, §4.1)
//
// At every scheduling point, in this order:
//
//  1. Hard queues, earliest current burst first: during the cycle [T(n), T(n+1)) a hard queue
//     may hold up to d(n) (its share level) until the tasks started under the guarantee have
//     consumed its budget d(n)·t(n) — consumption is charged at start as demand × estimated
//     duration, and the last task may overshoot. Non-preemptive by default, so part of the
//     guarantee may arrive after the ON period, as footnote 2 allows.
//  2. Soft queues, shortest remaining estimated work first (SRPT), each up to d(n) and its
//     budget, together within the uncommitted capacity C − Σ_{j∈H} d_j(t) (hard queues in their
//     ON periods with budget left) less what soft queues already hold.
//  3. Elastic queues share what is left by DRF (progressive filling on dominant share; ties to
//     the lower queue index), and so do guaranteed queues for their demand beyond the guarantee
//     (over their share level or budget, or between bursts) until everything they started in
//     the cycle reaches their fair share of it, C·(T(n+1)−T(n))/N: a burst a little larger than
//     its declaration keeps going at its fair share, while one larger than its fair share is
//     cut back to give resources to the TQs (Figs. 1 and 4). A guaranteed queue's dominant share
//     counts what it holds under its guarantee, so it competes only once that has run down. A
//     queue blocked on free capacity ends the scheduling point unless Options.Backfill.
//  4. Spare capacity — what no queue within its fair share can use — goes to guaranteed queues
//     with demand beyond it, by DRF: Pareto efficiency.
//  5. Rejected queues last, by DRF, from what nobody admitted can use (policy.params.rejected:
//     "spare", the default) or never ("never": their jobs stay unfinished).
//
// A guaranteed queue blocked on free capacity keeps what is free of its next task's demand from
// the later steps, so capacity freed for it accumulates until the task fits. With
// policy.params.preempt, a blocked guaranteed queue also preempts tasks of rejected queues,
// then of elastic queues from the largest dominant share down, most recently started first;
// pooled, it makes room at once for what its guarantee still allows its head job to start, with
// several machines for its next task on one machine. The engine frees preempted resources after
// engine.preempt_delay_s; no new preemption is planned while any is in flight (capacity neither
// free nor held by a running task).
//
// # M-BVT (§2.3)
//
// Each queue has a virtual time A_i, its DRF progress ∫ dominant share dt (seconds). An LQ burst
// arrival warps it by W_i: its effective virtual time is A_i − W_i until it has progressed W_i
// since the arrival (the warp is consumed at the rate of its DRF progress, BVT's warp time
// limit), then A_i again, so the priority is borrowed from the queue's future. Queues are served
// by effective virtual time: the only smallest takes all it can use, queues equal within
// policy.params.tie_s (default 1) share by DRF. A queue that becomes active after being idle
// starts from at least the smallest virtual time of the active queues, so idleness banks no
// credit. W_i is policy.params.queues.<name>.warp_s, else policy.params.warp_s, else the
// arriving burst's size max_k d^k/C^k × t in seconds (declared duration_s and demand, or derived
// as for BPF). Virtual times integrate the allocation held between scheduling points, exact in
// event-driven mode and approximate with engine.cycle_s.
//
// # Metrics
//
// Policies must not import replay (the import direction is experiments → replay, policies →
// traces), so the paper's metrics are pure helpers over plain values that the experiments layer
// fills from a run: Completions (average and sorted completion times of LQ and TQ jobs),
// FactorOfImprovement (avg LQ completion under DRF / under the policy), CDF, LongWindowShares
// (each queue's average dominant share over long windows from the engine's usage series),
// ShareTable and CheckFairness (no admitted TQ's average dominant share below any admitted LQ's).
// Utilization and per-queue usage over time are the engine's (replay.Summary, Result.Usage).
//
// # Cost
//
// A policy instance keeps per-job records and per-queue FIFOs updated from View.Changed, so a
// scheduling point costs O((jobs changed + tasks started) · log + queues), never a scan over all
// jobs. Admission costs O(1) per TQ and, per LQ cycle, O(1 + ON period / 1 s) plus the
// breakpoints in two seconds of the committed timeline (AdmissionControl): linear in queues ×
// cycles overall. Placement is O(1) in pooled mode (BPF's simulator shares one capacity vector);
// with several machines View.FirstFit finds the first candidate and a machine filled by the plan
// being built is skipped by a linear scan.
package bpf
