// Package calibrate derives a testbed profile's execution overheads from the logs of real
// Hadoop/YARN + Tez runs: the BPF authors' public ccra runs (github.com/lenhattan86/ccra). It
// reads three logs per run — the ResourceManager's yarn_completion_time.csv, the Tez AM's
// completion_time.csv and the per-queue allocation samples yarnUsedResources.csv — and measures
//
//   - AM start-up: attempt creation to AM registration, over the jobs whose AM got a container
//     at once (within HeartbeatBandS of the fastest);
//   - AM-side DAG setup and teardown: the AM's lifetime minus the DAG's duration;
//   - per-container holding without work, per stage: each LQ queue's allocation is decomposed
//     into containers of each size (vcores and memory identify them), integrated over the
//     queue's jobs, and compared with the task profile;
//   - achieved allocation: the cluster's allocated memory share while an LQ DAG and a TQ job
//     both ran (demand above capacity).
//
// The validation runs of BPF Figs. 9-10 (ccra's b1i3_*) are refused by name.
package calibrate

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"
)

// Result is what a calibration measured. Times in seconds.
type Result struct {
	Runs []string `json:"runs"`
	// AMStartupS is the median AM start-up of the jobs within the heartbeat band of the fastest
	// (AMStartupN of AMStartupAll jobs); AMStartupMinS the fastest.
	AMStartupS    float64 `json:"am_startup_s"`
	AMStartupMinS float64 `json:"am_startup_min_s"`
	AMStartupN    int     `json:"am_startup_n"`
	AMStartupAll  int     `json:"am_startup_all"`
	// AMSetupTeardownS is the median of (AM lifetime − DAG duration) over AMSetupN jobs
	// (millisecond data); AMSetupS the median DAG start − AM registration (second data), and
	// AMTeardownS their difference.
	AMSetupTeardownS float64 `json:"am_setup_teardown_s"`
	AMSetupS         float64 `json:"am_setup_s"`
	AMTeardownS      float64 `json:"am_teardown_s"`
	AMSetupN         int     `json:"am_setup_n"`
	// Stages holds, per LQ stage, the median container holding without work (container-seconds
	// per task minus the profile's duration) over HoldingGroups job groups.
	Stages []StageHolding `json:"stages"`
	// HeldRatio is the median over job groups of task-container memory-seconds held / the
	// profile's memory-seconds.
	HeldRatio      float64 `json:"held_ratio"`
	HoldingGroups  int     `json:"holding_groups"`
	SkippedGroups  int     `json:"skipped_groups"`
	Undecomposable int     `json:"undecomposable_samples"`
	// Achieved is the time-weighted mean allocated memory share of the cluster over
	// ContendedS seconds in which an LQ DAG and a TQ job both ran.
	Achieved   float64 `json:"achieved_mem_share"`
	ContendedS float64 `json:"contended_s"`
	// Properties are the scheduler settings from the configuration files (or defaults).
	Properties []Property `json:"properties"`

	setup *Setup
}

// StageHolding is one LQ stage's holding measurement.
type StageHolding struct {
	Name     string  `json:"name"`
	HoldingS float64 `json:"holding_s"`
}

// Run calibrates from dir/calibration.yaml and the runs it lists.
func Run(dir string) (*Result, error) {
	s, err := LoadSetup(dir)
	if err != nil {
		return nil, err
	}
	res := &Result{Runs: s.Runs, setup: s}
	var cfgs []string
	for _, c := range s.Configs {
		cfgs = append(cfgs, filepath.Join(dir, c))
	}
	if res.Properties, err = ScanConfigs(cfgs); err != nil {
		return nil, err
	}
	var am, setupSum, setup, ratio []float64
	hold := make([][]float64, len(s.LQJob))
	var achSum, achT float64
	for _, r := range s.Runs {
		rd := filepath.Join(dir, r)
		run, err := loadRun(rd)
		if err != nil {
			return nil, err
		}
		a, ss, st := run.amTimes()
		am = append(am, a...)
		setupSum = append(setupSum, ss...)
		setup = append(setup, st...)
		h, rt, skipped, undec := run.holding(s)
		for k := range hold {
			hold[k] = append(hold[k], h[k]...)
		}
		ratio = append(ratio, rt...)
		res.SkippedGroups += skipped
		res.Undecomposable += undec
		sum, t := run.achieved(s)
		achSum += sum
		achT += t
	}
	if len(am) == 0 || len(setupSum) == 0 || len(ratio) == 0 || achT == 0 {
		return nil, fmt.Errorf("%s: the runs hold too little to calibrate (%d AM start-ups, %d DAGs, %d complete LQ job groups, %g contended seconds)", dir, len(am), len(setupSum), len(ratio), achT)
	}
	slices.Sort(am)
	res.AMStartupAll = len(am)
	res.AMStartupMinS = am[0]
	var band []float64
	for _, x := range am {
		if x <= am[0]+s.HeartbeatBandS {
			band = append(band, x)
		}
	}
	res.AMStartupS, res.AMStartupN = median(band), len(band)
	res.AMSetupTeardownS, res.AMSetupS, res.AMSetupN = median(setupSum), median(setup), len(setupSum)
	res.AMTeardownS = res.AMSetupTeardownS - res.AMSetupS
	for k, st := range s.LQJob {
		res.Stages = append(res.Stages, StageHolding{Name: st.Name, HoldingS: median(hold[k])})
	}
	res.HeldRatio, res.HoldingGroups = median(ratio), len(ratio)
	res.Achieved, res.ContendedS = achSum/achT, achT
	return res, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	ys := slices.Clone(xs)
	slices.Sort(ys)
	n := len(ys)
	if n%2 == 1 {
		return ys[n/2]
	}
	return (ys[n/2-1] + ys[n/2]) / 2
}

