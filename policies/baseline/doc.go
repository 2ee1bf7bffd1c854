// Package baseline implements the scheduling baselines the papers compare against: fifo, fair
// (Hadoop's Fair Scheduler, as in CORA), drf (dominant resource fairness), sp (strict priority,
// the "prio"/"SP" baseline of JamaisVu and BPF), edf and srpt.
//
// # Ordered greedy scheduling
//
// Every baseline keeps the entities with pending runnable tasks in an order and, at each
// scheduling point, repeatedly takes the best entity and starts tasks of its runnable stages,
// lowest stage index first. A stage whose task fits nowhere is passed over for the entity's next
// runnable stage; an entity none of whose runnable stages has a task that fits is blocked. A
// task goes to machine 0 in pooled mode (one machine) and otherwise to the lowest-numbered
// machine whose remaining free capacity fits it (first fit). When the best entity is blocked the
// scheduling point ends: the head of the order blocks those behind it, so large tasks are never
// starved. With Options.Backfill the blocked entity is set aside for the rest of the scheduling
// point and the next one is tried; in the worst case that visits every active entity.
//
// Static orders give the best job every task that fits before looking at the next:
//
//   - fifo: (submit time, JobID).
//   - edf: (deadline, submit time, JobID); a job without a deadline (0) sorts after all that
//     have one.
//   - srpt: (JobState.RemainingEstimate, submit time, JobID); the key changes as tasks finish.
//
// Sharing orders start one task at a time and re-key the entity after each start (progressive
// filling), so the entity with the smallest share always gets the next task:
//
//   - fair: share = running tasks / weight. Tasks are counted like containers, as CORA and
//     Hadoop's Fair Scheduler count them, whatever their size.
//   - drf: share = dominant share of the allocation (JobState.Alloc over View.Capacity) / weight.
//   - sp: classes strictly in order, drf inside a class: key (class rank, dominant share / weight,
//     ...). Options.ClassOrder lists classes from highest to lowest; a class it does not list
//     ranks after every listed class. With no ClassOrder, JobInfo.Priority ranks jobs, highest
//     first, and jobs of equal priority form one class.
//
// Options.Level selects the entities of the sharing orders: "job" (the default) shares between
// jobs, weighted by JobInfo.Weight (0 reads as 1; so do negative and non-finite weights);
// "queue" shares between queues, weighted by Params["weights"] (a map from queue name to a
// positive number; queues not named weigh 1, names of queues the workload lacks are ignored),
// with each queue's share summed over all its jobs and its jobs served in FIFO order. For sp at
// queue level an entity is one queue's jobs of one class. Ties between entities break by
// (submit time, JobID) for jobs and by queue index for queues. fifo, edf and srpt always order
// jobs; they check Level for typos but do not use it.
//
// # Placement constraints
//
// A job with a placement constraint (JobInfo.Placement, as in JamaisVu's SLO jobs) has its tasks
// placed on its preferred resources by the same first fit, restricted to them: the GPU machines
// (kind gpu), or the rack its running tasks are on (kind rack; with none running, the first
// fitting machine picks the rack). A hard constraint waits for preferred resources; a soft one
// falls back to first fit anywhere rather than wait — the baselines are runtime-unaware, so they
// cannot weigh waiting against the Slowdown the engine then applies. With preemption (sp) a
// hard-constrained job only preempts tasks on machines it may use. Pooled mode ignores
// constraints, as the engine does.
//
// JamaisVu's `prio` is sp with its default class ranking: the jamaisvu generator gives SLO jobs
// Priority 1 and best-effort jobs 0, so SLO jobs go strictly first (or set
// policy.class_order: [slo, be], the same order by class name).
//
// # Preemption (sp)
//
// sp is non-preemptive unless Params["preempt"] is true. Then, when the job at the head of the
// order (or, with backfill, any job set aside) is blocked, sp looks for room for its next task
// (the lowest runnable stage with pending tasks) among running tasks of strictly lower classes:
// lowest class first, most recently started first (ties: higher JobID, stage, task first). Each
// candidate's demand is added to a tally for its machine; the first machine whose free capacity
// plus tally fits the task is chosen and exactly the tallied candidates on it are preempted. A
// task of an equal or higher class is never preempted. The engine frees preempted resources only
// after its preemption delay, so the waiting task is not started in the same plan; instead the
// job holds the part of its demand that must come from capacity already free on that machine,
// keeping lower classes off it, and preempts nothing more until the machine's free capacity has
// grown by the preempted amount (or the job stops waiting). If no machine can be cleared, nothing
// is preempted.
//
// # Cost
//
// Policies are instantiated once per run and keep state across scheduling points: an indexed
// binary heap of entities (positions indexed by JobID or queue) updated from View.Changed, and
// per-job records. A scheduling point costs O((tasks started + jobs changed) · log n) and does
// not allocate in the steady state. A blocked job's smallest demand is remembered until the job
// changes, so finding that the head of the order is still blocked usually costs no View calls.
//
// The View reports free capacity as it was before the plan, so the policies subtract their own
// planned starts. With several machines and a View with the SharedFit ability (the replay
// engine) they plan on the engine's own first-fit tree, which the engine sets back after
// applying the plan: nothing to keep in step. Otherwise they mirror every machine's free capacity in a segment
// tree (O(log machines) per placement) and keep it in step with the View: through the optional
// MachineChanges ability when the View has it, at O(changed machines · log machines) per
// scheduling point; otherwise by re-reading the machines that jobs with finished tasks ran on
// (up to all machines when one job spans the cluster). Either way, if the total free capacity
// then disagrees with View.FreeTotal (capacity came back where no changed job ran, such as a
// preempted task's delayed release), every machine is re-read.
//
// Preemption gathers and sorts the running tasks of lower classes, so it costs O(r log r) in
// their number r, paid only when a higher-class job is blocked and holds nothing.
//
// The policies assume each plan they return is applied, as the engine does; jobs a plan started
// tasks for are re-read at the next scheduling point, so a plan that was dropped leaves no
// stale state behind.
package baseline
