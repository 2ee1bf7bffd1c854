package experiments

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// ColumnKeyPrefix starts the key of each column's description in the key-value metadata of the
// Parquet files a run writes: "schedlab.column.jct_s" → "job completion time, finish − submit;
// null while unfinished [s]".
const ColumnKeyPrefix = "schedlab.column."

// ColumnDoc describes an output column: what it holds and its unit ("" for a name, a flag or
// a count of things named in Desc).
type ColumnDoc struct {
	Desc, Unit string
}

// String renders "desc [unit]", or desc alone without a unit.
func (d ColumnDoc) String() string {
	if d.Unit == "" {
		return d.Desc
	}
	return d.Desc + " [" + d.Unit + "]"
}

// jobsColumns documents jobs.parquet.
var jobsColumns = map[string]ColumnDoc{
	"index":          {"position of the job in the workload, from 0", ""},
	"job_id":         {"the job's ID in its trace", ""},
	"name":           {"the job's name in its trace", ""},
	"queue":          {"the queue (tenant) the job was submitted to", ""},
	"class":          {"the job's class (e.g. slo, be, lq, tq)", ""},
	"priority":       {"the job's priority in its trace", ""},
	"submit_s":       {"submission time on the trace's clock", "s"},
	"start_s":        {"time the job's first task started; null if none started", "s"},
	"finish_s":       {"time the job's last task finished; null while unfinished", "s"},
	"jct_s":          {"job completion time, finish − submit; null while unfinished", "s"},
	"completed":      {"whether every task of the job finished", ""},
	"deadline_s":     {"the job's deadline; null without one", "s"},
	"deadline_met":   {"whether the job finished by its deadline; null without one", ""},
	"utility":        {"the utility the job earned at completion (0 if unfinished); null without a utility function", "utility"},
	"tasks":          {"number of tasks of the job", "tasks"},
	"finished_tasks": {"number of its tasks that finished", "tasks"},
	"work_s":         {"the time its tasks ran, summed over tasks", "task-s"},
	"preemptions":    {"number of times a task of the job was preempted", "preemptions"},
	"target_s":       {"target completion time the job is judged against (its utility's target, else its deadline); null without one", "s"},
	"delta_s":        {"finish − target (CORA's Δ); null without a target or while unfinished", "s"},
	"slowed_starts":  {"number of its task starts that ran slowed (a soft-constrained job off its preferred resources)", "starts"},
}

// usageColumns documents usage.parquet's fixed columns; the resource dimensions follow.
var usageColumns = map[string]ColumnDoc{
	UsageQueueColumn:       {"the queue", ""},
	UsageWindowStartColumn: {"start of the window on the trace's clock (first submission + window index × metrics.usage_window_s)", "s"},
}

// usageDimDoc documents usage.parquet's column of a resource dimension.
func usageDimDoc(dim string) ColumnDoc {
	return ColumnDoc{"the queue's average allocation of " + dim + " over the window, a fraction of the cluster's capacity", "fraction"}
}

// predictionsColumns documents the predictions table (predictions.parquet).
var predictionsColumns = map[string]ColumnDoc{
	"job_id":        {"the job's ID in its trace", ""},
	"predicted_s":   {"the runtime the predictor gave at the job's submission; null when it had no history for the job (the engine kept the workload's estimate)", "s"},
	"actual_s":      {"the job's true runtime, the critical path of its task durations", "s"},
	"rel_error":     {"(predicted − actual) / actual; null without a prediction or a positive actual runtime", "fraction"},
	"no_prediction": {"whether the predictor had nothing for the job", ""},
}

// withColumnDocs returns the fields as a schema whose metadata describes each column with
// doc(name) under ColumnKeyPrefix+name, in column order (deterministic bytes).
func withColumnDocs(fields []arrow.Field, doc func(name string) ColumnDoc) *arrow.Schema {
	keys := make([]string, len(fields))
	vals := make([]string, len(fields))
	for i, f := range fields {
		keys[i], vals[i] = ColumnKeyPrefix+f.Name, doc(f.Name).String()
	}
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(fields, &md)
}

// tableDoc documents a column of a policy's table: the predictions table's from
// predictionsColumns; another's by its name and the unit of its suffix.
func tableDoc(table, col string) ColumnDoc {
	if table == "predictions" {
		if d, ok := predictionsColumns[col]; ok {
			return d
		}
	}
	return ColumnDoc{"column " + col + " of the policy's " + table + " table", unitOf(col)}
}
