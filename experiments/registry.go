package experiments

import (
	"embed"
	"errors"
	"fmt"
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
		if strings.HasPrefix(path.Base(m), "_") {
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

// MatchSpecs resolves a reproduce argument to spec IDs: an exact embedded ID ("demo/policies")
// or its alias ("demo-policies", see SpecAlias), every embedded spec of a paper directory
// ("demo"), or a path to a spec file on disk (returned as given).
func MatchSpecs(arg string) ([]string, error) {
	ids := SpecIDs()
	if slices.Contains(ids, arg) {
		return []string{arg}, nil
	}
	if id := specByAlias(arg); id != "" {
		if _, err := os.Stat(arg); err != nil { // a file of that name wins
			return []string{id}, nil
		}
	}
	var out []string
	for _, id := range ids {
		if strings.HasPrefix(id, strings.TrimSuffix(arg, "/")+"/") {
			out = append(out, id)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return []string{arg}, nil
	}
	return nil, fmt.Errorf("%w: %w %q (embedded: %s; or a path to a .yaml file)", ErrConfig, ErrNoSpec, arg, strings.Join(ids, ", "))
}

// LoadSpec reads an embedded spec by ID or alias (SpecAlias), or else a spec file on disk.
func LoadSpec(idOrPath string) (*Spec, error) {
	if slices.Contains(SpecIDs(), idOrPath) {
		return parseSpec(specFS, idOrPath+".yaml", "experiments/", idOrPath)
	}
	if id := specByAlias(idOrPath); id != "" {
		if _, err := os.Stat(idOrPath); err != nil {
			return parseSpec(specFS, id+".yaml", "experiments/", id)
		}
	}
	if _, err := os.Stat(idOrPath); err != nil {
		return nil, fmt.Errorf("%w: %w %q: not embedded (%s) and not a readable file: %v", ErrConfig, ErrNoSpec, idOrPath, strings.Join(SpecIDs(), ", "), err)
	}
	abs, err := filepath.Abs(idOrPath)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	return parseSpec(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), filepath.Dir(idOrPath)+string(filepath.Separator), id)
}

// ParseSpec reads the spec file name from fsys; includes are resolved relative to it within
