// Package rrh implements the risk-reward heuristic (RRH) that the CORA paper compares with (its
// reference [14]: D. E. Irwin, L. E. Grit and J. S. Chase, "Balancing risk and reward in a
// market-based task service", HPDC 2004): the FirstReward heuristic of that paper, with the
// opportunity cost taken from each job's utility decay rate at its target completion time, as
// CORA §III-B describes it.
//
// # The rule
//
// At every scheduling point each active job i gets a reward
//
//	reward_i = (α·PV_i − (1−α)·cost_i) / RPT_i
//
// and jobs are served in decreasing order of reward, the best job taking every runnable task
// that fits before the next (a priority order; the engine's capacity and dependencies hold).
// The terms, in the units of the utilities (per second where divided by time):
//
//   - RPT_i, the remaining processing time: the job's remaining estimated work divided by the
//     cluster's capacity (the time it needs with the whole cluster), in seconds.
//   - PV_i, the present value of the job's gain: its utility if it completes after RPT_i,
//     U_i(now + RPT_i), discounted at rate δ per second: U_i(now + RPT_i) / (1+δ)^RPT_i. This is
//     the "future utility gain" of CORA §III-B, discounted as a present value the way FirstReward
//     discounts the value a task earns on completion.
//   - cost_i, the opportunity cost of running job i first: the utility the other jobs lose while
//     it runs, RPT_i · Σ_{j≠i} decay_j. Irwin et al. charge each waiting task's value decay rate
//     for the time it is delayed; CORA §III-B takes the decay rate to be "the slope of the job
//     utility function at the target completion time": p·μ/4 for the sigmoid p/(1+e^{μ(t−d)}),
//     |slope| for a truncated linear utility, 0 for a flat one.
//   - α ∈ [0, 1] weighs reward against risk; α = 1 ranks by discounted gain per unit time alone
//     (Irwin et al.'s unit-gain view), α = 0 by opportunity cost alone.
//
// Parameters (policy.params.*): alpha (α, default 0.5) and discount_per_s (δ, default 0.001, about
// 6% a minute). Neither CORA nor its reference fixes values for this workload; these are our
// choices. Because cost_i/RPT_i = Σ_{j≠i} decay_j, jobs with steep utilities (CT-critical,
// decay p·μ/4 ≈ 1–7.5 per second) rank ahead of gradual ones whatever α < 1 is — the bias CORA
// reports ("RRH overprotects CT-critical jobs").
//
// The formula is our reading of FirstReward; the project's library holds no copy of Irwin et al.'s
// paper to check its details (compound against simple discounting, for one) against, and CORA
// describes RRH in two sentences. A job with no work left ranks first (it is finishing); ties
// break by submit order. Jobs without a utility have gain and decay 0. A scheduling point costs O(active jobs · (tasks per
// job + log active jobs)).
package rrh
