package replay

import (
	"hash/fnv"
	"math/rand/v2"
)

// draws gives the random execution mechanics (holding.go, durations.go) their random numbers.
// Every draw is made by a *rand.Rand seeded from the experiment seed (Config.Seed), the
// component's name and the task attempt it is for, so a task's draw does not depend on the order
// in which a policy starts tasks: policies compared on one seed see the same start-up times,
// variance and stragglers for the same task.
type draws struct {
	seed uint64
	pcg  *rand.PCG
	r    *rand.Rand
}

func newDraws(seed int64) *draws {
	pcg := rand.NewPCG(0, 0)
	return &draws{seed: uint64(seed), pcg: pcg, r: rand.New(pcg)}
}

// Components of the random mechanics: each draws an independent stream.
var (
	compStartup  = componentHash("replay/holding/startup")
	compRelease  = componentHash("replay/holding/release")
	compVariance = componentHash("replay/durations/variance")
	compModel    = componentHash("replay/durations/model")
)

func componentHash(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// For returns the generator for one component's draws for task (job, stage, task), attempt
// (0 for draws that belong to the task, not to one attempt). The returned generator is reused by
// the next call.
func (d *draws) For(component uint64, job, stage, task int32, attempt uint32) *rand.Rand {
	k := mix64(uint64(uint32(job))<<32 | uint64(uint32(stage)))
	k = mix64(k ^ (uint64(uint32(task))<<32 | uint64(attempt)))
	d.pcg.Seed(d.seed^component, k^component)
	return d.r
}

// mix64 is SplitMix64's finalizer: a bijection that spreads nearby keys apart.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
