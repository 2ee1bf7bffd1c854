package tpcdag

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// Queue types.
const (
	QueueBatch = "batch" // a throughput (TQ) queue: a fair-share weight, no guarantee
	QueueLQ    = "lq"    // a latency-sensitive (LQ) queue with bursts / a guaranteed service curve
)

// Queue is one queue of a BoPF queue_input*.txt file.
//
// Two generations of the format exist (lines starting with "#" are comments and separate
// records; blank lines are ignored):
//
// Old (the files in the 2017-01-26 BoPF inputs):
//
//	<name> [<weight> [<startTime_s> [<period_s>]]]
//	<k>
//	k lines: <duration_s> <rate> [<rate> ...]
//
// The queue is an LQ when k > 0 (it has a guaranteed service curve, as IRFsim's reader decides)
// and batch otherwise. The earliest files give only the name; IRFsim's 2016 reader read a third
// header field as a DRF weight, while the BoPF generator that wrote the four-field root_queue_*
// files meant weight, start time and period; this reader follows the latter.
//
// New (IRFsim readQueue at commit 28260620):
//
//	<name> <type: 0 = batch, 1 = LQ> <startTime_s>
//	batch: one line <weight>
//	LQ:    <numBursts> then numBursts lines <alphaDuration_s> <period_s> <alpha_cpu> <alpha_mem>
//
// A header of exactly three fields whose second field is the integer token "0" or "1" is read as
// the new generation; anything else as the old one.
type Queue struct {
	Name   string
	Type   string      // QueueBatch or QueueLQ
	Weight float64     // fair-share weight; 1 when the file gives none
	Start  traces.Time // when the queue starts submitting jobs; 0 when absent
	Period traces.Time // old generation: time between LQ bursts (4th header field); 0 when absent
	Bursts []Burst     // the LQ's burst / service-curve segments, in file order; nil for batch queues
	Line   int         // line of the queue's header, for diagnostics
}

// Burst is one segment of an LQ queue's demand or service curve.
type Burst struct {
	// Duration is how long the segment lasts: the burst length alphaDuration (new generation)
	// or the length of a service-curve segment (old generation).
	Duration traces.Time
	// Period is the time between bursts (new generation only; see Queue.Period for the old one).
	Period traces.Time
	// Rates are the old generation's values after the duration: the guaranteed service rate
	// (slope) of the segment; the BoPF generator wrote it twice.
	Rates []float64
	// Demand is the new generation's per-burst demand alpha (cpu, mem) as fractions of the
	// cluster's capacity.
	Demand []float64
}

// ReadQueues reads a BoPF queue_input*.txt file (either generation, see Queue).
func ReadQueues(path string) ([]Queue, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tpcdag: %w", err)
	}
	defer f.Close()
	return ParseQueues(f, path)
}

