package external

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/schedlab/schedlab/policies"
	"github.com/schedlab/schedlab/traces"

	"github.com/schedlab/schedlab/policies/external/internal/wall"
)

// Policy is a scheduler outside schedlab, reached over the protocol of PROTOCOL.md. It starts
// (or connects to) the scheduler at the first scheduling call and ends it when the run ends
// (Report or Close).
type Policy struct {
	s     *settings
	c     *conn
	tr    tracker
	e     enc
	call  int64
	err   error // the first failure; every later call returns it
	ended bool

	// From the scheduler's hello.
	name string
	caps []string
	pre  bool

	// Per call: simulated time, wall time (ns), bytes sent and received.
	simT  []int64
	wall  []int64
	out   []int64
	in    []int64
	reply reply
}

var (
	_ policies.Policy   = (*Policy)(nil)
	_ policies.Reporter = (*Policy)(nil)
	_ io.Closer         = (*Policy)(nil)
)

// New builds an external policy from policy.params (see PROTOCOL.md and README.md). It checks
// the parameters only; the scheduler starts at the first scheduling call.
func New(o policies.Options) (policies.Policy, error) {
	s, err := parse(o)
	if err != nil {
		return nil, err
	}
	return &Policy{s: s}, nil
}

// Name returns Name.
func (p *Policy) Name() string { return Name }

// Schedule sends the changes since the previous call and appends the scheduler's plan to plan.
func (p *Policy) Schedule(v policies.View, plan *policies.Plan) error {
	if p.err != nil {
		return p.err
	}
	if p.ended {
		return errors.New("external: the scheduler was already ended")
	}
	if p.c == nil {
		if err := p.open(v); err != nil {
			p.err = err
			return err
		}
	}
	p.call++
	p.e.b = p.e.b[:0]
	p.tr.encodeCall(&p.e, v, p.call)
	begin := wall.Now()
	if err := p.c.send(p.e.b); err != nil {
		return p.fail(fmt.Sprintf("could not take call %d", p.call), err)
	}
	line, err := p.c.receive(p.s.timeout)
	took := wall.Since(begin)
	if err != nil {
		return p.fail(fmt.Sprintf("did not answer call %d", p.call), err)
	}
	p.simT = append(p.simT, v.Now())
	p.wall = append(p.wall, took.Nanoseconds())
	p.out = append(p.out, int64(len(p.e.b)))
	p.in = append(p.in, int64(len(line)))
	r := &p.reply
	if !fastPlan(line, r) {
		*r = reply{}
		if err := decode(line, r); err != nil {
			return p.fail(fmt.Sprintf("answered call %d with garbage (%s)", p.call, excerpt(line)), err)
		}
	}
	switch {
	case r.Type == "error":
		return p.fail(fmt.Sprintf("gave up at call %d", p.call), errors.New(r.Message))
	case r.Type != "plan":
		return p.fail(fmt.Sprintf("answered call %d with a message of type %q", p.call, r.Type), errors.New(`want type "plan"`))
	case r.Call != p.call:
		return p.fail(fmt.Sprintf("answered call %d with the plan of call %d", p.call, r.Call), errors.New("out of step"))
	case len(r.Preempts) > 0 && !p.pre:
		return p.fail(fmt.Sprintf("preempted at call %d", p.call), fmt.Errorf("its hello did not declare the %q capability", CapPreempt))
	}
	if err := r.toPlan(plan); err != nil {
		return p.fail(fmt.Sprintf("sent a malformed plan at call %d", p.call), err)
	}
	p.tr.planned(plan)
	return nil
}

// open starts or connects to the scheduler and exchanges hellos.
func (p *Policy) open(v policies.View) error {
	if err := p.s.checkScript(); err != nil {
		return err
	}
	var err error
	if p.s.socket != "" {
		p.c, err = dialSocket(p.s.socket, p.s.connectTimeout)
	} else {
		p.c, err = startChild(p.s.command)
	}
	if err != nil {
		return err
	}
	p.e.b = p.e.b[:0]
	if err := p.encodeHello(v); err != nil {
		p.c.kill()
		return fmt.Errorf("policy.params.%s: %v", ParamArgs, err)
	}
	if err := p.c.send(p.e.b); err != nil {
		return p.fail("could not take the hello", err)
	}
	wait := p.s.timeout
	if p.s.command != nil {
		wait = max(wait, p.s.connectTimeout) // a child may take a while to start (an interpreter, imports)
	}
	line, err := p.c.receive(wait)
	if err != nil {
		return p.fail("did not answer the hello", err)
	}
	var h hello
	if err := decode(line, &h); err != nil {
		return p.fail(fmt.Sprintf("answered the hello with garbage (%s)", excerpt(line)), err)
	}
	switch {
	case h.Type == "error":
		return p.fail("refused the hello", errors.New(h.Message))
	case h.Type != "hello":
		return p.fail(fmt.Sprintf("answered the hello with a message of type %q", h.Type), errors.New(`want type "hello"`))
	case h.Protocol == nil:
		return p.fail("answered the hello without a protocol version", fmt.Errorf("this schedlab speaks protocol %d", Version))
	case *h.Protocol != Version:
		return p.fail(fmt.Sprintf("speaks protocol version %d", *h.Protocol), fmt.Errorf("this schedlab speaks protocol %d", Version))
	}
	p.name, p.caps = h.Name, h.Capabilities
	p.pre = slices.Contains(h.Capabilities, CapPreempt)
	if v.NumMachines() > 1 && !slices.Contains(h.Capabilities, CapMachines) {
		return p.fail("cannot place tasks on machines", fmt.Errorf("its hello does not declare the %q capability and the cluster has %d machines (set workload.pooled: true)", CapMachines, v.NumMachines()))
	}
	return nil
}

