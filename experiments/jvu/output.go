package jvu

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/schedlab/schedlab/policies/predict"
	"github.com/schedlab/schedlab/traces"

	"github.com/schedlab/schedlab/internal/safefs"
)

// Output file names inside `schedlab predict --out DIR`.
const (
	PredictionsFile = "predictions.parquet"
	SummaryFile     = "summary.json"
)

// PredictionsSchema is the Arrow schema of predictions.parquet: one row per population job
// (finished jobs), in submission order. Times are seconds of trace time; rel_error is
// (predicted − actual)/actual (null for a zero runtime); pair is the feature:estimator pair
// that made the prediction ("none" without history, "" for predictors without pairs) and
// pair_nrmse its normalized RMSE at selection (null when unscored).
var PredictionsSchema = arrow.NewSchema([]arrow.Field{
	{Name: "job_id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "submit_s", Type: arrow.PrimitiveTypes.Float64},
	{Name: "actual_s", Type: arrow.PrimitiveTypes.Float64},
	{Name: "predicted_s", Type: arrow.PrimitiveTypes.Float64},
	{Name: "pair", Type: arrow.BinaryTypes.String},
	{Name: "pair_nrmse", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "rel_error", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

// rowGroup is the number of rows written per Parquet row group.
const rowGroup = 1 << 16

// WritePredictions writes r's per-job predictions as Parquet to w (deterministic bytes for
// identical results).
func WritePredictions(w io.Writer, r *Result) error {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCreatedBy("schedlab jvu"),
		parquet.WithDictionaryDefault(true),
	)
	// The Parquet writer closes its sink; keep the caller's file open for Sync and rename.
	fw, err := pqarrow.NewFileWriter(PredictionsSchema, struct{ io.Writer }{w}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), PredictionsSchema)
	defer b.Release()
	hasPairs := len(r.Pairs) > 0
	flush := func() error {
		rec := b.NewRecord()
		defer rec.Release()
		return fw.Write(rec) // one row group per chunk
	}
	for i := range r.Actual {
		b.Field(0).(*array.Int64Builder).Append(r.ID[i])
		b.Field(1).(*array.Float64Builder).Append(traces.Seconds(r.Submit[i]))
		b.Field(2).(*array.Float64Builder).Append(traces.Seconds(r.Actual[i]))
		b.Field(3).(*array.Float64Builder).Append(traces.Seconds(r.Pred[i]))
		pair := ""
		if hasPairs {
			pair = r.PairName(int(r.Pair[i]))
		}
		b.Field(4).(*array.StringBuilder).Append(pair)
		if s := r.Score[i]; math.IsNaN(s) || math.IsInf(s, 0) {
			b.Field(5).(*array.Float64Builder).AppendNull()
		} else {
			b.Field(5).(*array.Float64Builder).Append(s)
		}
		if e, ok := predict.RelError(r.Pred[i], r.Actual[i]); ok {
			b.Field(6).(*array.Float64Builder).Append(e)
		} else {
			b.Field(6).(*array.Float64Builder).AppendNull()
		}
		if (i+1)%rowGroup == 0 {
			if err := flush(); err != nil {
				fw.Close()
				return err
			}
		}
	}
	if len(r.Actual)%rowGroup != 0 || len(r.Actual) == 0 {
		if err := flush(); err != nil {
			fw.Close()
			return err
		}
	}
	return fw.Close()
}

// PairCount is one pair's share of a predictor's selections.
type PairCount struct {
	// Pair is the pair's name, e.g. "ljob-recent".
	Pair string `json:"pair"`
	// Selected counts the population jobs it predicted; Fraction is their share.
	Selected int     `json:"selected"`
	Fraction float64 `json:"fraction"`
}

// Summary is the content of summary.json.
type Summary struct {
	// Source names the input paths.
	Source string `json:"source"`
	// Predictor, Options and Seed say what made the predictions.
	Predictor string          `json:"predictor"`
	Options   predict.Options `json:"options"`
	Seed      int64           `json:"seed"`
	// Submitted is the number of predictions made; Population the finished jobs scored.
	Submitted  int          `json:"submitted"`
	Population int          `json:"population"`
	Errors     ErrorSummary `json:"errors"`
	// NoHistory is the fraction of population jobs for which none of their feature values
	// had history (JVuPredict fell back to the "all" group or predicted 0).
	NoHistory float64 `json:"no_history"`
	// Selections counts how often each pair was chosen (JVuPredict), in pair order.
	Selections []PairCount `json:"selections,omitempty"`
	// Slots describes the predictor's groups per slot at the end (JVuPredict).
	Slots []predict.SlotStats `json:"slots,omitempty"`
}

// SummaryDoc returns the summary document of r over trace t.
func (r *Result) SummaryDoc(t *Trace) Summary {
	s := Summary{
		Source: t.Source, Predictor: r.Config.Predictor, Options: r.Config.Opts, Seed: r.Config.Seed,
		Submitted: r.Submitted, Population: r.N(), Errors: r.Summary(), Slots: r.Stats.Slots,
	}
	if s.Predictor == "" {
		s.Predictor = predict.JVuName
	}
	if len(r.NoHistory) > 0 && r.N() > 0 {
		n := 0
		for i := range r.Actual {
			all := true
			for f := 0; f < len(r.NoHistory)-1; f++ {
				all = all && r.NoHistory[f][i]
			}
			if all {
				n++
			}
		}
		s.NoHistory = float64(n) / float64(r.N())
	}
	for p, c := range r.Selections() {
		s.Selections = append(s.Selections, PairCount{Pair: r.Pairs[p], Selected: c, Fraction: frac(c, r.N())})
	}
	return s
}

func frac(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// WriteOutputs writes predictions.parquet and summary.json into dir, each atomically.
func WriteOutputs(dir string, t *Trace, r *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("jvu: %w", err)
	}
	if err := atomicWrite(filepath.Join(dir, PredictionsFile), func(w io.Writer) error { return WritePredictions(w, r) }); err != nil {
		return err
	}
	return atomicWrite(filepath.Join(dir, SummaryFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.SummaryDoc(t))
	})
}

// atomicWrite writes path through a temporary file in the same directory that is renamed over
// path only once complete and synced, so path never holds partial output (safefs.WriteFile).
func atomicWrite(path string, write func(w io.Writer) error) error {
	if err := safefs.WriteFile(path, write); err != nil {
		return fmt.Errorf("jvu: %w", err)
	}
	return nil
}
