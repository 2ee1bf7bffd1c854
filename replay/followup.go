package replay

// maxFollowUps bounds the follow-up calls at one instant, so a policy that keeps preempting
// with zero delay cannot hold the clock.
const maxFollowUps = 16

// followUp calls the policy again at the current instant when the plan just applied freed
// resources at once (a preemption with engine.preempt_delay_s = 0) that are still free after
// it, and the engine is event-driven: that is a release at this instant, and a release with a
// delay calls the policy when it lands. Without it the freed resources waited for the next
// unrelated event — sp with preempt=true preempted for an SLO job and started it only then
// (scenario sp_preempt_release_d0). In cycle mode the next tick sees them, as before.
func (e *Engine) followUp(called bool) error {
	for n := 0; called && e.cfg.Cycle == 0 && e.stillFree() && !e.dt.busy && n < maxFollowUps; n++ {
		e.freedNow = e.freedNow[:0]
		if err := e.schedule(); err != nil {
			return err
		}
	}
	e.freedNow = e.freedNow[:0]
	return nil
}

// stillFree reports whether a machine freed at once by the last plan has free capacity left.
func (e *Engine) stillFree() bool {
	for _, m := range e.freedNow {
		if !e.free[m].IsZero() {
			return true
		}
	}
	return false
}
