package predict_test

import (
	"fmt"
	"math"

	"github.com/schedlab/schedlab/policies/predict"
	"github.com/schedlab/schedlab/traces"
)

// Replay three runs of a nightly job through JVuPredict: each is predicted at its submission
// from the runs that completed before it.
func Example() {
	p, err := predict.New(predict.JVuName, predict.Options{}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	nightly := traces.Features{User: "etl", JobName: "report", LogicalJobName: "mapreduce"}
	var jobs []predict.Job
	for i, runtime := range []traces.Time{40 * traces.Minute, 44 * traces.Minute, 42 * traces.Minute} {
		submit := traces.Time(i) * 24 * traces.Hour
		jobs = append(jobs, predict.Job{ID: int64(i), Submit: submit, End: submit + runtime, Runtime: runtime,
			Features: nightly, CPU: math.NaN(), Mem: math.NaN()})
	}
	estimates, err := predict.Evaluate(jobs, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, e := range estimates {
		pair := "none"
		if e.Pair >= 0 {
			pair = p.Pairs()[e.Pair]
		}
		fmt.Printf("run %d: predicted %.0f min by %s, took %.0f min\n", i+1, traces.Seconds(e.Runtime)/60, pair, traces.Seconds(jobs[i].Runtime)/60)
	}
	// Output:
	// run 1: predicted 0 min by none, took 40 min
	// run 2: predicted 40 min by job-average, took 44 min
	// run 3: predicted 42 min by job-average, took 42 min
}
