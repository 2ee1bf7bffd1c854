package external

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"
)

// Version is the protocol version this package speaks (PROTOCOL.md).
const Version = 1

// Capabilities a scheduler may declare in its hello.
const (
	// CapPreempt: the scheduler may send preemptions.
	CapPreempt = "preempt"
	// CapMachines: the scheduler places tasks on machines; without it the cluster must be
	// pooled (one placement target).
	CapMachines = "machines"
)

// enc appends JSON to a byte slice. It writes exactly the subset of JSON the protocol uses,
// without reflection, so a call's encoding costs O(its size) and allocates nothing in the steady
// state.
type enc struct{ b []byte }

func (e *enc) raw(s string) { e.b = append(e.b, s...) }
func (e *enc) int(x int64)  { e.b = strconv.AppendInt(e.b, x, 10) }
func (e *enc) key(k string) {
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}
func (e *enc) comma(i int) {
	if i > 0 {
		e.b = append(e.b, ',')
	}
}
func (e *enc) bool(x bool)             { e.b = strconv.AppendBool(e.b, x) }
func (e *enc) intKV(k string, x int64) { e.key(k); e.int(x) }

// float writes a finite float in the shortest form that reads back exactly; NaN and ±Inf,
// which JSON lacks, are written as null.
func (e *enc) float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		e.raw("null")
		return
	}
	e.b = strconv.AppendFloat(e.b, f, 'g', -1, 64)
}

// str writes a JSON string; invalid UTF-8 becomes U+FFFD.
func (e *enc) str(s string) {
	e.b = append(e.b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			e.b = append(e.b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				e.b = append(e.b, '\\', c)
			case '\n':
				e.raw(`\n`)
			case '\t':
				e.raw(`\t`)
			case '\r':
				e.raw(`\r`)
			default:
				e.b = append(e.b, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			e.raw(`\ufffd`)
		} else {
			e.raw(s[i : i+size])
		}
		i += size
	}
	e.b = append(e.b, '"')
}

// vec writes the first n dimensions of v.
func (e *enc) vec(v traces.Vec, n int) {
	e.b = append(e.b, '[')
	for i := 0; i < n; i++ {
		e.comma(i)
		e.int(v[i])
	}
	e.b = append(e.b, ']')
}

// value writes an arbitrary configuration value (the scheduler's args) with encoding/json.
func (e *enc) value(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	e.b = append(e.b, b...)
	return nil
}

// job writes a job's scheduler-visible description (an arrival).
func (e *enc) job(j policies.JobID, info *policies.JobInfo, nd int) {
	e.raw(`{"job":`)
	e.int(int64(j))
	e.raw(`,"id":`)
	e.int(info.ID)
	e.raw(`,"name":`)
	e.str(info.Name)
	e.raw(`,"submit":`)
	e.int(info.Submit)
	e.raw(`,"queue":`)
	e.int(int64(info.Queue))
	e.raw(`,"class":`)
	e.str(info.Class)
	e.raw(`,"priority":`)
	e.int(int64(info.Priority))
	e.raw(`,"weight":`)
	e.float(info.Weight)
	e.raw(`,"deadline":`)
	e.int(info.Deadline)
	e.raw(`,"tasks":`)
	e.int(info.Tasks)
	if f := info.Features; f != (traces.Features{}) {
		e.raw(`,"features":{"user":`)
		e.str(f.User)
		e.raw(`,"job_name":`)
		e.str(f.JobName)
		e.raw(`,"logical_job_name":`)
		e.str(f.LogicalJobName)
		e.raw(`}`)
	}
	if u := info.Utility; u != nil {
		e.raw(`,"utility":{"kind":`)
		e.str(string(u.Kind))
		e.raw(`,"priority":`)
		e.float(u.Priority)
		e.raw(`,"decay":`)
		e.float(u.Decay)
		e.raw(`,"slope":`)
		e.float(u.Slope)
		e.raw(`,"target":`)
		e.int(u.Target)
		e.raw(`}`)
	}
	if p := info.Placement; !p.IsZero() {
		e.raw(`,"placement":{"kind":`)
		e.str(p.Kind)
		e.raw(`,"hard":`)
		e.bool(p.Hard)
		e.raw(`,"slowdown":`)
		e.float(p.Slowdown)
		e.raw(`}`)
	}
	e.raw(`,"stages":[`)
	for si := range info.Stages {
		s := &info.Stages[si]
		e.comma(si)
		e.raw(`{"name":`)
		e.str(s.Name)
		e.raw(`,"tasks":`)
		e.int(int64(s.Tasks))
		e.raw(`,"demand":`)
		e.vec(s.Demand, nd)
		e.raw(`,"estimate":`)
		e.int(s.Estimate)
		e.raw(`,"parents":[`)
		for i, p := range s.Parents {
			e.comma(i)
			e.int(int64(p))
		}
		e.raw(`]}`)
	}
	e.raw(`]}`)
}

// hello is the scheduler's answer to the engine's hello.
type hello struct {
	Type         string   `json:"type"`
	Protocol     *int     `json:"protocol"`
	Name         string   `json:"name"`
	Capabilities []string `json:"capabilities"`
	Message      string   `json:"message"`
}

// reply is the scheduler's answer to a schedule call.
type reply struct {
	Type     string    `json:"type"`
	Call     int64     `json:"call"`
	Starts   [][]int64 `json:"starts"`
	Preempts [][]int64 `json:"preempts"`
	Message  string    `json:"message"`
	// Optional: why each start and preemption was decided, aligned with Starts and Preempts.
	StartReasons   []string `json:"start_reasons,omitempty"`
	PreemptReasons []string `json:"preempt_reasons,omitempty"`
}

// decode parses one message strictly: unknown fields and trailing data are errors.
func decode(line []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("data after the message")
	}
	return nil
}

