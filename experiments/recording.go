package experiments

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/schedlab/schedlab/experiments/timeline"
	"github.com/schedlab/schedlab/replay"
	"github.com/schedlab/schedlab/traces"
)

// Recording names what `run --record` may record.
var Recording = []string{"tasks", "trace"}

// recordingKeys adds metrics.tasks and metrics.trace to the metrics map when set: recording
// changes no result, so a configuration without it hashes as before.
func recordingKeys(m map[string]any, c MetricsConfig) map[string]any {
	if c.Tasks {
		m["tasks"] = true
	}
	if c.Trace {
		m["trace"] = true
	}
	return m
}

// spool is an unnamed temporary file a recording streams into during the run: unlinked as soon
// as it is created (where the system allows), so a killed run leaves nothing behind, and copied
// into the output directory when the outputs are written.
type spool struct {
	f    *os.File
	size int64
}

func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", ".schedlab-rec-*")
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	if runtime.GOOS != "windows" {
		os.Remove(f.Name())
	}
	return &spool{f: f}, nil
}

func (s *spool) Write(b []byte) (int, error) {
	n, err := s.f.Write(b)
	s.size += int64(n)
	return n, err
}

// copyTo writes the spooled bytes to w (any number of times).
func (s *spool) copyTo(w io.Writer) error {
	_, err := io.Copy(w, io.NewSectionReader(s.f, 0, s.size))
	return err
}

func (s *spool) close() {
	name := s.f.Name()
	s.f.Close()
	if runtime.GOOS == "windows" {
		os.Remove(name)
	}
}

// recorder turns the engine's task attempts into tasks.parquet rows and trace events, streamed
// to spools (replay.Recorder).
type recorder struct {
	w      *traces.Workload
	dims   int
	row    timeline.Row
	tasks  *timeline.Writer
	trace  *timeline.Trace
	tSpool *spool
	jSpool *spool
	free   []float64
}

// newRecorder starts the recordings the configuration asks for; nil when none.
func newRecorder(c Config, w *traces.Workload) (*recorder, error) {
	if !c.Metrics.Tasks && !c.Metrics.Trace {
		return nil, nil
	}
	meta := timelineMeta(c, w)
	r := &recorder{w: w, dims: len(meta.Dims), free: make([]float64, len(meta.Dims))}
	if c.Metrics.Tasks {
		s, err := newSpool()
		if err != nil {
			return nil, err
		}
		r.tSpool = s
		if r.tasks, err = timeline.NewWriter(s, meta); err != nil {
			r.close()
			return nil, fmt.Errorf("recording: %w", err)
		}
	}
	if c.Metrics.Trace {
		s, err := newSpool()
		if err != nil {
			r.close()
			return nil, err
		}
		r.jSpool = s
		r.trace = timeline.NewTrace(s, meta)
	}
	return r, nil
}

func timelineMeta(c Config, w *traces.Workload) timeline.Meta {
	dims := w.Dims
	if len(dims) > traces.MaxDims {
		dims = dims[:traces.MaxDims]
	}
	m := timeline.Meta{Dims: dims, Pooled: c.Workload.Pooled || w.Cluster.Pooled}
	total := w.Cluster.Total()
	for d := range dims {
		m.Capacity = append(m.Capacity, total.Float(d))
	}
	if m.Pooled {
		m.Machines = []string{"pool"}
	} else {
		for _, mc := range w.Cluster.Machines {
			m.Machines = append(m.Machines, mc.Name)
		}
	}
	seen := map[string]bool{}
	for i := range w.Jobs {
		if q := w.Jobs[i].Queue; !seen[q] {
			seen[q] = true
			m.Queues = append(m.Queues, q)
		}
	}
	return m
}

// Attempt implements replay.Recorder.
func (r *recorder) Attempt(a *replay.Attempt) {
	j := &r.w.Jobs[a.Job]
	row := &r.row
	*row = timeline.Row{
		Job: a.Job, JobID: j.ID, Queue: j.Queue, Class: j.Class, Stage: a.Stage, Task: a.Task, Machine: a.Machine,
		Ready: a.Ready, Start: a.Start, End: a.End, Outcome: a.Outcome.String(), Slowed: a.Slowed, WorkLost: a.WorkLost,
		Reason: a.Why.String(), EndWhy: a.EndWhy.String(),
	}
	d := j.Stages[a.Stage].Demand
	for i := 0; i < r.dims; i++ {
		row.Demand[i] = d.Float(i)
	}
	if r.tasks != nil {
		r.tasks.Write(row)
	}
	if r.trace != nil {
		r.trace.Attempt(row)
	}
}

// engineRecorder is what the engine is given: the recorder, with the scheduling calls only when a
// trace wants them (computing them costs).
func (r *recorder) engineRecorder() replay.Recorder {
	if r.trace != nil {
		return callRecorder{r}
	}
	return r
}

type callRecorder struct{ *recorder }

// Started implements replay.StartRecorder: the trace gives the attempt its slot.
func (r callRecorder) Started(a *replay.Attempt) {
	r.row = timeline.Row{Job: a.Job, Queue: r.w.Jobs[a.Job].Queue, Stage: a.Stage, Task: a.Task, Machine: a.Machine, Start: a.Start}
	r.trace.Begin(&r.row)
}

// Call implements replay.CallRecorder.
func (r callRecorder) Call(c *replay.CallInfo) {
	for i := range r.free {
		r.free[i] = c.Free.Float(i)
	}
	r.trace.Call(c.T, c.Starts, c.Preempts, r.free, c.Pending, c.Running)
}

// finish completes the files after the run.
func (r *recorder) finish() error {
	var errs []error
	if r.tasks != nil {
		errs = append(errs, r.tasks.Close())
	}
	if r.trace != nil {
		errs = append(errs, r.trace.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	return nil
}

func (r *recorder) close() {
	for _, s := range []*spool{r.tSpool, r.jSpool} {
		if s != nil {
			s.close()
		}
	}
}

// release closes the recorder's spools; a nil recorder has none.
func (r *recorder) release() {
	if r != nil {
		r.close()
	}
}

// recordedFiles names the recordings the outcome holds.
func (o *Outcome) recordedFiles() []string {
	var files []string
	if o.rec != nil && o.rec.tSpool != nil {
		files = append(files, timeline.TasksFile)
	}
	if o.rec != nil && o.rec.jSpool != nil {
		files = append(files, timeline.TraceFile)
	}
	return files
}

// writeRecordings copies the recordings into dir, each atomically.
func (o *Outcome) writeRecordings(dir string) error {
	if o.rec == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		s    *spool
	}{{timeline.TasksFile, o.rec.tSpool}, {timeline.TraceFile, o.rec.jSpool}} {
		if f.s == nil {
			continue
		}
		if err := atomicWrite(filepath.Join(dir, f.name), f.s.copyTo); err != nil {
			return err
		}
	}
	return nil
}

// Close releases what the outcome holds outside memory (the recordings' temporary files); the
// outcome writes no recordings afterwards.
func (o *Outcome) Close() {
	if o.rec != nil {
		o.rec.close()
		o.rec = nil
	}
}
