package experiments

import (
	"slices"
	"strings"

	"github.com/schedlab/schedlab/traces"
)

// checkStopQueue refuses an engine.stop_after_queue that names no queue of the workload, with
// the nearest queue names: a configuration error (exit status 2), caught before the replay.
func checkStopQueue(c Config, w *traces.Workload) error {
	q := c.Engine.StopAfterQueue
	if q == "" {
		return nil
	}
	var queues []string
	for i := range w.Jobs {
		if !slices.Contains(queues, w.Jobs[i].Queue) {
			queues = append(queues, w.Jobs[i].Queue)
		}
	}
	if slices.Contains(queues, q) {
		return nil
	}
	slices.Sort(queues)
	return configErr("engine.stop_after_queue: workload %s has no queue %q%s", w.Name, q,
		SuggestOr(q, queues, " (queues: "+strings.Join(queues, ", ")+")"))
}
