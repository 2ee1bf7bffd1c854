package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/internal/buildid"
)

// TestAnotherBuildRecomputesEveryCell simulates two builds of schedlab (a policy changed between
// them): the second build's sweep must not take the first's cells from the cache, whether it
// writes into the first's output directory or points --cache at its cells, and must say why.
func TestAnotherBuildRecomputesEveryCell(t *testing.T) {
	old := buildid.ID{Revision: "1111111111111111", Binary: strings.Repeat("a", 64)}
	now := buildid.ID{Revision: "1111111111111111", Modified: true, Binary: strings.Repeat("b", 64)}
	dir := t.TempDir()
	base, other := filepath.Join(dir, "base"), filepath.Join(dir, "other")

	restore := buildid.Override(old)
	p := plan(t, "quick")
	for _, out := range []string{base, other} {
		if r := runSweep(t, p, Options{Out: out, Parallel: 2}); r.Ran != len(p.Cells) {
			t.Fatalf("first build: ran %d of %d", r.Ran, len(p.Cells))
		}
	}
	restore()

	defer buildid.Override(now)()
	q := plan(t, "quick")
	for i := range q.Cells {
		if q.Cells[i].Key == p.Cells[i].Key {
			t.Fatalf("cell %d: both builds address it as %s", i, q.Cells[i].Key)
		}
		if q.Cells[i].ConfigKey != p.Cells[i].ConfigKey {
			t.Errorf("cell %d: the configuration key changed with the build", i)
		}
	}
	n := len(q.Cells)
	for _, tc := range []struct{ name, out, cache string }{
		{"into the old output", base, ""},
		{"--cache at the old cells", filepath.Join(dir, "new"), filepath.Join(other, CacheDir)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var progress bytes.Buffer
			r := runSweep(t, q, Options{Out: tc.out, Cache: tc.cache, Parallel: 2, Progress: &progress})
			if r.Ran != n || r.Cached != 0 || r.Reasons[ReasonOtherBuild] != n {
				t.Errorf("ran %d, cached %d, reasons %v; want all %d run as built by another binary", r.Ran, r.Cached, r.Reasons, n)
			}
			if got, want := r.Counts(), "8 cells (8 run: 8 built by a different binary, 0 cached)"; got != want {
				t.Errorf("Counts() = %q, want %q", got, want)
			}
			if !strings.Contains(progress.String(), "recomputing 8 cells built by a different binary (cached by rev 111111111111, binary aaaaaaaaaaaa; this is rev 111111111111 (modified), binary bbbbbbbbbbbb)") {
				t.Errorf("progress does not say why:\n%s", progress.String())
			}
			m, err := ReadManifest(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if m.Build != now {
				t.Errorf("sweep.json build %+v, want %+v", m.Build, now)
			}
			for i, c := range m.Cells {
				if c.Reason != ReasonOtherBuild || c.Previous != p.Cells[i].Key {
					t.Errorf("sweep.json cell %d: reason %q previous %q, want %q and %s", i, c.Reason, c.Previous, ReasonOtherBuild, p.Cells[i].Key)
				}
			}
		})
	}
	// The new build's cells are now cached; the old build's stay for the old build.
	if r := runSweep(t, q, Options{Out: base, Parallel: 2}); r.Ran != 0 || r.Cached != n || r.Counts() != "8 cells (0 run, 8 cached)" {
		t.Errorf("rerun of the new build: %s", r.Counts())
	}
	m, _ := ReadManifest(base)
	for _, c := range m.Cells {
		if c.Reason != "" {
			t.Errorf("a cached cell has reason %q in sweep.json", c.Reason)
		}
	}
	for _, c := range p.Cells {
		if !cached(filepath.Join(base, CacheDir), c.Key) {
			t.Errorf("the old build's cell %s is gone", c.Key)
		}
	}
}

// TestCellsOfAnUnidentifiedBuildAreRecomputed: a cache written before builds were identified
// holds cells under their configuration key alone; a sweep recomputes them and says why.
func TestCellsOfAnUnidentifiedBuildAreRecomputed(t *testing.T) {
	dir := t.TempDir()
	p := plan(t, "quick", "policy.name=fifo")
	runSweep(t, p, Options{Out: dir})
	cache := filepath.Join(dir, CacheDir)
	for _, c := range p.Cells { // what schedlab 0.1.0 before build identities left
		if err := os.Rename(CellDir(cache, c.Key), CellDir(cache, c.ConfigKey)); err != nil {
			t.Fatal(err)
		}
	}
	r := runSweep(t, p, Options{Out: dir})
	if got, want := r.Counts(), "4 cells (4 run: 4 built by a schedlab that recorded no build, 0 cached)"; got != want {
		t.Errorf("Counts() = %q, want %q", got, want)
	}
}

