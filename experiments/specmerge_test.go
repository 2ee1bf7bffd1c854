package experiments

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// includeFragments is a spec including n fragments, each of a names block of distinct names
// (f<i>_<j>), so that every merge adds every name.
func includeFragments(n, names int) fstest.MapFS {
	fsys := fstest.MapFS{}
	var inc []string
	for i := range n {
		var b strings.Builder
		b.WriteString("names:\n")
		for j := range names {
			fmt.Fprintf(&b, "  f%d_%d: Name %d\n", i, j, j)
		}
		name := fmt.Sprintf("_f%d.yaml", i)
		fsys[name] = &fstest.MapFile{Data: []byte(b.String())}
		inc = append(inc, name)
	}
	fsys["spec.yaml"] = &fstest.MapFile{Data: []byte("include: [" + strings.Join(inc, ", ") + "]\n" +
		"base: {workload: {name: tpch-fb}}\naxes:\n  - {key: policy.name, values: [fifo]}\nseeds: {count: 1}\nlabels: {quick: {}, paper: {}}\n")}
	return fsys
}

// TestIncludesMergeInLinearTime: ten included fragments of 20,000 names each merge in well
// under the time the quadratic merge took for two (17 s); ten never finished.
func TestIncludesMergeInLinearTime(t *testing.T) {
	n, names := 10, 20_000
	if slowBuild { // the race detector slows parsing tenfold: a tenth of the names
		names = 2_000
	}
	fsys := includeFragments(n, names)
	start := time.Now()
	s, err := ParseSpec(fsys, "spec.yaml", "", "test/merge")
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Names); got != n*names {
		t.Errorf("%d names, want the %d of the fragments", got, n*names)
	}
	last := fmt.Sprintf("f%d_%d", n-1, names-1)
	if want := fmt.Sprintf("Name %d", names-1); s.Names[last] != want {
		t.Errorf("the last fragment's last name = %q, want %q", s.Names[last], want)
	}
	if elapsed > 10*time.Second {
		t.Errorf("merging %d fragments of %d names took %v, want it linear (a few seconds at most)", n, names, elapsed)
	}
}

// BenchmarkIncludeMerge parses a spec including fragments of 20,000 names; ns/name stays flat
// from 1 to 10 fragments when the merge is linear.
func BenchmarkIncludeMerge(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("fragments=%d", n), func(b *testing.B) {
			const names = 20_000
			fsys := includeFragments(n, names)
			b.ResetTimer()
			for b.Loop() {
				if _, err := ParseSpec(fsys, "spec.yaml", "", "test/merge"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*names), "ns/name")
		})
	}
}
