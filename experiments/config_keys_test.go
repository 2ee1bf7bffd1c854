package experiments

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// resolveErr resolves the defaults with sets applied and returns the error.
func resolveErr(sets ...string) error {
	v := NewViper()
	if err := ApplySet(v, sets); err != nil {
		return err
	}
	_, err := Resolve(v)
	return err
}

// TestIntegerKeysRefuseFractions: every integer key refuses 2.5, from --set (a string) and from
// a YAML file (a float), naming the key and the two integers meant; before, 2.5 became 2.
func TestIntegerKeysRefuseFractions(t *testing.T) {
	n := 0
	for _, k := range Keys {
		if !integerKey(k) {
			continue
		}
		n++
		gen := generatorOf(k.Name)
		for _, val := range []any{"2.5", 2.5} {
			v := NewViper()
			if gen != "" {
				v.Set("workload.generator", gen)
			}
			v.Set(k.Name, val)
			_, err := Resolve(v)
			want := k.Name + ": want an integer, got 2.5; did you mean 2 or 3?"
			if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s = %#v: got %v, want a config error containing %q", k.Name, val, err, want)
			}
		}
		if err := resolveErr(k.Name + "=1e30"); err == nil || !strings.Contains(err.Error(), k.Name+": want an integer") {
			t.Errorf("%s=1e30: got %v, want it refused naming the key", k.Name, err)
		}
	}
	if n < 19 {
		t.Errorf("%d integer keys, want at least the 19 the audit found", n)
	}
	// Whole numbers written as floats or with a sign are still integers.
	if err := resolveErr("workload.machines=3", "seed=-4"); err != nil {
		t.Errorf("whole numbers: %v", err)
	}
	v := NewViper()
	v.Set("workload.machines", 3.0)
	if c, err := Resolve(v); err != nil || c.Workload.Machines != 3 {
		t.Errorf("workload.machines: 3.0 from YAML: got %v, %v; want 3", c.Workload.Machines, err)
	}
}

// generatorOf returns the generator a workload.<generator>.* key belongs to, else "".
func generatorOf(key string) string {
	for _, g := range generatorNames() {
		if strings.HasPrefix(key, "workload."+g+".") {
			return g
		}
	}
	return ""
}

// TestSecondsKeysAreBounded: the seconds the engine converts to int64 microseconds are refused
// beyond MaxSeconds naming the key; 1e300 overflowed into an engine message naming none.
func TestSecondsKeysAreBounded(t *testing.T) {
	for _, key := range []string{"engine.cycle_s", "engine.preempt_delay_s", "engine.horizon_s", "metrics.usage_window_s"} {
		for _, val := range []string{"1e300", "9.3e12", "1000000001"} {
			err := resolveErr(key + "=" + val)
			want := key + ": want seconds in [0, 1e+09], got " + val
			if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s=%s: got %v, want a config error containing %q", key, val, err, want)
			}
		}
		if err := resolveErr(key + "=1000000000"); err != nil {
			t.Errorf("%s=1e9: %v, want it accepted", key, err)
		}
	}
}

// TestGeneratorOptionErrorsNameKeys: an out-of-range generator option is a configuration error
// naming its key (workload.bpf.lqs), found when the configuration is resolved; before, the
// generator refused it at run time naming a Go field (bpf: Options.LQs), exit status 1.
func TestGeneratorOptionErrorsNameKeys(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"workload.bpf.lqs=-1", "workload.bpf.lqs: want 0..10000, got -1"},
		{"workload.bpf.tqs=20000", "workload.bpf.tqs: want 0..10000, got 20000"},
		{"workload.bpf.period_s=0", "workload.bpf.period_s: want a value in (0, 1e+09], got 0"},
		{"workload.bpf.lq_max_critical_path_s=-3", "workload.bpf.lq_max_critical_path_s: want a value in (0, 1e+09]"},
		{"workload.cora.jobs=0", "workload.cora.jobs: want 1..10000000, got 0"},
		{"workload.cora.machines=7", "workload.cora.machines: 7 does not divide Containers 40"},
		{"workload.cora.mean_interarrival_s=1e300", "workload.cora.mean_interarrival_s: want seconds in (0, 1e6], got 1e+300"},
		{"workload.jamaisvu.k=0", "workload.jamaisvu.k: want 1..1000, got 0"},
		{"workload.jamaisvu.gpu_racks=99", "workload.jamaisvu.gpu_racks: want 0..Racks (8), got 99"},
		{"workload.jamaisvu.mix=EXP9", `workload.jamaisvu.mix: unknown mix "EXP9"`},
		{"workload.decima.init_jobs=-3", "workload.decima.init_jobs: init_jobs -3 + stream_jobs 100"},
		{"workload.decima.key=x", `workload.decima.key: unknown rule "x"`},
		{"workload.decima.job_executors=2000000", "workload.decima.job_executors: must be 1..1000000, got 2000000"},
	} {
		gen := generatorOf(strings.SplitN(tc.set, "=", 2)[0])
		err := resolveErr("workload.generator="+gen, tc.set)
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a config error containing %q", tc.set, err, tc.want)
		}
	}
	// Every option key, at every extreme: accepted, or refused naming a key and no Go field.
	for _, k := range Keys {
		gen := generatorOf(k.Name)
		if gen == "" {
			continue
		}
		for _, val := range []string{"-1", "0", "1e300", "-1e300", "NaN", "2147483648"} {
			err := resolveErr("workload.generator="+gen, k.Name+"="+val)
			if err == nil {
				continue
			}
			if !errors.Is(err, ErrConfig) || strings.Contains(err.Error(), "Options.") || !strings.Contains(err.Error(), "workload."+gen+".") {
				t.Errorf("%s=%s: got %v, want a config error naming a workload.%s.* key", k.Name, val, err, gen)
			}
		}
	}
}

// TestGeneratorRunTimeErrorsNameKeys: an option problem only Generate can see (it needs the
// inputs) is mapped to its key as well; a problem with an input stays a data error.
func TestGeneratorRunTimeErrorsNameKeys(t *testing.T) {
	err := generatorErr("cora", errors.Join(fmt.Errorf("cora: Options.Jobs: 100 jobs at one per 1e+06 s run past 1e+09 s")))
	if err == nil || !errors.Is(err, ErrConfig) || err.Error() != "config: workload.cora.jobs: 100 jobs at one per 1e+06 s run past 1e+09 s" {
		t.Errorf("got %v", err)
	}
	data := errors.New("bpf: Options.Queries: no queries")
	if err := generatorErr("bpf", data); err != data {
		t.Errorf("an input problem: got %v, want it unchanged", err)
	}
}
