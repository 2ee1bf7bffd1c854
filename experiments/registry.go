package experiments

import (
	"embed"
	"errors"
	"fmt"
	"github.com/schedlab/schedlab/internal/datapath"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The experiment specs compiled into schedlab: experiments/<paper>/<figure>.yaml. Files whose
// names start with "_" are fragments for include, not specs.
//
//go:embed */*.yaml
var specFS embed.FS

// ErrNoSpec is wrapped when a spec ID is neither embedded nor a readable file.
var ErrNoSpec = errors.New("no such spec")

// SpecIDs lists the embedded specs' IDs ("<paper>/<name>"), sorted.
func SpecIDs() []string {
	var ids []string
	matches, _ := fs.Glob(specFS, "*/*.yaml")
	for _, m := range matches {
		if strings.HasPrefix(path.Base(m), "_") || path.Dir(m) == testbedDir {
			continue
		}
		ids = append(ids, strings.TrimSuffix(m, ".yaml"))
	}
	slices.Sort(ids)
	return ids
}

// SpecAlias returns the alias of an embedded spec ID: "<paper>-<name>" for "<paper>/<name>"
// (bpf-table4 for bpf/table4).
func SpecAlias(id string) string { return strings.Replace(id, "/", "-", 1) }

// specByAlias returns the embedded spec ID whose alias is arg, or "".
func specByAlias(arg string) string {
	if strings.Contains(arg, "/") {
		return ""
	}
	for _, id := range SpecIDs() {
		if SpecAlias(id) == arg {
			return id
		}
	}
	return ""
}

// IsSpecFile reports whether a spec argument is a path by its form: it ends in .yaml or .yml.
// Such an argument is always read from disk; any other is an embedded spec's name first.
func IsSpecFile(arg string) bool {
	ext := strings.ToLower(path.Ext(filepath.ToSlash(arg)))
	return ext == ".yaml" || ext == ".yml"
}

// embedded returns the embedded spec IDs arg names — its ID ("demo/policies"), its alias
// ("demo-policies") or, with paper set, its paper ("demo" or "demo/": every spec of it) — or
// nil. A file or directory of the same name in the working directory does not matter; an
// argument ending in .yaml or .yml names no embedded spec.
func embedded(arg string) (ids []string, paper bool) {
	if IsSpecFile(arg) {
		return nil, false
	}
	all := SpecIDs()
	if slices.Contains(all, arg) {
		return []string{arg}, false
	}
	if id := specByAlias(arg); id != "" {
		return []string{id}, false
	}
	if p := strings.TrimSuffix(arg, "/"); p != "" {
		for _, id := range all {
			if path.Dir(id) == p {
				ids = append(ids, id)
			}
		}
	}
	return ids, len(ids) > 0
}

// MatchSpecs resolves a reproduce argument to spec IDs. An embedded spec's name wins: its ID
// ("demo/policies"), its alias ("demo-policies", see SpecAlias) or its paper ("demo", every spec
// of it), whatever the working directory holds. Any other argument, and every argument ending in
// .yaml or .yml, is a path to a spec file (returned as given); write ./cora-solver to read a file
// named like an embedded spec. An argument naming nothing is ErrNoSpec with a "did you mean"
// among the embedded specs and more (the other targets the caller accepts).
func MatchSpecs(arg string, more ...string) ([]string, error) {
	if ids, _ := embedded(arg); len(ids) > 0 {
		return ids, nil
	}
	arg = repoSpecFile(arg)
	if err := checkSpecFile(arg, more...); err != nil {
		return nil, err
	}
	return []string{arg}, nil
}

// repoSpecFile returns the spec file a relative path names: the working directory's file when
// there is one, else the schedlab repository's file of that path (so that README's
// `reproduce policies/external/examples/byos.yaml` runs from any directory), else the path as
// given, for checkSpecFile to report.
func repoSpecFile(file string) string {
	if filepath.IsAbs(file) || !IsSpecFile(file) {
		return file
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		return file
	}
	if full, ok, err := datapath.RepoFile(file); ok && err == nil {
		return full
	}
	return file
}

// checkSpecFile returns ErrNoSpec, suggesting among the embedded specs and more, unless file is
// a regular file (or a link to one).
func checkSpecFile(file string, more ...string) error {
	st, err := os.Stat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist) && IsSpecFile(file):
		return NoSpec(file, "no such file", more...)
	case errors.Is(err, fs.ErrNotExist):
		return NoSpec(file, "not an embedded spec, paper or spec file", more...)
	case err != nil:
		return NoSpec(file, "not an embedded spec, and not a readable spec file ("+err.Error()+")", more...)
	case st.IsDir():
		return NoSpec(file, "a directory, not an embedded spec or spec file", more...)
	}
	return nil
}

// NoSpec is the error for arg naming no spec: it wraps ErrConfig and ErrNoSpec, says why, and
// suggests the nearest of the embedded specs' IDs, aliases and papers and of more (other targets
// the caller accepts) by edit distance — not the whole list, which `schedlab reproduce --list`
// shows.
func NoSpec(arg, why string, more ...string) error {
	names := slices.Clone(more)
	for _, id := range SpecIDs() {
		names = append(names, id, SpecAlias(id))
		if paper := path.Dir(id); !slices.Contains(names, paper) {
			names = append(names, paper)
		}
	}
	return fmt.Errorf("%w: %w %q: %s%s", ErrConfig, ErrNoSpec, arg, why, SuggestOr(arg, names, " (`schedlab reproduce --list` lists them)"))
}

// LoadSpec reads one spec: an embedded spec by ID or alias (SpecAlias), whatever the working
// directory holds, or else a spec file on disk (always, for a path ending in .yaml or .yml; see
// MatchSpecs). A paper's name is a configuration error naming its specs.
func LoadSpec(idOrPath string) (*Spec, error) {
	switch ids, paper := embedded(idOrPath); {
	case paper:
		return nil, fmt.Errorf("%w: %w %q: a paper, not one spec: name one of %s", ErrConfig, ErrNoSpec, idOrPath, strings.Join(ids, ", "))
	case len(ids) == 1:
		return parseSpec(specFS, ids[0]+".yaml", "experiments/", ids[0])
	}
	idOrPath = repoSpecFile(idOrPath)
	if err := checkSpecFile(idOrPath); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(idOrPath)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	return parseSpec(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), filepath.Dir(idOrPath)+string(filepath.Separator), id)
}

// ParseSpec reads the spec file name from fsys; includes are resolved relative to it within
