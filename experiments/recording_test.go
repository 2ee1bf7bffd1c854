package experiments

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/schedlab/schedlab/experiments/timeline"
	"github.com/schedlab/schedlab/traces"
)

// TestRecordingTasksAndTrace: a recorded run's tasks.parquet accounts for every task of every
// completed job, its reasons come from the policy, its trace is valid, the recordings are
// byte-identical across two runs, and a run without recording writes neither file.
func TestRecordingTasksAndTrace(t *testing.T) {
	sets := []string{"policy.name=drf", "engine.horizon_s=600", "metrics.tasks=true", "metrics.trace=true"}
	var files [2][2][]byte
	for i := range files {
		o, err := Run(resolve(t, sets...))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "run")
		if err := o.PublishOutputs(dir); err != nil {
			t.Fatal(err)
		}
		o.Close()
		if !slices.Contains(o.OutputFiles(), timeline.TasksFile) == (o.rec != nil) {
			t.Errorf("OutputFiles %v", o.OutputFiles())
		}
		finished := map[int32]int64{}
		outcomes := map[string]int{}
		reasons := 0
		err = timeline.Scan(filepath.Join(dir, timeline.TasksFile), nil, func(r *timeline.Row) error {
			outcomes[r.Outcome]++
			if r.Outcome == "finished" {
				finished[r.Job]++
			}
			if r.Reason != "" {
				reasons++
			}
			if r.Ready > r.Start || r.Start > r.End || r.End > traces.FromSeconds(600) {
				t.Errorf("row %+v: times out of order", *r)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range o.Result.Jobs {
			if finished[j.Index] != j.Finished {
				t.Fatalf("job %d: %d finished attempts, jobs.parquet says %d tasks finished", j.Index, finished[j.Index], j.Finished)
			}
		}
		if int64(outcomes["finished"]+outcomes["preempted"]+outcomes["unfinished"]) != o.Engine.Starts || outcomes["unfinished"] == 0 {
			t.Errorf("outcomes %v, %d starts", outcomes, o.Engine.Starts)
		}
		if reasons == 0 {
			t.Error("drf gave no reasons")
		}
		for k, name := range []string{timeline.TasksFile, timeline.TraceFile} {
			if files[i][k], err = os.ReadFile(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		if err := timeline.Validate(bytes.NewReader(files[i][1])); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0][0], files[1][0]) || !bytes.Equal(files[0][1], files[1][1]) {
		t.Error("recordings differ between identical runs")
	}
	o, err := Run(resolve(t, "engine.horizon_s=60"))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(o.OutputFiles(), timeline.TasksFile) || slices.Contains(o.OutputFiles(), timeline.TraceFile) || o.Config.Map()["metrics"].(map[string]any)["tasks"] != nil {
		t.Errorf("an unrecorded run lists %v", o.OutputFiles())
	}
}