// run is one run's logs, with times as seconds since midnight of the run's first day.
type run struct {
	dir   string
	apps  []AppTimes
	dags  map[string]DAGTimes
	day   time.Time
	times []int64                    // distinct usage seconds, ascending
	use   map[int64]map[string]Usage // second → queue → sample
}

// openLog finds name or name.gz in dir.
func openLog(dir, name string) (string, error) {
	for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, name+".gz")} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: no %s (or .gz)", dir, name)
}

func loadRun(dir string) (*run, error) {
	if err := CheckNotValidation(dir); err != nil {
		return nil, err
	}
	r := &run{dir: dir, dags: map[string]DAGTimes{}, use: map[int64]map[string]Usage{}}
	p, err := openLog(dir, "yarn_completion_time.csv")
	if err != nil {
		return nil, err
	}
	if r.apps, err = ReadAppTimes(p); err != nil {
		return nil, err
	}
	if len(r.apps) == 0 {
		return nil, fmt.Errorf("%s: no applications", p)
	}
	if p, err = openLog(dir, "completion_time.csv"); err != nil {
		return nil, err
	}
	dags, err := ReadDAGTimes(p)
	if err != nil {
		return nil, err
	}
	for _, d := range dags {
		r.dags[d.Name] = d
	}
	if p, err = openLog(dir, "yarnUsedResources.csv"); err != nil {
		return nil, err
	}
	us, err := ReadUsage(p)
	if err != nil {
		return nil, err
	}
	if len(us) == 0 {
		return nil, fmt.Errorf("%s: no samples", p)
	}
	first := r.apps[0].Start
	for _, a := range r.apps {
		if a.Start.Before(first) {
			first = a.Start
		}
	}
	r.day = time.Date(first.Year(), first.Month(), first.Day(), 0, 0, 0, 0, first.Location())
	shift := int64(0)
	if us[0].Second > r.sec(first)+12*3600 { // the logger started the evening before
		shift = -86400
	}
	for _, u := range us {
		s := u.Second + shift
		m := r.use[s]
		if m == nil {
			m = map[string]Usage{}
			r.use[s] = m
			r.times = append(r.times, s)
		}
		m[u.Queue] = u
	}
	return r, nil
}

func (r *run) sec(t time.Time) int64 { return int64(t.Sub(r.day) / time.Second) }

// amTimes returns every job's AM start-up, and for jobs with a DAG line the AM lifetime minus
// the DAG duration (ms data) and the DAG start minus AM registration (s data).
func (r *run) amTimes() (am, setupSum, setup []float64) {
	for _, a := range r.apps {
		am = append(am, float64(a.FromStartMS-a.FromRunningMS)/1000)
		if d, ok := r.dags[a.Name]; ok {
			if x := float64(a.FromRunningMS-d.DurationMS) / 1000; x >= 0 {
				setupSum = append(setupSum, x)
				setup = append(setup, float64(r.sec(d.Start)-r.sec(a.Running)))
			}
		}
	}
	return
}

