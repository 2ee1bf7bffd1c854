package traces

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// FailureModel draws machine failures for workloads that have none of their own (generated
// ones): each machine runs for an exponentially distributed time to failure with mean MTTF, is
// removed, and comes back after an exponentially distributed repair time with mean MTTR, with the
// capacity it had. Draws are taken machine by machine from one *rand.Rand, so its seed fixes
// every machine's history.
type FailureModel struct {
	MTTF Time // mean time to failure; 0 disables the model
	MTTR Time // mean time to repair (> 0 when MTTF is)
}

// Validate reports a model that cannot work.
func (f FailureModel) Validate() error {
	if f.MTTF < 0 || f.MTTR < 0 || (f.MTTF > 0 && f.MTTR == 0) {
		return fmt.Errorf("failure model: mttf %d µs and mttr %d µs must be ≥ 0, and mttr > 0 when mttf is", f.MTTF, f.MTTR)
	}
	return nil
}

// maxFailureEvents bounds what Events generates: a model that would fail every machine every
// microsecond is an error, not an out-of-memory death.
const maxFailureEvents = 1 << 24

// Events returns the removals and re-additions of c's machines over [from, to), sorted by time
// (ties by machine), drawn from rng. A machine still under repair at to stays removed. It is an
// error when more than 2^24 events would be drawn.
func (f FailureModel) Events(c *Cluster, from, to Time, rng *rand.Rand) ([]ClusterEvent, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if f.MTTF == 0 || c.Pooled || to <= from {
		return nil, nil
	}
	// Expected count: machines × span / (MTTF + MTTR) × 2; refuse before drawing.
	span := float64(to - from)
	if exp := 2 * float64(len(c.Machines)) * span / float64(f.MTTF+f.MTTR); exp > maxFailureEvents {
		return nil, fmt.Errorf("failure model: about %.3g machine events over the run (at most %d): raise mttf", exp, maxFailureEvents)
	}
	draw := func(mean Time) Time {
		return max(1, Time(math.Round(rng.ExpFloat64()*float64(mean))))
	}
	var evs []ClusterEvent
	for m := range c.Machines {
		t := from
		for {
			t = addSat(t, draw(f.MTTF))
			if t >= to {
				break
			}
			evs = append(evs, ClusterEvent{T: t, Kind: MachineRemove, Machine: int32(m)})
			t = addSat(t, draw(f.MTTR))
			if t >= to {
				break
			}
			evs = append(evs, ClusterEvent{T: t, Kind: MachineAdd, Machine: int32(m), Capacity: c.Machines[m].Capacity})
			if len(evs) > maxFailureEvents {
				return nil, fmt.Errorf("failure model: more than %d machine events: raise mttf", maxFailureEvents)
			}
		}
	}
	slices.SortStableFunc(evs, func(a, b ClusterEvent) int {
		if a.T != b.T {
			if a.T < b.T {
				return -1
			}
			return 1
		}
		return int(a.Machine) - int(b.Machine)
	})
	return evs, nil
}
