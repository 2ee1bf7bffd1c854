package experiments

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// busyPolicy is a policy that says it is solving a MILP.
type busyPolicy struct{ policies.Policy }

func (busyPolicy) Activity() string { return "solving a 12,000-variable MILP" }

// TestProgressLine: the line reads the wrapper's counters and the policy's activity; before the
// replay it names the phase.
func TestProgressLine(t *testing.T) {
	r := &runProgress{}
	r.setPhase("loading workload tpch-fb")
	if got, want := r.line(61*time.Second), "schedlab: loading workload tpch-fb; 1m1s elapsed"; got != want {
		t.Errorf("before the replay: %q, want %q", got, want)
	}
	tp := r.track(busyPolicy{}).(*trackedPolicy)
	tp.now.Store(int64(1234 * traces.Second))
	tp.calls.Store(56)
	if got, want := r.line(90*time.Second), "schedlab: t=1,234 s simulated, 56 scheduling calls, solving a 12,000-variable MILP; 1m30s elapsed"; got != want {
		t.Errorf("during the replay: %q, want %q", got, want)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -12000: "-12,000"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the progress goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRunPrintsProgressAndKeepsResults: a run with progress lines every millisecond prints them
// (simulated time and scheduling calls) and gives the same results as one without.
func TestRunPrintsProgressAndKeepsResults(t *testing.T) {
	c := resolve(t, "engine.horizon_s=20000")
	quiet, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	c.Progress, c.ProgressEvery = &out, time.Millisecond
	loud, err := Run(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), " s simulated, ") || !strings.Contains(out.String(), " scheduling calls; ") {
		t.Errorf("no progress line in %q", out.String())
	}
	if !reflect.DeepEqual(quiet.Summary, loud.Summary) || quiet.Engine.Events != loud.Engine.Events || len(quiet.Result.Jobs) != len(loud.Result.Jobs) {
		t.Errorf("progress changed the result: %+v vs %+v", quiet.Summary, loud.Summary)
	}
	for i := range quiet.Result.Jobs {
		if quiet.Result.Jobs[i].Finish != loud.Result.Jobs[i].Finish {
			t.Fatalf("job %d finished at %d with progress, %d without", i, loud.Result.Jobs[i].Finish, quiet.Result.Jobs[i].Finish)
		}
	}
}
