package experiments

import (
	"path/filepath"
	"testing"
)

// TestWarmPredictor replays a quick JamaisVu workload under FIFO with JVuPredict cold and warmed
// on the committed Google slice the workload is fitted to: warmed, every job has a prediction
// from history; cold, the first jobs have none. The prediction profile is reported as metrics
// and a predictions table, and two warmed runs (the second from the process's cached predictor)
// agree exactly.
func TestWarmPredictor(t *testing.T) {
	slice := filepath.Join("jvu", "testdata", "google2011")
	cfg := func(sets ...string) Config {
		return resolve(t, append([]string{
			"workload.generator=jamaisvu", "workload.jamaisvu.trace=" + slice, "workload.jamaisvu.jobs=150",
			"workload.jamaisvu.mix=DEADLINE-40", "policy.name=fifo", "predict.name=jvupredict", "seed=4",
		}, sets...)...)
	}
	cold, err := Run(cfg())
	if err != nil {
		t.Fatal(err)
	}
	warm, err := Run(cfg("predict.warm=" + slice))
	if err != nil {
		t.Fatal(err)
	}
	cm, wm := cold.Report.Metrics, warm.Report.Metrics
	if cm["predict.jobs"] != 150 || wm["predict.jobs"] != 150 {
		t.Fatalf("predict.jobs %v cold, %v warm; want 150", cm["predict.jobs"], wm["predict.jobs"])
	}
	if cm["predict.no_prediction"] == 0 || wm["predict.no_prediction"] != 0 {
		t.Errorf("jobs without a prediction: cold %v (want > 0), warm %v (want 0)", cm["predict.no_prediction"], wm["predict.no_prediction"])
	}
	if s := wm["predict.within_2x"] + wm["predict.under_2x"] + wm["predict.over_2x"]; s < 0.999 || s > 1.001 {
		t.Errorf("error shares sum to %v", s)
	}
	var tbl bool
	for _, tb := range warm.Report.Tables {
		if tb.Name == "predictions" && len(tb.Columns) == 5 && tb.Columns[0].Len() == 150 {
			tbl = true
		}
	}
	if !tbl {
		t.Error("no 150-row predictions table")
	}
	again, err := Run(cfg("predict.warm=" + slice))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range wm {
		if again.Report.Metrics[k] != v {
			t.Errorf("second warmed run: %s = %v, first %v", k, again.Report.Metrics[k], v)
		}
	}
	if again.Summary.SLOMissRate != warm.Summary.SLOMissRate || again.Summary.AvgJCT != warm.Summary.AvgJCT {
		t.Error("a second warmed run differs")
	}
	// Only JVuPredict learns from history: the oracle ignores predict.warm.
	or, err := Run(cfg("predict.name=oracle", "predict.warm="+slice))
	if err != nil || or.Report.Metrics["predict.within_10pct"] != 1 {
		t.Errorf("oracle with predict.warm: %v, metrics %v", err, or.Report)
	}
}
