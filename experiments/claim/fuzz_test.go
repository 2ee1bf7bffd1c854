package claim

import "testing"

// FuzzParseCheck feeds arbitrary text to the claim parser: it must never panic, and a check it
// accepts must print in a canonical form that parses back to the same form.
func FuzzParseCheck(f *testing.F) {
	for _, s := range []string{
		"policy=drf avg_jct_s > policy=fifo avg_jct_s",
		"for each policy, machines: median(machines=25 utilization.cpu) <= 80% * max(machines=50 utilization.cpu)",
		`workload.name="my trace" by_class.best-effort.avg_jct_s < -1e3`,
		"a_s / b_s = 3.05 ± 25%",
		"a_s >= (b_s - c_s) * 2 +/- 0.5",
		"a_s = 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParseCheck(src)
		if err != nil {
			return
		}
		c2, err := ParseCheck(c.String())
		if err != nil {
			t.Fatalf("%q parsed, but its canonical form %q does not: %v", src, c.String(), err)
		}
		if c2.String() != c.String() {
			t.Fatalf("canonical form of %q changes on reparsing: %q → %q", src, c.String(), c2.String())
		}
	})
}
