package reproduce

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/experiments"
	"github.com/schedlab/schedlab/experiments/jvu"
	"github.com/schedlab/schedlab/internal/datapath"
)

// JVuGroup is the reproduce argument that stands for every JamaisVu predictor reproduction
// (jvu.IDs).
const JVuGroup = "jv"

// JVuDir is the directory under Options.Out that receives the JamaisVu reproductions' figures
// and their <id>.md pages.
const JVuDir = "jvu"

// SharedDataEnv names the environment variable holding the shared trace folder (the one with
// google2011/ in it); see datapath.Dir for the whole rule.
const SharedDataEnv = datapath.Env

// Target is one reproduction: an experiment spec (a sweep) or, when JVu is set, a JamaisVu
// predictor analysis of package jvu ("jv-fig12").
type Target struct {
	Spec *experiments.Spec
	JVu  string
}

// ID names the target: the spec's ID or the jv id.
func (t Target) ID() string {
	if t.JVu != "" {
		return t.JVu
	}
	return t.Spec.ID
}

// SpecTargets wraps specs as targets.
func SpecTargets(specs []*experiments.Spec) []Target {
	out := make([]Target, len(specs))
	for i, s := range specs {
		out[i] = Target{Spec: s}
	}
	return out
}

// IsJVu reports whether a reproduce argument names JamaisVu reproductions: JVuGroup or one of
// jvu.IDs.
func IsJVu(arg string) bool {
	return arg == JVuGroup || slices.Contains(jvu.IDs(), arg)
}

// Resolve turns reproduce arguments into targets, in the order given and without repeats: an
// embedded spec ID ("demo/policies"), every embedded spec of a paper ("demo"), a path to a spec
// YAML file, a JamaisVu reproduction ("jv-fig12"), or JVuGroup for all of them. Names win over
// files and directories of the same name in the working directory (see experiments.MatchSpecs).
func Resolve(args []string) ([]Target, error) {
	var out []Target
	seen := map[string]bool{}
	add := func(t Target) {
		if !seen[t.ID()] {
			seen[t.ID()] = true
			out = append(out, t)
		}
	}
	for _, a := range args {
		if IsJVu(a) {
			ids := []string{a}
			if a == JVuGroup {
				ids = jvu.IDs()
			}
			for _, id := range ids {
				add(Target{JVu: id})
			}
			continue
		}
		ids, err := experiments.MatchSpecs(a, append(jvu.IDs(), JVuGroup)...)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			s, err := experiments.LoadSpec(id)
			if err != nil {
				return nil, err
			}
			add(Target{Spec: s})
		}
	}
	return out, nil
}

// AllIDs lists every reproduction: the embedded specs, then the JamaisVu reproductions.
func AllIDs() []string {
	return append(experiments.SpecIDs(), jvu.IDs()...)
}

// JVuReport is one reproduced JamaisVu table or figure.
type JVuReport struct {
	// Artifact is what jvu.ReproduceAll returned (title, reference, tables, claims, notes).
	Artifact *jvu.Artifact
	// Label is the label it ran at.
	Label string
	// Src is the trace it read, for display: relative to the repository root when found
	// there, else as given.
	Src string
	// Dir is the directory under Out holding its figures and <id>.md (JVuDir).
	Dir string
	// Figures are its figures, in the order written.
	Figures []JVuFigure
}

// JVuFigure is one figure of a JamaisVu reproduction.
type JVuFigure struct {
	// Name is the figure's file name without extension, e.g. "jv-refine-filter".
	Name string
	// Files are the written files, relative to Out.
	Files []string
	// SVG is the figure's SVG encoding, inlined in index.html (nil if none was written).
	SVG []byte
}

// Page is the artifact's Markdown page, relative to Out.
func (j *JVuReport) Page() string { return j.Dir + "/" + j.Artifact.ID + ".md" }

