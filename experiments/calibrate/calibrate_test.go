package calibrate

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestCalibrateGolden runs the calibration on the committed ccra slice and checks every derived
// parameter against testdata/ccra.golden.json.
func TestCalibrateGolden(t *testing.T) {
	res, err := Run(filepath.Join("testdata", "ccra"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "ccra.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("calibration changed; got\n%s\nwant\n%s\n(go test ./experiments/calibrate -update)", got, want)
	}
}

// TestRefusesValidationRuns: a b1i3 path (BPF Figs. 9-10's runs) is refused before anything is
// read, as the calibration directory, as a listed run, or as a configuration file.
func TestRefusesValidationRuns(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, setup string }{
		{"dir", ""},
		{"run", "runs: [x/b1i3_DRF_BB]\n"},
		{"run upper case", "runs: [B1I3_Strict]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(dir, "ok")
			if c.setup == "" {
				d = filepath.Join(dir, "b1i3_Strict_BB")
			}
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "calibration.yaml"), []byte(c.setup), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Run(d)
			if !errors.Is(err, ErrValidation) {
				t.Fatalf("Run(%s) = %v, want ErrValidation", d, err)
			}
		})
	}
	if _, err := ScanConfigs([]string{"results/b1i3_SP/yarn-site.xml"}); !errors.Is(err, ErrValidation) {
		t.Fatalf("ScanConfigs of a b1i3 path: %v, want ErrValidation", err)
	}
}

