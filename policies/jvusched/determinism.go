package jvusched

import "fmt"

// NondeterministicReason says why the run just ended depends on more than its configuration and
// seed, or "" when it does not. HiGHS is deterministic single-threaded, but a solve stopped by a
// limit while the wall-clock time limit (time_limit_s) is set may have been stopped by that
// limit, and then its incumbent — or the absence of one — depends on the machine's speed. The
// node limit alone is deterministic. experiments records such a run as deterministic: false
// (experiments.Nondeterminist) and sweeps do not cache it.
func (p *Policy) NondeterministicReason() string {
	if p.stats.timeLimited == 0 {
		return ""
	}
	return fmt.Sprintf("jvusched: %d MILP solves stopped by a limit while time_limit_s = %g s was set: their solutions depend on the machine's speed", p.stats.timeLimited, p.prm.TimeLimit.Seconds())
}

// noteLimit counts a solve a limit stopped (with or without an incumbent) that the wall-clock
// time limit may have stopped.
func (p *Policy) noteLimit() {
	if p.prm.TimeLimit > 0 {
		p.stats.timeLimited++
	}
}
