package bpf_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedlab/schedlab/policies/bpf"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
	genbpf "github.com/schedlab/schedlab/traces/generate/bpf"
	"github.com/schedlab/schedlab/traces/tpcdag"
)

// The Table 4 setting on the bpf generator's workload: one LQ bursting every 1000 s with
// BigBench queries, and TQs sharing 500 backlogged BigBench jobs. BPF reads each burst from its
// job (deadline and stages) and needs only the period declared.
//
// The run stops one period after the last burst: the TQs' backlog of 500 jobs would take most
// of the replay time to drain, and nothing after the horizon can change the LQ jobs that finished
// before it (the replay is causal), so the LQ completion times compared here are exactly those of
// a full run — the test checks that every LQ job finished within the horizon.
func TestTable4ScenarioBPFApproachesStrictPriority(t *testing.T) {
	queries, err := tpcdag.ReadFile("testdata/queries_bb.txt", tpcdag.Options{LastStageWins: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		tqs     int
		minGain float64 // factor of improvement over DRF at least
	}{
		{"with one TQ BPF is about as fast as DRF", 1, 0.95},
		{"with eight TQs BPF is much faster than DRF", 8, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := genbpf.Defaults()
			o.Queries, o.TQs, o.Bursts = queries, tc.tqs, 5
			w, err := genbpf.Generate(o, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			avg := map[string]replay.Summary{}
			for _, name := range []string{"drf", "sp", "bpf"} {
				p := comparator(t, name, map[string]any{"period_s": o.PeriodS})
				horizon := traces.FromSeconds(o.FirstBurstS + float64(o.Bursts)*o.PeriodS)
				e, err := replay.New(w, p, replay.Config{Horizon: horizon})
				if err != nil {
					t.Fatal(err)
				}
				res, err := e.Run()
				if err != nil {
					t.Fatal(err)
				}
				avg[name] = replay.Summarize(res)
				if g := avg[name].ByClass["lq"]; g.Jobs != o.Bursts || g.Completed != g.Jobs {
					t.Fatalf("%s: %d of %d LQ jobs finished by %gs, want all %d", name, g.Completed, g.Jobs, traces.Seconds(horizon), o.Bursts)
				}
				if a, ok := p.(*bpf.BPF); ok {
					if as := a.Admissions(); len(as) == 0 || as[len(as)-1].Queue != "lq0" || as[len(as)-1].Class != bpf.Hard {
						t.Fatalf("admissions %+v: want lq0 (admitted last, after the TQs at time 0) hard", as)
					}
				}
			}
			lq := func(p string) float64 { return avg[p].ByClass["lq"].AvgJCT }
			foi, err := bpf.FactorOfImprovement(lq("drf"), lq("bpf"))
			if err != nil {
				t.Fatal(err)
			}
			if foi < tc.minGain {
				t.Fatalf("factor of improvement %.2f (DRF %.1fs, BPF %.1fs), want at least %.2f", foi, lq("drf"), lq("bpf"), tc.minGain)
			}
			if lq("bpf") > 1.05*lq("sp") {
				t.Fatalf("BPF's LQ jobs average %.1fs, strict priority's %.1fs: want BPF within 5%%", lq("bpf"), lq("sp"))
			}
		})
	}
}
