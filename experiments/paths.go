package experiments

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedlab/schedlab/internal/datapath"
	wbuiltin "github.com/schedlab/schedlab/traces/builtin"
)

// pathKeys are the configuration keys whose values name a file or directory.
var pathKeys = []string{"workload.name", "workload.bpf.queries", "workload.jamaisvu.trace", "workload.decima.dir", "predict.warm"}

// IsPathKey reports whether the configuration key names a file or directory.
func IsPathKey(key string) bool { return slices.Contains(pathKeys, key) }

// notPath reports whether the value v of a path key names no file: empty, or an embedded
// workload's name for workload.name.
func notPath(key, v string) bool {
	return v == "" || (key == "workload.name" && wbuiltin.Has(v))
}

// RecordedPath returns how config.yaml records the value p of a path key, given on this run's
// command line (relative to the working directory), so that the file rerun with --config from
// any directory reads the same input: a path into the shared data folder as data:…, a file or
// directory of the working directory or of the repository as its absolute path; an embedded
// workload's name, an embedded fixture's repository path and a path that names nothing here
// stay as given.
func RecordedPath(key, p string) string {
	if notPath(key, p) {
		return p
	}
	if rel, ok := datapath.Rel(p); ok {
		return datapath.Prefix + rel
	}
	abs := p
	if !filepath.IsAbs(p) {
		if _, err := os.Stat(p); err != nil {
			// Not here: an embedded fixture stays a repository path (found from anywhere); a
			// file of the repository is recorded where it is.
			if _, ok, _ := datapath.Fixture(p); ok {
				return p
			}
			full, ok, err := datapath.RepoFile(p)
			if !ok || err != nil {
				return p
			}
			p = full
		}
		var err error
		if abs, err = filepath.Abs(p); err != nil {
			return p
		}
	}
	if dir, _ := datapath.Dir(); dir != "" {
		if d, err := filepath.Abs(dir); err == nil {
			if rel, err := filepath.Rel(d, abs); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
				return datapath.Prefix + filepath.ToSlash(rel)
			}
		}
	}
	return abs
}

// recordPaths rewrites the path keys of a configuration map (Config.Map) with RecordedPath.
func recordPaths(m map[string]any) {
	for _, key := range pathKeys {
		parts := strings.Split(key, ".")
		sub := m
		for _, p := range parts[:len(parts)-1] {
			next, ok := sub[p].(map[string]any)
			if !ok {
				sub = nil
				break
			}
			sub = next
		}
		if sub == nil {
			continue
		}
		if v, ok := sub[parts[len(parts)-1]].(string); ok {
			sub[parts[len(parts)-1]] = RecordedPath(key, v)
		}
	}
}

// ErrNoSuchInput is wrapped by ConfigFilePath's error for a file or directory that is not there.
var ErrNoSuchInput = errors.New("no such file or directory")

// ConfigFilePath resolves the value p of a path key read from the configuration file file: a
// relative path is relative to the file's directory (not the working directory), else an
// embedded fixture's repository path (never a same-named file of the working directory or the
// repository); data:… must be in the
// shared data folder and an absolute path must exist. Embedded workload names and empty values
// come back as given. The error says what is missing; the caller names the file and the key.
func ConfigFilePath(file, key, p string) (string, error) {
	if notPath(key, p) {
		return p, nil
	}
	if _, ok := datapath.Rel(p); ok {
		if _, err := datapath.Resolve(p); err != nil {
			return "", err
		}
		return p, nil
	}
	if filepath.IsAbs(p) {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s", ErrNoSuchInput, p)
		}
		return p, nil
	}
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return "", err
	}
	if full := filepath.Join(dir, p); exists(full) {
		return full, nil
	}
	if _, ok, err := datapath.Fixture(p); ok || err != nil { // compiled in: the same everywhere
		return p, err
	}
	return "", fmt.Errorf("%w: %s (relative to the configuration file's directory %s)", ErrNoSuchInput, p, dir)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
