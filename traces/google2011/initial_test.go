package google2011

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/schedlab/schedlab/traces"
	"github.com/schedlab/schedlab/traces/canonical"
)

// The crafted window (testdata/initial) starts at t=2000 s with tasks already running: A
// (UPDATE_RUNNING, finishes at 2600 s), B (FINISH at 2100 s), E (EVICT at 2400 s, then
// rescheduled: a workload task too); C is killed while pending (no hold). F runs through the
// whole window without an event in it, found only by --state-from (where G started and ended).
// H is scheduled in the window, evicted, and scheduled again: its first run is a fault.
func initialSource() Source {
	dir := filepath.Join("testdata", "initial", "window")
	return Source{JobEvents: []string{filepath.Join(dir, "job_events")}, TaskEvents: []string{filepath.Join(dir, "task_events")}}
}

func TestInitialHolds(t *testing.T) {
	s := traces.Second
	// The mix is scaled to the machines seen, in ID order (with --state-from: IDs 1, 3, 4, 5, 6
	// are machines 0..4).
	hold := func(m int32, start, end traces.Time, cpu, mem float64) traces.Hold {
		return traces.Hold{Machine: m, Start: start * s, End: end * s, Demand: traces.VecOf(cpu, mem)}
	}
	// Without --state-from machine 3 is not seen: IDs 1, 4, 5, 6 are machines 0..3.
	window := []traces.Hold{hold(0, 2000, 2600, 0.1, 0.05), hold(1, 2000, 2100, 0.25, 0.1), hold(3, 2000, 2400, 0.15, 0.1)}
	withSF := []traces.Hold{hold(0, 2000, 2600, 0.1, 0.05), hold(2, 2000, 2100, 0.25, 0.1), hold(4, 2000, 2400, 0.15, 0.1), hold(1, 2000, 2800, 0.2, 0.1)}
	for _, tc := range []struct {
		name      string
		stateFrom []string
		want      []traces.Hold
		fromSF    int64
		warn      string
	}{
		{"window only", nil, window, 0, "tasks running through it without an event in it are missing"},
		{"state from", []string{filepath.Join("testdata", "initial", "state_from", "task_events")},
			withSF, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, st, err := WorkloadStats(initialSource(), Options{StateFrom: tc.stateFrom})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(w.Initial, tc.want) {
				t.Errorf("initial holds:\n got %v\nwant %v", w.Initial, tc.want)
			}
			if st.Initial.Tasks != int64(len(tc.want)) || st.Initial.FromStateFrom != tc.fromSF || st.Initial.Start != 2000*s {
				t.Errorf("stats %+v", st.Initial)
			}
			if (tc.warn == "") != (st.StartStateWarning == "") || !strings.Contains(st.StartStateWarning, tc.warn) {
				t.Errorf("warning %q, want one containing %q", st.StartStateWarning, tc.warn)
			}
			if tc.warn != "" && !strings.Contains(w.Source, "start state partly unknown") {
				t.Errorf("source %q does not carry the warning", w.Source)
			}
			// D, H and E's second run are the workload's tasks; A, B, C and F are not.
			if got := w.Tasks(); got != 3 {
				t.Errorf("%d workload tasks, want 3", got)
			}
			// H's first run, evicted at 2350 s, is the one fault (E's eviction ends its run from
			// before the window, a hold, not a workload task's run).
			wantFaults := []traces.TaskFault{{T: 2350 * s, Job: 107, Stage: 0, Task: 0, Kind: traces.TaskEvicted}}
			if !reflect.DeepEqual(w.Faults, wantFaults) || st.Faults != 1 {
				t.Errorf("faults %v (stats %d), want %v", w.Faults, st.Faults, wantFaults)
			}
			if err := w.Validate(); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			st.Fprint(&b)
			if !strings.Contains(b.String(), "initial: ") {
				t.Errorf("Fprint has no initial line:\n%s", b.String())
			}
			// The holds survive the canonical file, in both formats.
			for _, ext := range []string{"parquet", "arrow"} {
				path := filepath.Join(t.TempDir(), "w."+ext)
				if _, err := Import(initialSource(), Options{StateFrom: tc.stateFrom}, path); err != nil {
					t.Fatal(err)
				}
				back, err := canonical.Read(path)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(back.Initial, tc.want) || !reflect.DeepEqual(back.Faults, w.Faults) {
					t.Errorf("%s: read back %v", ext, back.Initial)
				}
			}
		})
	}
}

// --state-from parts that reach into the window are an options error.
func TestStateFromOverlapsWindow(t *testing.T) {
	sf := writeFile(t, t.TempDir(), "task_events_sf.csv", []byte("0,,1,0,,0,u,1,5,0.1,0.1,0,0\n2100000000,,1,0,3,1,u,1,5,0.1,0.1,0,0\n"))
	_, _, err := WorkloadStats(initialSource(), Options{StateFrom: []string{sf}})
	if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "past the window's start") {
		t.Fatalf("error %v", err)
	}
}

// An input from the trace's beginning has no running state to recover and no warning.
func TestInitialFromStart(t *testing.T) {
	_, st, err := WorkloadStats(miniSource(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Initial.Tasks != 0 || st.StartStateWarning != "" {
		t.Errorf("initial %+v, warning %q", st.Initial, st.StartStateWarning)
	}
}

// FuzzStateFrom feeds arbitrary bytes as the --state-from task_events beside the crafted window:
// the import must end in a *ParseError naming the state-from file (or an options error when it
// reaches past the window's start), or give a valid workload
// whose holds all lie in the window.
func FuzzStateFrom(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "initial", "state_from", "task_events", "part-00000.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("5,,1,0,77,1,u,3,9,,,,\n6,,1,0,77,8,u,3,9,0.5,0.5,,\n"))
	f.Add([]byte("5,,1,0,77,1,u,3,9,1e308,,,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		sf := writeFile(t, dir, "task_events_sf.csv", data)
		w, st, err := WorkloadStats(initialSource(), Options{StateFrom: []string{sf}})
		if errors.Is(err, ErrOptions) {
			return // state-from past the window's start
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != sf || pe.Msg == "" {
				t.Fatalf("error without location: %v (%T)", err, err)
			}
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("invalid workload: %v", err)
		}
		for _, h := range w.Initial {
			if h.Start != st.Initial.Start || h.End > st.Tasks.End {
				t.Fatalf("hold %v outside the window [%d, %d]", h, st.Initial.Start, st.Tasks.End)
			}
		}
	})
}
