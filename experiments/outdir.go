package experiments

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/internal/safefs"
)

// PublishOutputs writes the run's outputs (WriteOutputs) so that the directory out appears
// complete or not at all, whatever happens meanwhile (a full disk, a kill -9): they are written
// into a work directory beside out (safefs.WorkDir, which the next PublishOutputs into the same
// parent removes if this process dies) and moved to out by one rename. An existing out must be
// one PublishOutputs may replace (CheckOutDir: empty, or a previous run's output); it is replaced
// as a whole — atomically on Linux, elsewhere by two renames with out briefly absent — so files of
// the previous run (a policy's admissions.json, say) never mix with the new ones.
func (o *Outcome) PublishOutputs(out string) error {
	if err := CheckOutDir(out); err != nil {
		return err
	}
	abs, err := filepath.Abs(out) // "." and "sub/.." have a parent and a name too
	if err != nil {
		return err
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	work, err := safefs.NewWorkDir(parent, filepath.Base(abs))
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	defer work.Remove()
	stage := filepath.Join(work.Path, "new")
	if err := o.WriteOutputs(stage); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	safefs.SyncDir(stage)
	if err := safefs.ReplaceDir(stage, abs, filepath.Join(work.Path, "old")); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	safefs.SyncDir(parent)
	return work.Remove()
}

// CheckOutDir returns a configuration error when out exists and PublishOutputs may not replace
// it: out must not exist, or be an empty directory, or be a previous run's output — a directory
// holding a summary.json with provenance and nothing but the files a run writes (*.parquet,
// *.json, *.yaml; no subdirectories). Anything else (a sweep's output, a directory with other
// files) is refused rather than deleted, and so is the working directory or one holding it
// (replacing it would leave the shell in a deleted directory).
func CheckOutDir(out string) error {
	st, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	if wd, err := os.Getwd(); err == nil {
		if abs, err := filepath.Abs(out); err == nil && (abs == wd || strings.HasPrefix(wd, abs+string(filepath.Separator))) {
			return configErr("--out %s: the working directory (or one holding it) cannot be replaced as a whole; name a directory below it, e.g. --out run", out)
		}
	}
	refuse := func(why string) error {
		return configErr("--out %s: %s; schedlab replaces only an empty directory or a previous run's output (run --out); choose another directory or remove it", out, why)
	}
	if !st.IsDir() {
		return refuse("exists and is not a directory")
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	if len(entries) == 0 {
		return nil
	}
	var foreign []string
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") || !slices.Contains([]string{".parquet", ".json", ".yaml"}, ext) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		if len(foreign) > 3 {
			foreign = append(foreign[:3], "…")
		}
		return refuse(fmt.Sprintf("exists and holds %s, which a run does not write", strings.Join(foreign, ", ")))
	}
	b, err := os.ReadFile(filepath.Join(out, SummaryFile))
	if err != nil {
		return refuse("exists and has no " + SummaryFile + " (not a run's output)")
	}
	var doc struct {
		Provenance struct {
			Version string `json:"schedlab_version"`
		} `json:"provenance"`
	}
	if json.Unmarshal(b, &doc) != nil || doc.Provenance.Version == "" {
		return refuse("exists and its " + SummaryFile + " is not a run's summary")
	}
	return nil
}
