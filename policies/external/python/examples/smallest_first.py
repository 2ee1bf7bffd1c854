#!/usr/bin/env python3
"""Smallest remaining work first: a complete schedlab scheduler to copy and change.

    schedlab run --policy external --set workload.pooled=true \
        --set 'policy.params.command=python3 policies/external/python/examples/smallest_first.py'

It places tasks on machines by first fit but ignores placement constraints: run it pooled, or
on workloads without hard ones (the engine rejects a plan that breaks one).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from schedlab_client import Plan, Scheduler, fits, serve  # noqa: E402


class SmallestFirst(Scheduler):
    name = "smallest-first"
    capabilities = ("machines",)  # it places tasks on machines, not only on a pool

    def schedule(self, view):
        plan = Plan()
        free = [list(f) for f in view.free]  # the view's free capacity, less this plan's starts
        if not any(any(x > 0 for x in f) for f in free):
            return plan  # nothing free: nothing to start
        most = [max(col) for col in zip(*free)]  # no task bigger than this fits anywhere
        for job in sorted(view.active.values(), key=lambda j: (j.remaining_estimate, j.job)):
            for s in job.runnable_stages():
                demand, pending = job.stages[s].demand, job.stage_state[s][0]
                if not fits(demand, most):
                    continue
                for m, f in enumerate(free):
                    while pending > 0 and fits(demand, f):
                        plan.start(job.job, s, m)
                        f[:] = [x - d for x, d in zip(f, demand)]
                        pending -= 1
                most = [max(col) for col in zip(*free)]
        return plan


if __name__ == "__main__":
    serve(SmallestFirst())
