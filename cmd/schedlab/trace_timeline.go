package main

import (
	"fmt"
	"io"

	"github.com/schedlab/schedlab/traces"
)

// printTimeline writes `trace stats`' lines for a workload's initial holds (the running state at
// a trace window's start) and cluster events, nothing when it has neither.
func printTimeline(w io.Writer, initial []traces.Hold, events []traces.ClusterEvent, total traces.Vec, dims []string) {
	if len(initial) > 0 {
		var held traces.Vec
		var start, end traces.Time = initial[0].Start, initial[0].End
		for _, h := range initial {
			held = held.Add(h.Demand)
			start, end = min(start, h.Start), max(end, h.End)
		}
		fmt.Fprintf(w, "initial          %d holds (running at the start), %s held", len(initial), held.Format(len(dims)))
		for d, name := range dims {
			if total[d] > 0 {
				fmt.Fprintf(w, ", %s %.1f%%", name, 100*float64(held[d])/float64(total[d]))
			}
		}
		fmt.Fprintf(w, " of the cluster; from %s to %s\n", fmtTime(start), fmtTime(end))
	}
	if len(events) > 0 {
		var n [4]int
		for _, ev := range events {
			if int(ev.Kind) < len(n) {
				n[ev.Kind]++
			}
		}
		fmt.Fprintf(w, "cluster events   %d: %d add, %d remove, %d resize; from %s to %s\n", len(events),
			n[traces.MachineAdd], n[traces.MachineRemove], n[traces.MachineResize], fmtTime(events[0].T), fmtTime(events[len(events)-1].T))
	}
}