func TestCountsPluralizes(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		want string
	}{
		{Result{Ran: 1, Reasons: map[Reason]int{ReasonNew: 1}}, "1 cell (1 run, 0 cached)"},
		{Result{Cached: 1, Reasons: map[Reason]int{}}, "1 cell (0 run, 1 cached)"},
		{Result{Ran: 3, Cached: 2, Reasons: map[Reason]int{ReasonNew: 2, ReasonOtherBuild: 1}}, "5 cells (3 run: 2 new, 1 built by a different binary, 2 cached)"},
	} {
		if got := tc.r.Counts(); got != tc.want {
			t.Errorf("Counts() = %q, want %q", got, tc.want)
		}
	}
}

// TestNondeterministicCellsAreNeverCached: a cell whose result is marked nondeterministic in its
// provenance is in the sweep's table but not in the cache, and the next sweep computes it again
// and says why; gathering shards keeps it out of the cache too.
func TestNondeterministicCellsAreNeverCached(t *testing.T) {
	nondeterministicForTest = func(c *Cell) string {
		if c.Config.Policy.Name == "srpt" {
			return "test: a solve hit its time limit"
		}
		return ""
	}
	defer func() { nondeterministicForTest = nil }()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	p := plan(t, "quick")
	nd := 0
	for _, c := range p.Cells {
		if c.Config.Policy.Name == "srpt" {
			nd++
		}
	}
	if nd == 0 || nd == len(p.Cells) {
		t.Fatalf("%d of %d cells use srpt; the test needs some", nd, len(p.Cells))
	}
	r := runSweep(t, p, Options{Out: out, Parallel: 2})
	if r.Ran != len(p.Cells) || len(r.Table.Rows) != len(p.Cells) {
		t.Fatalf("first sweep: ran %d, %d rows", r.Ran, len(r.Table.Rows))
	}
	for _, c := range p.Cells {
		inCache := cached(filepath.Join(out, CacheDir), c.Key)
		kept := cached(filepath.Join(out, UncachedDir), c.Key)
		if want := c.Config.Policy.Name != "srpt"; inCache != want || kept == want {
			t.Errorf("cell %d (%s): in the cache %v, kept uncached %v", c.Index, c.Config.Policy.Name, inCache, kept)
		}
		if c.Config.Policy.Name == "srpt" {
			doc, err := readSummary(CellDir(filepath.Join(out, UncachedDir), c.Key))
			if err != nil || doc.Provenance.Deterministic || doc.Provenance.NondeterministicWhy == "" {
				t.Errorf("cell %d: provenance %+v (%v), want deterministic false with a reason", c.Index, doc, err)
			}
		}
	}
	r = runSweep(t, p, Options{Out: out, Parallel: 2})
	want := "8 cells (4 run: 4 not cached as nondeterministic, 4 cached)"
	if got := r.Counts(); got != want || len(r.Table.Rows) != len(p.Cells) {
		t.Errorf("second sweep: %s (%d rows), want %s", got, len(r.Table.Rows), want)
	}
	// Shards gathered: the nondeterministic cells reach the table, not the cache.
	var shards []string
	for i := range 2 {
		d := filepath.Join(dir, "shard", string(rune('0'+i)))
		runSweep(t, p, Options{Out: d, Shard: Shard{Index: i, Count: 2}})
		shards = append(shards, d)
	}
	g := filepath.Join(dir, "gathered")
	tb, err := Gather(g, shards, GatherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != len(p.Cells) {
		t.Errorf("gathered %d rows, want %d", len(tb.Rows), len(p.Cells))
	}
	for _, c := range p.Cells {
		if cached(filepath.Join(g, CacheDir), c.Key) == (c.Config.Policy.Name == "srpt") {
			t.Errorf("gathered cell %d (%s): in the cache %v", c.Index, c.Config.Policy.Name, !(c.Config.Policy.Name == "srpt"))
		}
	}
}
