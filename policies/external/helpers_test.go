package external_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/internal/testbin"
	"github.com/schedlab/schedlab/traces"
)

// python returns the python3 interpreter, skipping the test when there is none.
func python(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is not installed: `make setup` installs it (CI must test the Python client)")
		}
		t.Skip("python3 is not installed: the Python client cannot be tested (`make setup` installs it)")
	}
	return p
}

// script is the absolute path of a file under python/.
func script(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("python", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// resolve builds a configuration from --set style assignments.
func resolve(t testing.TB, sets ...string) experiments.Config {
	t.Helper()
	v := experiments.NewViper()
	if err := experiments.ApplySet(v, sets); err != nil {
		t.Fatal(err)
	}
	c, err := experiments.Resolve(v)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// run replays w (nil: the configured workload) and returns jobs.parquet's bytes.
func run(t testing.TB, w *traces.Workload, sets ...string) ([]byte, *experiments.Outcome, error) {
	t.Helper()
	c := resolve(t, sets...)
	var o *experiments.Outcome
	var err error
	if w == nil {
		o, err = experiments.Run(c)
	} else {
		o, err = experiments.RunWorkload(c, w)
	}
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if err := experiments.WriteJobs(&b, o.Result.Jobs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), o, nil
}

// constrainedWorkload is a seeded random DAG workload on 8 machines in 2 racks (machines 0-2
// have GPUs) whose jobs carry hard and soft gpu and rack constraints, classes and priorities.
func constrainedWorkload(seed uint64) *traces.Workload {
	rng := rand.New(rand.NewPCG(seed, 23))
	w := &traces.Workload{Name: fmt.Sprintf("constrained-%d", seed), Dims: []string{"cpu", "mem"}, Cluster: traces.Uniform(8, traces.VecOf(4, 8), 2)}
	for m := 0; m < 3; m++ {
		w.Cluster.Machines[m].GPU = true
	}
	classes := []string{"slo", "be"}
	submit := traces.Time(0)
	for range 60 {
		submit += traces.Time(rng.IntN(20)) * traces.Second
		j := traces.Job{Submit: submit, Queue: fmt.Sprintf("q%d", rng.IntN(3)), Class: classes[rng.IntN(2)], Priority: rng.IntN(3), Weight: float64(1 + rng.IntN(3))}
		switch rng.IntN(5) {
		case 0:
			j.Placement = traces.Placement{Kind: traces.PlacementGPU, Hard: true}
		case 1:
			j.Placement = traces.Placement{Kind: traces.PlacementGPU, Slowdown: 1.5}
		case 2:
			j.Placement = traces.Placement{Kind: traces.PlacementRack, Hard: rng.IntN(2) == 0, Slowdown: 1.4}
			if j.Placement.Hard {
				j.Placement.Slowdown = 0
			}
		}
		for s := range 1 + rng.IntN(3) {
			d := traces.Time(5+rng.IntN(60)) * traces.Second
			st := traces.Stage{Tasks: int32(1 + rng.IntN(6)), Demand: traces.VecOf(float64(1+rng.IntN(4))/2, float64(1+rng.IntN(8))/2),
				Duration: d, Estimate: d * traces.Time(1+rng.IntN(3)) / 2}
			if s > 0 {
				st.Parents = []int32{int32(rng.IntN(s))}
			}
			j.Stages = append(j.Stages, st)
		}
		w.Jobs = append(w.Jobs, j)
	}
	return w
}

// tiny is a small pooled workload: faults show at the first call.
func tiny() *traces.Workload {
	w := constrainedWorkload(9)
	w.Jobs = w.Jobs[:5]
	w.Cluster.Pooled = true
	return w
}

// TestMain lets the test binary play an external scheduler written in Go (child.go) when
// started with SCHEDLAB_EXT_CHILD set.
func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode))
	}
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
