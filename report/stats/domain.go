package stats

import (
	"math"
	"path"
	"strings"
)

// Domain is the set of values a metric can take, which bounds its confidence intervals: the
// interval of a fraction stays in [0, 1], of a non-negative quantity at or above 0, and a
// ratio's is computed on the log scale, so it stays positive.
type Domain int

// The domains. The zero value is Signed: any real number, no bound.
const (
	Signed Domain = iota
	// NonNegative quantities: times, counts, work (a JCT, a wall time, a goodput).
	NonNegative
	// Fraction quantities lie in [0, 1]: rates, utilisations, shares.
	Fraction
	// Ratio quantities are positive and multiplicative (a speedup, a slowdown): their
	// intervals are computed on the log scale.
	Ratio
)

// String returns "signed", "non-negative", "fraction" or "ratio".
func (d Domain) String() string {
	switch d {
	case NonNegative:
		return "non-negative"
	case Fraction:
		return "fraction"
	case Ratio:
		return "ratio"
	}
	return "signed"
}

// domains is the domain table: metric names (the last dotted part of a grouped metric such as
// by_class.slo.avg_jct_s) and their domains. Names not listed fall to the suffix rules of
// DomainOf, then to Signed.
var domains = map[string]Domain{
	"jobs": NonNegative, "completed": NonNegative, "unfinished": NonNegative, "slo_jobs": NonNegative,
	"utility_jobs": NonNegative, "targets": NonNegative, "missed_targets": NonNegative, "preemptions": NonNegative,
	"tasks": NonNegative, "admissions": NonNegative, "cells": NonNegative,
	"slo_miss_rate": Fraction, "utilization": Fraction, "share": Fraction,
	"speedup": Ratio, "slowdown": Ratio,
	// Signed although their names end in _s: a completion's distance to its target.
	"delta_s": Signed, "p25_delta_s": Signed, "p50_delta_s": Signed, "p75_delta_s": Signed, "max_delta_s": Signed,
	"min_utility": Signed, "sum_utility": Signed, "rel_error": Signed,
}

// domainPatterns are the policies' own metrics (path.Match patterns over the whole name), tried
// first, in order.
var domainPatterns = []struct {
	pattern string
	domain  Domain
}{
	{"cora.shadow.*.positive", Fraction}, {"cora.shadow.*.share_*", Fraction},
	{"cora.shadow.*.mean_gain", Signed}, {"cora.shadow.*.rel_gain_*", Signed},
	{"cora.*", NonNegative}, // event, failure, timeout and fallback counts
	{"jvusched.*", NonNegative}, {"admissions.*", NonNegative},
	{"predict.within_*", Fraction}, {"predict.under_*", Fraction}, {"predict.over_*", Fraction},
	{"predict.beyond_*", Fraction}, {"predict.no_prediction", Fraction},
	{"predict.median_rel_error", Signed}, {"predict.jobs", NonNegative},
}

// groupDomains are the metric families whose whole name, not only its last part, sets the
// domain: utilization.cpu, queue_dominant_share.q1.
var groupDomains = map[string]Domain{"utilization": Fraction, "queue_dominant_share": Fraction}

// DomainOf returns the domain of a metric by name: the policies' metrics of domainPatterns
// (cora.shadow.fair.share_rel_gain_18 is a fraction), the domain table for the name or its last
// dotted part (job.jct_s, table.cycles.wall_ms, by_class.slo.slo_miss_rate), the families of
// groupDomains, and the suffix rules — _rate, _fraction, _share and share_… are fractions,
// _ratio a ratio, _s, _ms, _hours, _bytes, _jobs and _tasks non-negative. Anything else is
// Signed.
func DomainOf(metric string) Domain {
	for _, p := range domainPatterns {
		if ok, _ := path.Match(p.pattern, metric); ok {
			return p.domain
		}
	}
	if d, ok := domains[metric]; ok {
		return d
	}
	first, _, _ := strings.Cut(metric, ".")
	if d, ok := groupDomains[first]; ok && first != metric {
		return d
	}
	leaf := metric[strings.LastIndexByte(metric, '.')+1:]
	if d, ok := domains[leaf]; ok {
		return d
	}
	switch {
	case hasAnySuffix(leaf, "_rate", "_fraction", "_share", "_frac") || strings.HasPrefix(leaf, "share_"):
		return Fraction
	case hasAnySuffix(leaf, "_ratio"):
		return Ratio
	case hasAnySuffix(leaf, "_s", "_ms", "_us", "_hours", "_bytes", "_count", "_jobs", "_tasks"):
		return NonNegative
	}
	return Signed
}

func hasAnySuffix(s string, sufs ...string) bool {
	for _, x := range sufs {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// Bound returns ci with its bounds kept in the domain: Lo raised to 0 for a non-negative
// quantity or a ratio, and the bounds of a fraction clipped to [0, 1]. The estimate is not
// changed. A bound that is NaN stays NaN.
func (d Domain) Bound(ci CI) CI {
	switch d {
	case NonNegative, Ratio:
		ci.Lo = math.Max(ci.Lo, 0)
	case Fraction:
		ci.Lo = math.Min(math.Max(ci.Lo, 0), 1)
		ci.Hi = math.Min(math.Max(ci.Hi, 0), 1)
	}
	return ci
}

// DomainMeanCI returns the mean of xs with a confidence interval that respects the domain d:
// Student's t (MeanCI) for a signed quantity; clipped to the bounds for a non-negative
// quantity or a fraction; and for a ratio with every value positive, the log-scale interval
// of the mean, mean × exp(±t·se/mean) (the t interval of log(mean), its standard error by the
// delta method), which is positive and wider above the mean than below. Errors are MeanCI's.
func DomainMeanCI(xs []float64, level float64, d Domain) (CI, error) {
	ci, err := MeanCI(xs, level)
	if err != nil || !ci.Defined() {
		return ci, err
	}
	if d == Ratio && ci.Estimate > 0 && !hasNonPositive(xs) {
		h := (ci.Hi - ci.Lo) / 2 / ci.Estimate
		ci.Lo, ci.Hi = ci.Estimate*math.Exp(-h), ci.Estimate*math.Exp(h)
		return ci, nil
	}
	return d.Bound(ci), nil
}

func hasNonPositive(xs []float64) bool {
	for _, x := range xs {
		if x <= 0 {
			return true
		}
	}
	return false
}

// Symmetric reports whether the interval is the same distance either side of the estimate
// (to a relative 1e-9), so that it can be written "estimate ± half-width".
func (c CI) Symmetric() bool {
	lo, hi := c.Estimate-c.Lo, c.Hi-c.Estimate
	return math.Abs(lo-hi) <= 1e-9*math.Max(math.Abs(lo), math.Abs(hi))
}
