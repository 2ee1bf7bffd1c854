package decima

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/traces"
)

// Profile is one job's measurements kept for drawing task durations while a replay runs, by
// decima-sim's rule (spark_env/node.py, Node.schedule): a task's duration is drawn when it starts,
// from the measurements taken with about as many executors as its job holds at that moment,
// and from the list its executor's history selects (Wave). The replay engine's `decima` duration
// model (engine.duration_model) calls Draw; the reader's static durations (the package doc) are
// what a trace must fix before the replay instead.
type Profile struct {
	stages   []measurements
	noWarmUp bool
	move     float64 // ms added to a joining executor's task (MovingDelay, 0 with NoMovingDelay)
}

// Wave is what an executor ran before the task it starts now.
type Wave uint8

const (
	// Join: the executor is new to the job (it ran nothing, or another job's task, before): a
	// fresh duration with JVM warm-up, after the moving delay.
	Join Wave = iota
	// First: the executor last ran another stage of the job: a first-wave duration.
	First
	// Rest: the executor last ran a task of this stage: a rest-wave duration.
	Rest
	// Idle: the executor waited idle in the job's pool (decima-sim detached it from its last
	// task): a fresh duration, without the moving delay.
	Idle
)

// Stages is the number of stages the profile measures.
func (p *Profile) Stages() int { return len(p.stages) }

// Draw returns the duration of a task of stage s started on an executor of the given wave while
// its job holds executors executors, drawn from r as decima-sim draws it:
//   - the measurement key: executors mapped onto DataPoints — a data point itself, the nearest
//     one outside their range, and between two the lower with probability
//     (executors − lower)/(upper − lower) (decima-sim's sample_executor_key) — or the stage's
//     largest measured key when the stage was never run with that many executors;
//   - Join: a fresh duration, else a first-wave one plus WarmupDelay, plus the moving delay
//     (NoWarmUp: a first-wave duration plus the moving delay); Idle: as Join without the moving
//     delay; First: a first-wave duration, else a fresh one; Rest: a rest-wave duration, else as
//     First; each uniform over its list.
//
// ok is false when the stage has no duration measured for the key at all.
func (p *Profile) Draw(s, executors int, wave Wave, r *rand.Rand) (d traces.Time, ok bool) {
	if s < 0 || s >= len(p.stages) {
		return 0, false
	}
	m := &p.stages[s]
	k := m.sampleKey(executors, r)
	first, rest, fresh := m.first[k], m.rest[k], m.fresh[k]
	pick := func(list []float64, add float64) (traces.Time, bool) {
		if len(list) == 0 {
			return 0, false
		}
		return max(MinTaskDuration, traces.Time((list[r.IntN(len(list))]+add)*1000+0.5)), true
	}
	switch wave {
	case Join, Idle:
		move := p.move
		if wave == Idle {
			move = 0
		}
		if p.noWarmUp {
			if d, ok := pick(first, move); ok {
				return d, true
			}
			return pick(fresh, move)
		}
		if d, ok := pick(fresh, move); ok {
			return d, true
		}
		return pick(first, move+WarmupDelay)
	case Rest:
		if d, ok := pick(rest, 0); ok {
			return d, true
		}
	}
	if d, ok := pick(first, 0); ok {
		return d, true
	}
	return pick(fresh, 0)
}

// sampleKey is decima-sim's executor key for a job holding e executors, drawn from r.
func (m *measurements) sampleKey(e int, r *rand.Rand) int {
	lo, hi := DataPoints[0], DataPoints[0]
	last := DataPoints[len(DataPoints)-1]
	switch {
	case e <= DataPoints[0]:
	case e >= last:
		lo, hi = last, last
	default:
		for i := 1; i < len(DataPoints); i++ {
			if e <= DataPoints[i] {
				lo, hi = DataPoints[i-1], DataPoints[i]
				if e == hi {
					lo = hi
				}
				break
			}
		}
	}
	k := lo
	if lo != hi && 1+r.IntN(hi-lo) > e-lo {
		k = hi
	}
	if _, ok := m.first[k]; ok {
		return k
	}
	return m.keys[len(m.keys)-1]
}

// ReadProfiles reads tpch_<size>.json for each of sizes (every Sizes file present in dir when
// sizes is empty) and returns each job's Profile by job name ("TPC-H query<N> <size>", the
// name Stream keeps), with o's NoWarmUp and NoMovingDelay.
func ReadProfiles(dir string, sizes []string, o Options) (map[string]*Profile, error) {
	if len(sizes) == 0 {
		for _, s := range Sizes {
			if _, err := os.Stat(filepath.Join(dir, "tpch_"+s+".json")); err == nil {
				sizes = append(sizes, s)
			}
		}
		if len(sizes) == 0 {
			return nil, fmt.Errorf("decima: %s: no tpch_<size>.json files (sizes %v)", dir, Sizes)
		}
	}
	out := map[string]*Profile{}
	for _, s := range sizes {
		path := filepath.Join(dir, "tpch_"+s+".json")
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("decima: %w", err)
		}
		err = parseProfiles(f, path, o, out)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parseProfiles parses one file as Parse does and adds its jobs' profiles to out.
func parseProfiles(r io.Reader, name string, o Options, out map[string]*Profile) error {
	o, err := o.normalize()
	if err != nil {
		return err
	}
	lr := &lineIndex{r: r}
	p := &parser{file: name, lines: lr, o: o, profiles: out}
	p.dec = newDecoder(lr)
	p.size = sizeOf(name)
	_, err = p.parse()
	return err
}

// keepProfile records job name's measurements when the parser collects profiles.
func (p *parser) keepProfile(name string, meas []measurements) {
	if p.profiles == nil {
		return
	}
	move := MovingDelay
	if p.o.NoMovingDelay {
		move = 0
	}
	p.profiles[name] = &Profile{stages: meas, noWarmUp: p.o.NoWarmUp, move: move}
}
