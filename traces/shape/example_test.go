package shape_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/schedlab/schedlab/traces/generate/cora"
	"github.com/schedlab/schedlab/traces/shape"
)

// A whole pipeline: generate CORA's workload, then shape it as a sensitivity study would — keep
// the first hour, and show the scheduler noisy estimates (e ~ N(0, 20%)) for CT-critical jobs only.
// Each component gets its own generator, seeded from the experiment seed and its name.
func Example() {
	const seed = 1
	w, err := cora.Generate(cora.Defaults(), rand.New(rand.NewPCG(seed, 0xc02a)))
	if err != nil {
		panic(err)
	}
	o := shape.Defaults()
	o.WindowEndS = 3600
	o.Estimates, o.EstimateStd, o.EstimateClasses = shape.EstimatesNoise, 20, []string{cora.ClassCritical}
	if err := shape.Apply(w, o, rand.New(rand.NewPCG(seed, 0x5a9e))); err != nil {
		panic(err)
	}
	exact := map[string]bool{}
	for _, j := range w.Jobs {
		for _, s := range j.Stages {
			exact[j.Class] = exact[j.Class] || s.Estimate == s.Duration
		}
	}
	fmt.Println("every job submitted in the first hour:", w.Jobs[len(w.Jobs)-1].Submit < 3600e6)
	fmt.Println("critical jobs with an exact estimate:", exact[cora.ClassCritical])
	fmt.Println("sensitive jobs with an exact estimate:", exact[cora.ClassSensitive])
	// Output:
	// every job submitted in the first hour: true
	// critical jobs with an exact estimate: false
	// sensitive jobs with an exact estimate: true
}
