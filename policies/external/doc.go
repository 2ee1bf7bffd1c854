// Package external is the policy "external": a scheduler outside schedlab, in any language,
// that speaks the line protocol of PROTOCOL.md. The engine sees it as one more policies.Policy,
// so nothing in the replay changes: at each scheduling point the policy sends the scheduler what
// changed since the previous call (arrivals with their scheduler-visible descriptions, job and
// stage states, task starts and ends, free capacity, the time), reads back a plan and hands it to
// the engine, which validates it exactly as a Go policy's plan.
//
// The scheduler runs as a child process (policy.params.command, an argv list) speaking over its
// stdin and stdout, or listens on a Unix socket (policy.params.socket) that the policy connects
// to. A child runs in its own process group, and the whole group is killed when the run ends or
// fails, so nothing is left behind. Every failure of the scheduler — a crash, a hang past
// policy.params.timeout_s, garbage, a wrong protocol version, an early exit — ends the run with
// one error line that quotes the last line the scheduler wrote to its stderr.
//
// The wall time of every call is recorded (external_calls.parquet and the latency summary in
// external.json) and never decided on; results depend only on the plans.
package external