func (p *Policy) encodeHello(v policies.View) error {
	e := &p.e
	e.raw(`{"type":"hello","protocol":`)
	e.int(Version)
	e.raw(`,"dims":[`)
	for i, d := range v.Dims() {
		e.comma(i)
		e.str(d)
	}
	e.raw(`],"unit":`)
	e.int(traces.Unit)
	e.raw(`,"oracle":`)
	e.bool(v.Oracle())
	var cycle, delay traces.Time
	if tm, ok := v.(policies.Timing); ok {
		cycle, delay = tm.SchedulingCycle(), tm.PreemptionDelay()
	}
	e.raw(`,"cycle":`)
	e.int(cycle)
	e.raw(`,"preempt_delay":`)
	e.int(delay)
	e.raw(`,"machines":[`)
	nd := len(v.Dims())
	for m := 0; m < v.NumMachines(); m++ {
		mm := v.Machine(m)
		e.comma(m)
		e.raw(`{"name":`)
		e.str(mm.Name)
		e.raw(`,"rack":`)
		e.str(mm.Rack)
		e.raw(`,"gpu":`)
		e.bool(mm.GPU)
		e.raw(`,"platform":`)
		e.str(mm.Platform)
		e.raw(`,"capacity":`)
		e.vec(mm.Capacity, nd)
		e.raw(`}`)
	}
	o := p.s.options
	level := o.Level
	if level == "" {
		level = "job"
	}
	e.raw(`],"options":{"level":`)
	e.str(level)
	e.raw(`,"backfill":`)
	e.bool(o.Backfill)
	e.raw(`,"class_order":[`)
	for i, c := range o.ClassOrder {
		e.comma(i)
		e.str(c)
	}
	e.raw(`],"seed":`)
	e.int(int64(o.Seed))
	e.raw(`,"args":`)
	args := p.s.args
	if args == nil {
		args = map[string]any{}
	}
	if err := e.value(args); err != nil {
		return err
	}
	e.raw("}}\n")
	return nil
}

// fail kills the scheduler and returns (and keeps) one error line saying what went wrong, how
// the scheduler ended and the last line it wrote to stderr.
func (p *Policy) fail(what string, cause error) error {
	var why string
	wait := 50 * time.Millisecond // a child that is still running is killed below
	switch {
	case errors.Is(cause, os.ErrDeadlineExceeded):
		why = fmt.Sprintf("no answer within %s (policy.params.%s)", p.s.timeout, ParamTimeout)
	case errors.Is(cause, io.EOF):
		why = "its output ended"
		wait = 2 * time.Second // it closed its output: it is exiting, let it say how
	case errors.Is(cause, syscall.EPIPE):
		why = "it no longer reads its input"
		wait = 2 * time.Second
	default:
		why = oneLine(cause.Error())
	}
	status, exited := p.c.exitStatus(wait)
	p.c.kill()
	msg := fmt.Sprintf("external: %s %s: %s", p.c.what, what, why)
	if exited {
		msg += "; it " + status
	}
	p.err = errors.New(msg + p.c.lastStderr())
	p.ended = true
	return p.err
}

// NoteFailure adds the scheduler's last stderr line to an error that ended the run outside the
// policy (the engine rejected its plan), after ending the scheduler. Errors of the policy's own
// already quote it.
func (p *Policy) NoteFailure(err error) error {
	if p.c == nil || p.err != nil {
		return err
	}
	p.Close()
	return fmt.Errorf("%w (%s%s)", err, p.c.what, p.c.lastStderr())
}

// Close ends the scheduler: it sends the end message, closes the scheduler's input, gives it a
// moment to exit and kills its process group. It is idempotent and safe after a failure.
func (p *Policy) Close() error {
	if p.c == nil || p.ended {
		if p.c != nil {
			p.c.kill()
		}
		p.ended = true
		return nil
	}
	p.ended = true
	p.e.b = append(p.e.b[:0], `{"type":"end","calls":`...)
	p.e.int(p.call)
	p.e.raw("}\n")
	p.c.send(p.e.b) // a scheduler that is gone cannot be told
	p.c.close(time.Second)
	return nil
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

// excerpt quotes the start of a bad message.
func excerpt(line []byte) string {
	s := strings.TrimRight(string(line), "\r\n")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return fmt.Sprintf("%q", s)
}
