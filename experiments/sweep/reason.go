package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Reason says why a sweep computes a cell rather than take it from the cache.
type Reason string

// Reasons, worst surprise last.
const (
	// ReasonNew: no build has computed the cell's configuration in this cache.
	ReasonNew Reason = "new"
	// ReasonOtherBuild: the cache holds the cell's configuration computed by another build of
	// schedlab (another revision, a dirty tree, another binary), which this build must not trust.
	ReasonOtherBuild Reason = "other-build"
	// ReasonOldVersion: the cache holds the configuration under the key of a schedlab that
	// recorded no build identity.
	ReasonOldVersion Reason = "unidentified-build"
	// ReasonNondeterministic: the cell was computed before, but its result was not
	// deterministic (see experiments.Provenance.Deterministic), so it was not cached.
	ReasonNondeterministic Reason = "nondeterministic"
)

// reasonOrder is the order in which counts are printed.
var reasonOrder = []Reason{ReasonNew, ReasonOtherBuild, ReasonOldVersion, ReasonNondeterministic}

// phrase describes n cells computed for a reason: "3 built by a different binary", or with
// noun "3 cells built by a different binary".
func (r Reason) phrase(n int, noun bool) string {
	count := fmt.Sprint(n)
	if noun {
		count = cellCount(n)
	}
	switch r {
	case ReasonOtherBuild:
		return count + " built by a different binary"
	case ReasonOldVersion:
		return count + " built by a schedlab that recorded no build"
	case ReasonNondeterministic:
		return count + " not cached as nondeterministic"
	default:
		return count + " new"
	}
}

// cellCount writes "1 cell" or "n cells".
func cellCount(n int) string { return Plural(n, "cell", "cells") }

// Plural writes n and the singular or plural noun.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// UncachedDir is where, inside a sweep's output directory, the cells whose results were not
// deterministic are kept for this sweep's table: never in the cache, so no later sweep reuses
// them.
const UncachedDir = "uncached"

// cacheIndex maps the configuration prefix of every cell directory in a cache to one of its
// keys, to find cells of the same configuration made by other builds.
type cacheIndex map[string]string

// indexCache lists a cache's cell directories once (a sweep lists the cache anyway to clean it).
func indexCache(cache string) cacheIndex {
	entries, _ := os.ReadDir(cache)
	idx := cacheIndex{}
	for _, e := range entries {
		name := e.Name()
		if len(name) == 64 && e.IsDir() && !strings.HasPrefix(name, ".") {
			idx[name[:configPrefix]] = name
		}
	}
	return idx
}

// reasonFor says why a cell that is not in the cache must be computed, and names the cell
// directory of another build or version it replaces ("" when none).
func reasonFor(c *Cell, cache, out string, idx cacheIndex) (Reason, string) {
	if k, ok := idx[c.ConfigKey[:configPrefix]]; ok && k != c.Key && k != c.ConfigKey && cached(cache, k) {
		return ReasonOtherBuild, k
	}
	if cached(cache, c.ConfigKey) {
		return ReasonOldVersion, c.ConfigKey
	}
	if cached(filepath.Join(out, UncachedDir), c.Key) {
		return ReasonNondeterministic, ""
	}
	return ReasonNew, ""
}

// describeBuild names the build that computed a cell directory, from its provenance.
func describeBuild(dir string) string {
	doc, err := readSummary(dir)
	if err != nil {
		return "unknown"
	}
	if doc.Provenance.Build.Binary == "" && doc.Provenance.Build.Revision == "" {
		return "schedlab " + doc.Provenance.SchedlabVersion + " (no build recorded)"
	}
	return doc.Provenance.Build.String()
}

// Counts describes a finished sweep's cells, e.g. "12 cells (12 run: 12 built by a different
// binary, 0 cached)"; when every cell run was new it is "12 cells (12 run, 0 cached)".
func (r *Result) Counts() string {
	total := r.Ran + r.Cached
	run := fmt.Sprintf("%d run", r.Ran)
	if r.Reasons[ReasonNew] != r.Ran {
		var why []string
		for _, reason := range reasonOrder {
			if n := r.Reasons[reason]; n > 0 {
				why = append(why, reason.phrase(n, false))
			}
		}
		run += ": " + strings.Join(why, ", ")
	}
	return fmt.Sprintf("%s (%s, %d cached)", cellCount(total), run, r.Cached)
}

// whyLine explains, for the progress output, why cells are recomputed when the cache held them
// in some form ("" when every cell to run is simply new).
func whyLine(p *Plan, byReason map[Reason]int, other string) string {
	var why []string
	for _, r := range reasonOrder[1:] {
		if n := byReason[r]; n > 0 {
			why = append(why, r.phrase(n, true))
		}
	}
	if len(why) == 0 {
		return ""
	}
	s := "recomputing " + strings.Join(why, ", ")
	if n := byReason[ReasonNew]; n > 0 {
		s += fmt.Sprintf(" (and %d new)", n)
	}
	if other != "" {
		s += fmt.Sprintf(" (cached by %s; this is %s)", other, p.Build)
	}
	return s
}