// TestLogErrors: a malformed line is one error naming file, line and field; a cut final line
// (a killed logger) is dropped.
func TestLogErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const app = "0, Sat Feb 04 04:10:11 MST 2017, Sat Feb 04 04:10:18 MST 2017, 86634, 94354, Sat Feb 04 04:11:45 MST 2017\n"
	for _, c := range []struct {
		name, text, want string
		read             func(string) error
	}{
		{"usage fields", "04:05:54,root.bursty0,0,0\n04:05:55,root.bursty0,0\n", "usage.csv:2: want 4 comma-separated fields, got 3", readU},
		{"usage time", "4h,root.bursty0,0,0\n", "usage.csv:1: time: want HH:MM:SS", readU},
		{"usage number", "04:05:54,root.bursty0,-1,0\n", "usage.csv:1: want vcores and memory as integers", readU},
		{"usage backwards", "04:05:54,q,0,0\n04:05:50,q,0,0\n", "usage.csv:2: time 04:05:50 goes back", readU},
		{"app date", "0, Feb 4 2017, x, 1, 2, y\n", "apps.csv:1: start: want a date", readA},
		{"app order", "0, Sat Feb 04 04:10:11 MST 2017, Sat Feb 04 04:10:18 MST 2017, 9, 8, Sat Feb 04 04:11:45 MST 2017\n", "apps.csv:1: finish-running 9 ms exceeds", readA},
		{"app ms", strings.Replace(app, "86634", "8e4", 1), "apps.csv:1: finish-running: want milliseconds", readA},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "usage.csv"
			if strings.HasPrefix(c.name, "app") {
				name = "apps.csv"
			}
			err := c.read(write(name, c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	us, err := ReadUsage(write("cut.csv", "04:05:54,root.bursty0,1,1024\r\n04:05:55,root.bu"))
	if err != nil || len(us) != 1 || us[0].MemMB != 1024 || us[0].Second != 4*3600+5*60+54 {
		t.Fatalf("cut final line: %v %+v", err, us)
	}
	as, err := ReadAppTimes(write("a.csv", app))
	if err != nil || len(as) != 1 || as[0].FromStartMS-as[0].FromRunningMS != 7720 {
		t.Fatalf("app line: %v %+v", err, as)
	}
}

func readU(p string) error { _, err := ReadUsage(p); return err }
func readA(p string) error { _, err := ReadAppTimes(p); return err }

// TestDecompose: allocations split uniquely into AM, map and reduce containers.
func TestDecompose(t *testing.T) {
	s, err := LoadSetup(filepath.Join("testdata", "ccra"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v, m int64
		want []int64
		ok   bool
	}{
		{1, 1024, []int64{0, 0}, true},
		{7, 23552, []int64{1, 0}, true},
		{10, 16384, []int64{0, 1}, true},
		{2*6 + 3*9 + 2, 2*22528 + 3*15360 + 2*1024, []int64{2, 3}, true},
		{5, 5000, nil, false},
	} {
		got, ok := decompose(s, c.v, c.m, 4)
		if ok != c.ok || ok && (got[0] != c.want[0] || got[1] != c.want[1]) {
			t.Errorf("decompose(%d, %d) = %v, %v; want %v, %v", c.v, c.m, got, ok, c.want, c.ok)
		}
	}
}

func FuzzReadUsage(f *testing.F) {
	f.Add([]byte("04:05:54,root.bursty0,1,1024\r\n04:05:55,root.batch0,7,23552\n"))
	f.Add([]byte("23:59:59,q,0,0\n00:00:01,q,1,1\n05:5"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "u.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		us, err := ReadUsage(p)
		if err != nil {
			return
		}
		for i := 1; i < len(us); i++ {
			if us[i].Second < us[i-1].Second || us[i].MemMB < 0 {
				t.Fatalf("accepted out-of-order or negative samples: %+v", us)
			}
		}
	})
}

func FuzzReadAppTimes(f *testing.F) {
	f.Add([]byte("0, Sat Feb 04 04:10:11 MST 2017, Sat Feb 04 04:10:18 MST 2017, 86634, 94354, Sat Feb 04 04:11:45 MST 2017\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "a.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		as, err := ReadAppTimes(p)
		if err != nil {
			return
		}
		for _, a := range as {
			if a.FromRunningMS > a.FromStartMS {
				t.Fatalf("accepted finish-running > finish-start: %+v", a)
			}
		}
	})
}

// TestProfileParams: the calibrated keys follow from the measurements (golden numbers above).
func TestProfileParams(t *testing.T) {
	res, err := Run(filepath.Join("testdata", "ccra"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := res.Profile()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"engine.heartbeat_s": 1.0, "engine.containers_per_heartbeat": int64(1), "engine.am": true,
		"engine.am_demand": "0.03125,0.015625", "engine.am_startup_s": 7.72, "engine.am_setup_s": 1.0,
		"engine.am_teardown_s": 6.19, "engine.max_am_share": 0.5, "engine.task_startup_s": 4.27,
		"engine.task_release_s": 0.0, "engine.slowstart": 0.25, "engine.reservations": true,
	}
	if len(ps) != len(want) {
		t.Fatalf("%d params, want %d", len(ps), len(want))
	}
	for _, p := range ps {
		if w, ok := want[p.Key]; !ok || w != p.Value {
			t.Errorf("%s = %v (%T), want %v", p.Key, p.Value, p.Value, w)
		}
		if p.Derivation == "" {
			t.Errorf("%s: no derivation", p.Key)
		}
	}
}

// TestProfileMatchesCalibration: every calibrated setting of the committed ccra-hadoop27 profile
// equals what the calibration derives from the slice (the profile was fixed from it).
func TestProfileMatchesCalibration(t *testing.T) {
	res, err := Run(filepath.Join("testdata", "ccra"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := res.Profile()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "testbeds", "ccra-hadoop27.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var profile map[string]any
	if err := yaml.Unmarshal(data, &profile); err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		got, ok := profile[p.Key]
		if !ok {
			t.Errorf("profile lacks %s (calibrated %v)", p.Key, p.Value)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(p.Value) {
			t.Errorf("profile %s = %v, calibration gives %v (%s)", p.Key, got, p.Value, p.Derivation)
		}
	}
}

func FuzzReadDAGTimes(f *testing.F) {
	f.Add([]byte("0, Sat Feb 04 04:10:20 MST 2017, Sat Feb 04 04:10:20 MST 2017, 79243, 79244, Sat Feb 04 04:11:39 MST 2017\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "d.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := ReadDAGTimes(p)
		if err != nil {
			return
		}
		for _, d := range ds {
			if d.DurationMS < 0 || d.FromRunningMS < 0 {
				t.Fatalf("accepted negative durations: %+v", d)
			}
		}
	})
}
