#!/usr/bin/env python3
"""Run a Python port of a schedlab baseline over stdin/stdout:

    schedlab run --policy external --set 'policy.params.command=python3 policies/external/python/baseline.py fifo'

Names: fifo, srpt, drf, sp (sp preempts with policy.params.args.preempt: true), null (answers
every call with an empty plan: a protocol-overhead probe)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from schedlab_client import Plan, Scheduler, serve  # noqa: E402
from schedlab_client.baselines import Greedy  # noqa: E402


class Null(Scheduler):
    name = "null.py"

    def schedule(self, view):
        return Plan()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: baseline.py fifo|srpt|drf|sp|null")
    name = sys.argv[1]
    serve(Null() if name == "null" else Greedy(name))


if __name__ == "__main__":
    main()
