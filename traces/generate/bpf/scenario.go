package bpf

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// lqSchedule returns each LQ's first arrival and period: from LQFirstS and LQPeriodsS when set,
// else FirstBurstS + i × StaggerS and PeriodS.
func (o Options) lqSchedule() (firsts, periods []traces.Time, err error) {
	if o.LQs < 0 || o.LQs > 10_000 {
		return nil, nil, nil // Validate reports it
	}
	fs, err := perLQ("LQFirstS", o.LQFirstS, o.LQs, false)
	if err != nil {
		return nil, nil, err
	}
	ps, err := perLQ("LQPeriodsS", o.LQPeriodsS, o.LQs, true)
	if err != nil {
		return nil, nil, err
	}
	for i := range o.LQs {
		f := o.FirstBurstS + float64(i)*o.StaggerS
		if fs != nil {
			f = fs[i]
		}
		p := o.PeriodS
		if ps != nil {
			p = ps[i]
		}
		if last := f + float64(max(o.Bursts-1, 0))*p; last > maxSeconds || math.IsNaN(last) {
			return nil, nil, fmt.Errorf("bpf: Options.LQPeriodsS: LQ %d's last burst would arrive at %g s, beyond %g s", i, last, maxSeconds)
		}
		firsts = append(firsts, traces.FromSeconds(f))
		periods = append(periods, traces.FromSeconds(p))
	}
	return firsts, periods, nil
}

// perLQ parses a comma-separated list of one value per LQ; "" gives nil.
func perLQ(field, s string, n int, positive bool) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("bpf: Options.%s: %q lists %d values; want one per LQ (%d)", field, s, len(parts), n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x > maxSeconds || positive && x == 0 {
			return nil, fmt.Errorf("bpf: Options.%s: value %d, %q: want seconds in %s", field, i+1, strings.TrimSpace(p), map[bool]string{true: "(0, 1e9]", false: "[0, 1e9]"}[positive])
		}
		out[i] = x
	}
	return out, nil
}

// tqSubmit is the arrival of the k-th TQ job: its wave's start.
func (o Options) tqSubmit(k int) traces.Time {
	if o.TQWaveJobs <= 0 {
		return 0
	}
	return traces.FromSeconds(float64(k/o.TQWaveJobs) * o.TQWaveGapS)
}

// scenarioString renders the testbed-scenario options that differ from their defaults, so the
// Source of a workload without them is unchanged.
func (o Options) scenarioString() string {
	var b strings.Builder
	if o.LQPeriodsS != "" {
		fmt.Fprintf(&b, " lq_periods_s=%q", o.LQPeriodsS)
	}
	if o.LQFirstS != "" {
		fmt.Fprintf(&b, " lq_first_s=%q", o.LQFirstS)
	}
	if o.TQWaveJobs > 0 {
		fmt.Fprintf(&b, " tq_wave_jobs=%d tq_wave_gap_s=%s", o.TQWaveJobs, strconv.FormatFloat(o.TQWaveGapS, 'g', -1, 64))
	}
	if o.Unpooled {
		b.WriteString(" unpooled=true")
	}
	return b.String()
}
