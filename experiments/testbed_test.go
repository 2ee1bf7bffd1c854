package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const existingKeysProfile = "testdata/testbeds/existing_keys.yaml" // two levels down: not an embedded spec

// TestTestbedProfilesResolve loads every committed profile, checks that each value names its
// source, and resolves a configuration with it.
func TestTestbedProfilesResolve(t *testing.T) {
	names := TestbedNames()
	if len(names) == 0 {
		t.Fatal("no embedded testbed profiles")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			tb, err := LoadTestbed(name)
			if err != nil {
				t.Fatal(err)
			}
			if miss := tb.profileSourcesMissing(); len(miss) > 0 {
				t.Errorf("values without a source comment: %s", strings.Join(miss, "; "))
			}
			v := NewViper()
			v.Set("testbed", name)
			c, err := Resolve(v)
			if err != nil {
				t.Fatal(err)
			}
			if c.Testbed != name || c.Map()["testbed"] != name {
				t.Errorf("Config.Testbed = %q, Map testbed = %v", c.Testbed, c.Map()["testbed"])
			}
		})
	}
}

// TestTestbedLoader checks the loader on a profile of keys that exist today: its values become
// defaults, configuration values override them, and bad profiles are one located error.
func TestTestbedLoader(t *testing.T) {
	v := NewViper()
	v.Set("testbed", existingKeysProfile)
	c, err := Resolve(v)
	if err != nil {
		t.Fatal(err)
	}
	if c.Engine.CycleS != 1 || c.Engine.PreemptDelayS != 0.5 || c.Engine.StopAfterQueue != "tq0" {
		t.Errorf("profile not applied: %+v", c.Engine)
	}
	m := c.Map()
	if m["testbed"] != existingKeysProfile || m["engine"].(map[string]any)["stop_after_queue"] != "tq0" {
		t.Errorf("Map: testbed %v, engine %v", m["testbed"], m["engine"])
	}

	// --set (v.Set) and a configuration file (merged config) override the profile.
	v = NewViper()
	v.Set("testbed", existingKeysProfile)
	if err := ApplySet(v, []string{"engine.cycle_s=2"}); err != nil {
		t.Fatal(err)
	}
	if err := v.MergeConfigMap(map[string]any{"engine": map[string]any{"preempt_delay_s": 3}}); err != nil {
		t.Fatal(err)
	}
	if c, err = Resolve(v); err != nil {
		t.Fatal(err)
	}
	if c.Engine.CycleS != 2 || c.Engine.PreemptDelayS != 3 || c.Engine.StopAfterQueue != "tq0" {
		t.Errorf("overrides: %+v", c.Engine)
	}

	// Without a profile the configuration map is as before: no testbed, no stop rule.
	c, err = Resolve(NewViper())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Map()["testbed"]; ok {
		t.Error("Map has a testbed key without a profile")
	}
	if _, ok := c.Map()["engine"].(map[string]any)["stop_after_queue"]; ok {
		t.Error("Map has engine.stop_after_queue unset")
	}
}

func TestTestbedErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, profile, want string }{
		{"unknown name", "ccra-hadoop72", `testbed: unknown profile "ccra-hadoop72", did you mean`},
		{"bad value", "engine.cycle_s: 1 # ok\nengine.preempt_delay_s: -3 # bad\n", "bad.yaml:2: engine.preempt_delay_s: want a number ≥ 0, got -3"},
		{"unknown key", "engine.cycle_s: 1\nengine.cycles: 2\n", `unknown config key "engine.cycles" in BAD:2, did you mean engine.cycle_s?`},
		{"not engine", "seed: 3\n", "bad.yaml:1: seed: a testbed profile sets engine.* keys only"},
		{"twice", "engine.cycle_s: 1\nengine.cycle_s: 2\n", "bad.yaml:2: engine.cycle_s set twice"},
		{"nested", "engine.cycle_s: [1, 2]\n", "bad.yaml:1: engine.cycle_s: want a single value"},
		{"not a mapping", "- engine.cycle_s\n", "bad.yaml:1: a testbed profile is a mapping"},
		{"missing file", "", "testbed: open"},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := c.profile
			if !strings.HasPrefix(c.name, "unknown name") {
				name = filepath.Join(dir, "bad.yaml")
				if c.name == "missing file" {
					name = filepath.Join(dir, "missing.yaml")
				} else if err := os.WriteFile(name, []byte(c.profile), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			v := NewViper()
			v.Set("testbed", name)
			_, err := Resolve(v)
			want := strings.ReplaceAll(c.want, "BAD", filepath.Join(dir, "bad.yaml"))
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v, want a configuration error containing %q", err, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

// TestTestbedsAreNotSpecs: the profiles' directory is not a paper's spec directory.
func TestTestbedsAreNotSpecs(t *testing.T) {
	for _, id := range SpecIDs() {
		if strings.HasPrefix(id, testbedDir+"/") {
			t.Errorf("spec registry lists testbed profile %s", id)
		}
	}
}

// FuzzParseTestbed: any profile text is accepted with checked settings or refused with one
// configuration error, never a panic.
func FuzzParseTestbed(f *testing.F) {
	f.Add([]byte("engine.cycle_s: 1 # source\nengine.stop_after_queue: tq0\n"))
	f.Add([]byte("engine.preempt_delay_s: -1\n"))
	f.Add([]byte("- a\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := parseTestbed(data, "fuzz.yaml")
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error not a configuration error: %v", err)
			}
			return
		}
		for _, s := range tb.Settings {
			if !strings.HasPrefix(s.Key, "engine.") || s.Line < 1 {
				t.Fatalf("accepted setting %+v", s)
			}
		}
	})
}
