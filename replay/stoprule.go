package replay

import (
	"fmt"
	"slices"
	"strings"
)

// stopRule implements Config.StopAfterQueue: when every job of one queue has finished, no
// other job is submitted any more, and the run ends when the jobs already submitted finish.
//
// It is the rule of the BPF authors' testbed runs (github.com/lenhattan86/ccra, each run's
// exec.sh, e.g. results/ctl.yarn-drf.yarnrm-pg0.utah.cloudlab.us/multi_LQs_DRF/scriptTest.tar:
// users/tanle/SWIM/scriptsTest/exec.sh): `wait $runBatches ; kill $runInteractives`. The batch
// script returns when the last TQ job ends; killing the LQ generator scripts stops their
// submissions while the LQ jobs they already launched keep running. Unlike the engine, the script
// then kills every application 30 s later (`sleep 30; … yarn application -kill all`), so an LQ
// job still running after 30 s has no completion in ccra's logs; here it runs to completion.
type stopRule struct {
	queue int // queue index; -1: off
	left  int // jobs of the queue not yet finished
	fired bool
}

// initStopRule resolves Config.StopAfterQueue against the workload's queues.
func (e *Engine) initStopRule() error {
	e.stop.queue = -1
	name := e.cfg.StopAfterQueue
	if name == "" {
		return nil
	}
	q := slices.Index(e.queues, name)
	if q < 0 {
		return fmt.Errorf("replay: stop after queue %q: the workload has no such queue (queues: %s)", name, strings.Join(e.queues, ", "))
	}
	e.stop.queue = q
	for ji := range e.jobs {
		if e.jobs[ji].info.Queue == q {
			e.stop.left++
		}
	}
	return nil
}

// stopRuleJobDone is called when job j completes; when the queue's last job completes it ends
// all further submissions.
func (e *Engine) stopRuleJobDone(j int32) {
	if e.stop.queue < 0 || e.stop.fired || e.jobs[j].info.Queue != e.stop.queue {
		return
	}
	e.stop.left--
	if e.stop.left > 0 {
		return
	}
	e.stop.fired = true
	e.stats.Events++
	e.log(LogEntry{T: e.now, Kind: KindStop, Job: -1})
	e.nextArr = len(e.jobs) // jobs not yet submitted never are
}