// ParseQueues reads a BoPF queue description from r; name is used in error messages.
func ParseQueues(r io.Reader, name string) ([]Queue, error) {
	p := &parser{lines: newLineReader(r, name), file: name}
	var qs []Queue
	seen := map[string]int{}
	for {
		line, ok := p.lines.next()
		if !ok {
			break
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		q, err := p.queue(line)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[q.Name]; dup {
			return nil, p.errf(q.Line, "name", "duplicate queue %q (first on line %d)", q.Name, prev)
		}
		seen[q.Name] = q.Line
		qs = append(qs, q)
	}
	if p.lines.err != nil {
		return nil, p.lines.err
	}
	if len(qs) == 0 {
		return nil, p.errf(max(p.lines.n, 1), "file", "no queues found (empty file or only comments)")
	}
	return qs, nil
}

func (p *parser) queue(header string) (Queue, error) {
	hl := p.lines.n
	f := strings.Fields(header)
	q := Queue{Name: f[0], Weight: 1, Line: hl}
	if len(f) > 4 {
		return q, p.errf(hl, "queue", "want \"name [weight [start [period]]]\" or \"name type start\", got %d fields", len(f))
	}
	if len(f) == 3 && (f[1] == "0" || f[1] == "1") {
		return p.newQueue(q, f)
	}
	var err error
	if len(f) > 1 {
		if q.Weight, err = weight(f[1]); err != nil {
			return q, p.errf(hl, "weight", "%v", err)
		}
	}
	if len(f) > 2 {
		if q.Start, err = seconds(f[2]); err != nil {
			return q, p.errf(hl, "startTime", "%v", err)
		}
	}
	if len(f) > 3 {
		if q.Period, err = seconds(f[3]); err != nil {
			return q, p.errf(hl, "period", "%v", err)
		}
	}
	k, kl, err := p.countLine(q.Name, "numSegments")
	if err != nil {
		return q, err
	}
	q.Type = QueueBatch
	if k > 0 {
		q.Type = QueueLQ
	}
	for i := range k {
		line, ok := p.lines.next()
		if !ok || strings.HasPrefix(line, "#") {
			return q, p.short(ok, "segment", fmt.Sprintf("%d segment lines for queue %q (count on line %d), got %d", k, q.Name, kl, i))
		}
		ln := p.lines.n
		sf := strings.Fields(line)
		if len(sf) < 2 {
			return q, p.errf(ln, "segment", "want \"duration rate [rate ...]\" (at least 2 fields), got %d", len(sf))
		}
		var b Burst
		if b.Duration, err = seconds(sf[0]); err != nil {
			return q, p.errf(ln, "duration", "%v", err)
		}
		for j, tok := range sf[1:] {
			x, err := nonNegative(tok)
			if err != nil {
				return q, p.errf(ln, fmt.Sprintf("rate%d", j+1), "%v", err)
			}
			b.Rates = append(b.Rates, x)
		}
		q.Bursts = append(q.Bursts, b)
	}
	return q, nil
}

// newQueue parses the body of a new-generation queue record.
func (p *parser) newQueue(q Queue, f []string) (Queue, error) {
	hl := q.Line
	var err error
	if q.Start, err = seconds(f[2]); err != nil {
		return q, p.errf(hl, "startTime", "%v", err)
	}
	if f[1] == "0" {
		q.Type = QueueBatch
		line, ok := p.lines.next()
		if !ok || strings.HasPrefix(line, "#") {
			return q, p.short(ok, "weight", fmt.Sprintf("the weight line of batch queue %q (header on line %d)", q.Name, hl))
		}
		wf := strings.Fields(line)
		if len(wf) != 1 {
			return q, p.errf(p.lines.n, "weight", "want a single weight, got %d fields", len(wf))
		}
		if q.Weight, err = weight(wf[0]); err != nil {
			return q, p.errf(p.lines.n, "weight", "%v", err)
		}
		return q, nil
	}
	q.Type = QueueLQ
	k, kl, err := p.countLine(q.Name, "numBursts")
	if err != nil {
		return q, err
	}
	for i := range k {
		line, ok := p.lines.next()
		if !ok || strings.HasPrefix(line, "#") {
			return q, p.short(ok, "burst", fmt.Sprintf("%d burst lines for queue %q (count on line %d), got %d", k, q.Name, kl, i))
		}
		ln := p.lines.n
		bf := strings.Fields(line)
		if len(bf) != 4 {
			return q, p.errf(ln, "burst", "want \"alphaDuration period alpha_cpu alpha_mem\" (4 fields), got %d", len(bf))
		}
		var b Burst
		if b.Duration, err = seconds(bf[0]); err != nil {
			return q, p.errf(ln, "alphaDuration", "%v", err)
		}
		if b.Period, err = seconds(bf[1]); err != nil {
			return q, p.errf(ln, "period", "%v", err)
		}
		for j, tok := range bf[2:] {
			x, err := nonNegative(tok)
			if err == nil && x > 1 {
				err = fmt.Errorf("%v is more than the whole cluster (1)", x)
			}
			if err != nil {
				return q, p.errf(ln, []string{"alpha_cpu", "alpha_mem"}[j], "%v", err)
			}
			b.Demand = append(b.Demand, x)
		}
		q.Bursts = append(q.Bursts, b)
	}
	return q, nil
}

// countLine reads a line holding a single count.
func (p *parser) countLine(queue, field string) (int64, int, error) {
	line, ok := p.lines.next()
	if !ok || strings.HasPrefix(line, "#") {
		return 0, 0, p.short(ok, field, fmt.Sprintf("the %s line of queue %q", field, queue))
	}
	cf := strings.Fields(line)
	if len(cf) != 1 {
		return 0, 0, p.errf(p.lines.n, field, "want a single count, got %d fields", len(cf))
	}
	k, err := parseCount(cf[0], 1<<20)
	if err != nil {
		return 0, 0, p.errf(p.lines.n, field, "%v", err)
	}
	return k, p.lines.n, nil
}

// short reports a record cut short by the end of the file (ok == false) or by a comment line.
func (p *parser) short(ok bool, field, want string) error {
	if !ok {
		return p.eof(field, want)
	}
	return p.errf(p.lines.n, field, "comment line: expected %s", want)
}

func weight(tok string) (float64, error) {
	x, err := nonNegative(tok)
	if err == nil && x > 1e9 {
		err = fmt.Errorf("weight %v larger than 1e9", x)
	}
	return x, err
}

func nonNegative(tok string) (float64, error) {
	x, err := strconv.ParseFloat(tok, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("want a number, got %q", tok)
	}
	if x < 0 {
		return 0, fmt.Errorf("negative: %v", x)
	}
	return x, nil
}
