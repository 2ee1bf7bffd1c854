package experiments

import "fmt"

// StallWarning returns a one-line warning when a run without a horizon or a stop rule ended with
// jobs unfinished: the replay ran out of events with work still pending, so nothing could ever
// start it (a policy that starts nothing, a demand no machine holds, a slow-start deadlock).
// Its averages cover the finished jobs only. It returns "" otherwise.
func (o *Outcome) StallWarning() string {
	e := o.Config.Engine
	if e.HorizonS > 0 || e.StopAfterQueue != "" || o.Summary.Unfinished == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d jobs never finished: the replay ran out of events with work pending (a policy that starts nothing, a demand no machine holds, or a slow-start deadlock); averages cover the finished jobs only",
		o.Summary.Unfinished, o.Summary.Jobs)
}
