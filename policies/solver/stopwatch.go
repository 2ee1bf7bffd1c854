package solver

import "time"

// Stopwatch measures the wall time of a solve for its statistics. It is the clock solver-backed
// policies read (their packages may not call time.Now, which the repository's lint forbids in
// deterministic code): what it measures goes into per-event tables, never into decisions or
// metrics.
type Stopwatch struct{ start time.Time }

// StartStopwatch starts a stopwatch.
func StartStopwatch() Stopwatch { return Stopwatch{start: time.Now()} }

// Elapsed returns the wall time since the stopwatch started.
func (s Stopwatch) Elapsed() time.Duration { return time.Since(s.start) }
