package timeline

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
)

// Validate checks a trace against the Chrome trace-event format (the "Trace Event Format"
// document that chrome://tracing and Perfetto's JSON importer follow) as far as schedlab's traces
// use it: a JSON object whose traceEvents array holds events with a known phase; every event has
// integer pid and tid and, except metadata, a name and a non-negative timestamp in microseconds;
// complete events (X) a non-negative dur, and those of one thread nest or follow each other
// (never overlap partly, which viewers cannot draw); duration events (B/E) match per thread and nest; async
// events (b/e) carry cat and id and every begin has a later end of the same cat, id and pid;
// instant events (i/I) a scope of g, p or t when given; counters (C) numeric args; metadata (M) a
// known name and an args object. It returns the first violation, naming the event's index.
func Validate(r io.Reader) error {
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return fmt.Errorf("trace: not a JSON trace object: %w", err)
	}
	if doc.TraceEvents == nil {
		return fmt.Errorf("trace: no traceEvents array")
	}
	type key struct {
		cat, id string
		pid     int64
	}
	type thread struct{ pid, tid int64 }
	open := map[key]float64{}
	stacks := map[thread][]float64{}
	complete := map[thread][][2]float64{}
	for i, ev := range doc.TraceEvents {
		bad := func(format string, a ...any) error {
			return fmt.Errorf("trace: event %d (%v): %s", i, ev["ph"], fmt.Sprintf(format, a...))
		}
		ph, ok := ev["ph"].(string)
		if !ok {
			return bad("no ph")
		}
		pid, ok1 := integer(ev["pid"])
		tid, ok2 := integer(ev["tid"])
		if !ok1 || (!ok2 && ph != "C") {
			return bad("pid and tid must be integers")
		}
		name, _ := ev["name"].(string)
		if name == "" {
			return bad("no name")
		}
		var ts float64
		if ph != "M" {
			t, ok := ev["ts"].(float64)
			if !ok || t < 0 || t != math.Trunc(t) {
				return bad("ts must be a non-negative whole number of microseconds, got %v", ev["ts"])
			}
			ts = t
		}
		switch ph {
		case "X":
			d, ok := ev["dur"].(float64)
			if !ok || d < 0 {
				return bad("complete event without a non-negative dur")
			}
			th := thread{pid, tid}
			complete[th] = append(complete[th], [2]float64{ts, ts + d})
		case "B":
			th := thread{pid, tid}
			stacks[th] = append(stacks[th], ts)
		case "E":
			th := thread{pid, tid}
			s := stacks[th]
			if len(s) == 0 || s[len(s)-1] > ts {
				return bad("end without a matching earlier begin on pid %d tid %d", pid, tid)
			}
			stacks[th] = s[:len(s)-1]
		case "b", "e", "n":
			cat, _ := ev["cat"].(string)
			id := fmt.Sprint(ev["id"])
			if cat == "" || ev["id"] == nil {
				return bad("async event without cat and id")
			}
			k := key{cat, id, pid}
			switch ph {
			case "b":
				if _, dup := open[k]; dup {
					return bad("async begin of id %s already open", id)
				}
				open[k] = ts
			case "e":
				b, ok := open[k]
				if !ok || b > ts {
					return bad("async end of id %s without an earlier begin", id)
				}
				delete(open, k)
			}
		case "i", "I":
			if s, ok := ev["s"]; ok && s != "g" && s != "p" && s != "t" {
				return bad("instant scope %v (want g, p or t)", s)
			}
		case "C":
			args, ok := ev["args"].(map[string]any)
			if !ok || len(args) == 0 {
				return bad("counter without args")
			}
			for k, v := range args {
				if _, ok := v.(float64); !ok {
					return bad("counter series %q is not a number", k)
				}
			}
		case "M":
			switch name {
			case "process_name", "thread_name", "process_sort_index", "thread_sort_index", "process_labels":
			default:
				return bad("unknown metadata %q", name)
			}
			if _, ok := ev["args"].(map[string]any); !ok {
				return bad("metadata without args")
			}
		default:
			return bad("unknown phase %q", ph)
		}
	}
	for th, spans := range complete {
		slices.SortFunc(spans, func(a, b [2]float64) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(b[1], a[1])) })
		var stack [][2]float64
		for _, s := range spans {
			for len(stack) > 0 && stack[len(stack)-1][1] <= s[0] {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 && s[1] > stack[len(stack)-1][1] {
				top := stack[len(stack)-1]
				return fmt.Errorf("trace: complete events [%g, %g] and [%g, %g] µs overlap on pid %d tid %d", top[0], top[1], s[0], s[1], th.pid, th.tid)
			}
			stack = append(stack, s)
		}
	}
	for k := range open {
		return fmt.Errorf("trace: async slice %s/%s on pid %d never ends", k.cat, k.id, k.pid)
	}
	for th, s := range stacks {
		if len(s) > 0 {
			return fmt.Errorf("trace: %d duration event(s) on pid %d tid %d never end", len(s), th.pid, th.tid)
		}
	}
	return nil
}

func integer(v any) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}
