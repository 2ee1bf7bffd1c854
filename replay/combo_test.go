package replay

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// attemptLedger is a StartRecorder that checks each task attempt is started once and ended once.
type attemptLedger struct {
	running  map[[3]int32]bool
	outcomes map[AttemptOutcome]int
	errs     []string
}

func newAttemptLedger() *attemptLedger {
	return &attemptLedger{running: map[[3]int32]bool{}, outcomes: map[AttemptOutcome]int{}}
}

func (l *attemptLedger) Started(a *Attempt) {
	k := [3]int32{a.Job, a.Stage, a.Task}
	if l.running[k] {
		l.errs = append(l.errs, fmt.Sprintf("task %v started at %d while its previous attempt has not ended", k, a.Start))
	}
	l.running[k] = true
}

func (l *attemptLedger) Attempt(a *Attempt) {
	k := [3]int32{a.Job, a.Stage, a.Task}
	if !l.running[k] {
		l.errs = append(l.errs, fmt.Sprintf("task %v ended (%v) at %d without a start", k, a.Outcome, a.End))
	}
	if a.End < a.Start || a.Start < a.Ready {
		l.errs = append(l.errs, fmt.Sprintf("task %v: ready %d, start %d, end %d out of order", k, a.Ready, a.Start, a.End))
	}
	delete(l.running, k)
	l.outcomes[a.Outcome]++
}

// TestScenariosRecordConsistent runs every scenario script with recording on: every attempt
// started ends exactly once, and the recorded outcomes match the event log (a "kill" line per
// killed attempt, a "preempt" line per preempted one, a "finish" line per finished one). The
// combinations (cluster events, YARN, holds, decision time) must not change what is recorded.
func TestScenariosRecordConsistent(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario scripts: %v", err)
	}
	defer func() { scenarioRecorder = nil }()
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			l := newAttemptLedger()
			scenarioRecorder = l
			out, err := runScenario(file)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out, "error: ") {
				return // the engine refused the scenario: nothing ran to record
			}
			for _, e := range l.errs {
				t.Error(e)
			}
			if len(l.running) > 0 {
				t.Errorf("%d attempts started and never ended: %v", len(l.running), l.running)
			}
			for _, c := range []struct {
				kind string
				o    AttemptOutcome
			}{{"kill", AttemptKilled}, {"preempt", AttemptPreempted}, {"finish", AttemptFinished}} {
				if n := countLogKind(out, c.kind); n != l.outcomes[c.o] {
					t.Errorf("%d %s lines in the event log, %d attempts recorded %v", n, c.kind, l.outcomes[c.o], c.o)
				}
			}
		})
	}
}

// countLogKind counts event-log lines of the kind (the second field of "t=… kind …").
func countLogKind(out, kind string) int {
	n := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.HasPrefix(f[0], "t=") && f[1] == kind {
			n++
		}
	}
	return n
}