// JVuSource returns the Google 2011 trace the JamaisVu reproductions read at label.
//
// trace, when set (`schedlab reproduce --jv-trace`), is used as given: a directory holding
// job_events/ (and optionally task_events/), as `schedlab trace fetch google2011 --dest DIR`
// writes it, a job_events directory, or comma-separated part files.
//
// Otherwise label quick reads the committed fixture experiments/jvu/testdata/google2011 (the
// working directory's copy inside the repository, else the one compiled into schedlab); label
// paper reads the month: from $SCHEDLAB_GOOGLE2011 (a directory with job_events/) when set, else
// from google2011/ in the shared data folder (datapath.Dir: --data, $SCHEDLAB_SHARED_DATA, or
// ../shared/data next to the repository root), else jvu.DefaultPaperSrc. The error, which wraps
// jvu.ErrNoData, lists where it looked and how to fetch the data.
func JVuSource(label, trace string) (string, error) {
	if label != jvu.QuickLabel && label != jvu.PaperLabel {
		return "", fmt.Errorf("%w: reproduce: the JamaisVu reproductions run at label %s or %s, not %q", experiments.ErrConfig, jvu.QuickLabel, jvu.PaperLabel, label)
	}
	if trace != "" {
		for _, p := range strings.Split(trace, ",") {
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("%w: --jv-trace: %w", jvu.ErrNoData, err)
			}
		}
		return trace, nil
	}
	if label == jvu.QuickLabel {
		rel := filepath.Join("experiments", "jvu", jvu.QuickSrc)
		p, err := datapath.Resolve(rel)
		if err != nil {
			return "", fmt.Errorf("%w: %w", jvu.ErrNoData, err)
		}
		if _, err := os.Stat(filepath.Join(p, "job_events")); err != nil {
			return "", fmt.Errorf("%w: the JamaisVu reproductions at label quick read the fixture %s, which is neither here nor compiled in: pass --jv-trace DIR", jvu.ErrNoData, rel)
		}
		return p, nil
	}
	var cands []string
	if e := os.Getenv(jvu.PaperSrcEnv); e != "" {
		cands = append(cands, e)
	}
	if len(cands) == 0 {
		dir, _ := datapath.Dir()
		if dir != "" {
			cands = append(cands, filepath.Join(dir, "google2011"))
		}
		// The last resort, unless the data folder was given explicitly.
		if d := filepath.Clean(jvu.DefaultPaperSrc); !slices.Contains(cands, d) && !datapath.Given() {
			cands = append(cands, d)
		}
	}
	var looked []string
	for _, c := range cands {
		je := filepath.Join(c, "job_events")
		if st, err := os.Stat(je); err == nil && st.IsDir() {
			return c, nil
		}
		looked = append(looked, je)
	}
	return "", fmt.Errorf("%w: the JamaisVu reproductions at label paper read the month of the Google 2011 trace (job_events, 500 parts); looked for %s. "+
		"Fetch it with `schedlab trace fetch google2011 --dest DIR --tables job_events` (add task_events for jv-refine's secondary features) "+
		"and pass --jv-trace DIR (or set %s=DIR, or %s to the folder holding google2011/); --label quick runs on the committed fixture",
		jvu.ErrNoData, strings.Join(looked, ", "), jvu.PaperSrcEnv, SharedDataEnv)
}

// displayPath shows p relative to the repository root when it lies there or next to it (the
// shared data), and a compiled-in fixture as its repository path, so reports do not depend on
// where the repository is checked out.
func displayPath(p string) string { return datapath.Display(p) }

// runJVu runs the JamaisVu reproductions ids on src (reading the trace once) and collects
// their figures.
func runJVu(ids []string, src string, o Options) ([]*JVuReport, error) {
	dir := filepath.Join(o.Out, JVuDir)
	shown := src
	if o.JVuTrace == "" {
		shown = displayPath(src)
	}
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, "reproduce %s (label %s): JVuPredict on the Google 2011 trace %s\n", strings.Join(ids, ", "), o.Label, shown)
	}
	arts, err := jvu.ReproduceAll(ids, jvu.Options{Src: src, Label: o.Label, OutDir: dir})
	if err != nil {
		return nil, err
	}
	var out []*JVuReport
	for _, a := range arts {
		jr := &JVuReport{Artifact: a, Label: o.Label, Src: shown, Dir: JVuDir}
		byName := map[string]int{}
		for _, p := range a.Figures {
			name := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
			i, ok := byName[name]
			if !ok {
				i = len(jr.Figures)
				byName[name] = i
				jr.Figures = append(jr.Figures, JVuFigure{Name: name})
			}
			f := &jr.Figures[i]
			f.Files = append(f.Files, relAll(o.Out, []string{p})...)
			if filepath.Ext(p) == ".svg" {
				if f.SVG, err = os.ReadFile(p); err != nil {
					return nil, fmt.Errorf("%s: %w", a.ID, err)
				}
			}
		}
		out = append(out, jr)
	}
	return out, nil
}