// toPlan converts a decoded reply's starts and preemptions into p, checking shapes and ranges.
// It does not judge the decisions: the engine validates the plan as it validates any policy's.
func (r *reply) toPlan(p *policies.Plan) error {
	for i, s := range r.Starts {
		if len(s) != 4 {
			return fmt.Errorf("starts[%d]: want [job, stage, machine, count], got %d numbers", i, len(s))
		}
		for k, x := range s {
			if x < math.MinInt32 || x > math.MaxInt32 {
				return fmt.Errorf("starts[%d][%d]: %d is out of range", i, k, x)
			}
		}
		p.Starts = append(p.Starts, policies.Start{Job: policies.JobID(s[0]), Stage: int32(s[1]), Machine: int32(s[2]), Count: int32(s[3])})
	}
	for i, t := range r.Preempts {
		if len(t) != 3 {
			return fmt.Errorf("preempts[%d]: want [job, stage, task], got %d numbers", i, len(t))
		}
		for k, x := range t {
			if x < math.MinInt32 || x > math.MaxInt32 {
				return fmt.Errorf("preempts[%d][%d]: %d is out of range", i, k, x)
			}
		}
		p.Preempts = append(p.Preempts, policies.TaskRef{Job: policies.JobID(t[0]), Stage: int32(t[1]), Task: int32(t[2])})
	}
	return r.reasons(p)
}

// maxReasonBytes bounds one reason a scheduler gives.
const maxReasonBytes = 256

// reasons copies the optional start_reasons and preempt_reasons into p.
func (r *reply) reasons(p *policies.Plan) error {
	if len(r.StartReasons) > len(r.Starts) || len(r.PreemptReasons) > len(r.Preempts) {
		return fmt.Errorf("%d start_reasons for %d starts, %d preempt_reasons for %d preempts: at most one reason per decision",
			len(r.StartReasons), len(r.Starts), len(r.PreemptReasons), len(r.Preempts))
	}
	for _, list := range []struct {
		name string
		in   []string
		out  *[]policies.Reason
	}{{"start_reasons", r.StartReasons, &p.StartReasons}, {"preempt_reasons", r.PreemptReasons, &p.PreemptReasons}} {
		for i, s := range list.in {
			if len(s) > maxReasonBytes {
				return fmt.Errorf("%s[%d]: %d bytes, over the limit of %d", list.name, i, len(s), maxReasonBytes)
			}
			*list.out = append(*list.out, policies.Because(s))
		}
	}
	return nil
}