// decompose splits a queue's allocation (v vcores, m MB) into k AM containers and c[i]
// containers of each stage's size; it reports false unless exactly one split exists.
func decompose(s *Setup, v, m int64, maxAM int64) ([]int64, bool) {
	am := s.Containers["am"]
	sizes := make([]Container, len(s.LQJob))
	for i, st := range s.LQJob {
		sizes[i] = s.Containers[st.Container]
	}
	var found []int64
	n := 0
	for k := int64(0); k <= maxAM; k++ {
		rv, rm := v-k*am.Vcores, m-k*am.MemMB
		if rv < 0 || rm < 0 {
			break
		}
		if len(sizes) == 1 {
			if rm%sizes[0].MemMB == 0 && rm/sizes[0].MemMB*sizes[0].Vcores == rv {
				found, n = []int64{rm / sizes[0].MemMB}, n+1
			}
			continue
		}
		for b := int64(0); b*sizes[1].Vcores <= rv; b++ {
			ra := rv - b*sizes[1].Vcores
			if ra%sizes[0].Vcores != 0 {
				continue
			}
			a := ra / sizes[0].Vcores
			if a*sizes[0].MemMB+b*sizes[1].MemMB == rm {
				found, n = []int64{a, b}, n+1
			}
		}
	}
	return found, n == 1
}

// holding measures, per group of overlapping jobs of one LQ queue whose lifetime the usage log
// covers, each stage's container-seconds per task beyond its duration, and the memory-seconds
// ratio. It also counts the groups skipped (not covered, or with an undecomposable sample).
func (r *run) holding(s *Setup) (hold [][]float64, ratio []float64, skipped, undec int) {
	hold = make([][]float64, len(s.LQJob))
	queues := make([]string, 0, len(s.LQQueues))
	for q := range s.LQQueues {
		queues = append(queues, q)
	}
	sort.Strings(queues)
	lastUse, firstUse := r.times[len(r.times)-1], r.times[0]
	for _, q := range queues {
		type span struct{ a, b int64 }
		var spans []span
		for _, a := range r.apps {
			if queueOf(s.LQQueues, a.Name) == q {
				spans = append(spans, span{r.sec(a.Start), r.sec(a.Finish) + 1})
			}
		}
		sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
		type group struct {
			a, b int64
			jobs int64
		}
		var groups []group
		for _, sp := range spans {
			if n := len(groups); n > 0 && sp.a < groups[n-1].b {
				groups[n-1].b = max(groups[n-1].b, sp.b)
				groups[n-1].jobs++
				continue
			}
			groups = append(groups, group{sp.a, sp.b, 1})
		}
		for _, g := range groups {
			if g.a < firstUse || g.b > lastUse {
				skipped++
				continue
			}
			counts := make([]float64, len(s.LQJob))
			ok := true
			for i, t := range r.times[:len(r.times)-1] {
				lo, hi := max(t, g.a), min(r.times[i+1], g.b)
				if hi <= lo {
					continue
				}
				u, has := r.use[t][q]
				if !has {
					continue
				}
				c, unique := decompose(s, u.Vcores, u.MemMB, g.jobs+2)
				if !unique {
					ok = false
					undec++
					continue
				}
				for k := range counts {
					counts[k] += float64(c[k]) * float64(hi-lo)
				}
			}
			if !ok {
				skipped++
				continue
			}
			var held, work float64
			for k, st := range s.LQJob {
				tasks := float64(st.Tasks * g.jobs)
				hold[k] = append(hold[k], counts[k]/tasks-st.DurationS)
				mem := float64(s.Containers[st.Container].MemMB)
				held += counts[k] * mem
				work += tasks * st.DurationS * mem
			}
			ratio = append(ratio, held/work)
		}
	}
	return
}

// achieved integrates the cluster's allocated memory share over the seconds in which an LQ DAG
// and a TQ job both ran; it returns the integral and the seconds.
func (r *run) achieved(s *Setup) (sum, secs float64) {
	type span struct{ a, b int64 }
	var lq, tq []span
	for _, a := range r.apps {
		if queueOf(s.TQQueues, a.Name) != "" {
			tq = append(tq, span{r.sec(a.Running), r.sec(a.Finish)})
		}
		if queueOf(s.LQQueues, a.Name) != "" {
			if d, ok := r.dags[a.Name]; ok {
				lq = append(lq, span{r.sec(d.Start), r.sec(d.Finish)})
			}
		}
	}
	in := func(sp []span, t int64) bool {
		return slices.ContainsFunc(sp, func(x span) bool { return x.a <= t && t < x.b })
	}
	capMB := float64(s.Cluster.Nodes * s.Cluster.NodeMemMB)
	for i, t := range r.times[:len(r.times)-1] {
		if !in(lq, t) || !in(tq, t) {
			continue
		}
		dt := float64(r.times[i+1] - t)
		var mem int64
		for _, u := range r.use[t] {
			mem += u.MemMB
		}
		sum += float64(mem) / capMB * dt
		secs += dt
	}
	return
}
