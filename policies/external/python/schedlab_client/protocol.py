"""The schedlab external-scheduler protocol, version 1 (PROTOCOL.md): messages, the View kept
current from each call's deltas, the Plan a scheduler returns, and the serving loop."""

import json
import operator
import os
import socket
import sys
import traceback

PROTOCOL_VERSION = 1


class ProtocolError(Exception):
    """A message the client cannot follow."""


def fits(demand, free, _le=operator.le):
    """True when every dimension of demand is at most free's."""
    return all(map(_le, demand, free))


class Machine:
    """A placement target (the whole pool in pooled mode). Capacities are fixed-point integers:
    View.unit (1,000,000) is one unit of a dimension."""

    __slots__ = ("index", "name", "rack", "gpu", "platform", "capacity")

    def __init__(self, index, m):
        self.index = index
        self.name = m["name"]
        self.rack = m["rack"]
        self.gpu = m["gpu"]
        self.platform = m["platform"]
        self.capacity = m["capacity"]


class Stage:
    """A stage's scheduler-visible description; estimate is per task, in microseconds."""

    __slots__ = ("index", "name", "tasks", "demand", "estimate", "parents")

    def __init__(self, index, s):
        self.index = index
        self.name = s["name"]
        self.tasks = s["tasks"]
        self.demand = s["demand"]
        self.estimate = s["estimate"]
        self.parents = s["parents"]


class Job:
    """A job: its description (fixed at arrival) and its state (current as of the call).

    stage_state[s] is [pending, running, finished, runnable(0/1)]; running_tasks maps
    (stage, task) to (machine, start, slowed)."""

    __slots__ = (
        "job", "id", "name", "submit", "queue", "klass", "priority", "weight", "deadline",
        "tasks", "features", "utility", "placement", "stages",
        "running", "pending", "finished", "remaining_estimate", "first_start", "done",
        "alloc", "stage_state", "running_tasks", "data",
    )

    def __init__(self, a, ndims):
        self.job = a["job"]
        self.id = a["id"]
        self.name = a["name"]
        self.submit = a["submit"]
        self.queue = a["queue"]
        self.klass = a["class"]
        self.priority = a["priority"]
        self.weight = a["weight"]
        self.deadline = a["deadline"]
        self.tasks = a["tasks"]
        self.features = a.get("features")
        self.utility = a.get("utility")
        self.placement = a.get("placement")
        self.stages = [Stage(i, s) for i, s in enumerate(a["stages"])]
        self.running = 0
        self.pending = 0
        self.finished = 0
        self.remaining_estimate = 0
        self.first_start = -1
        self.done = False
        self.alloc = [0] * ndims
        self.stage_state = [[s.tasks, 0, 0, 0] for s in self.stages]
        self.running_tasks = {}
        self.data = None  # free for the scheduler's own bookkeeping

    def runnable_stages(self):
        """Stages that are unlocked and have pending tasks, in index order."""
        return [s for s, st in enumerate(self.stage_state) if st[3] and st[0] > 0]


class View:
    """The cluster and jobs as the scheduler sees them, updated by each call's deltas.

    Times are int64 microseconds; resource amounts are fixed-point integers (unit per unit).
    started/finished/preempted are this call's differences of running tasks: a task that
    started and finished between two calls is in none of them (job and stage counts are
    authoritative)."""

    def __init__(self, hello):
        self.dims = hello["dims"]
        self.unit = hello["unit"]
        self.oracle = hello["oracle"]
        self.cycle = hello["cycle"]
        self.preempt_delay = hello["preempt_delay"]
        self.machines = [Machine(i, m) for i, m in enumerate(hello["machines"])]
        self.options = hello["options"]
        self.args = self.options.get("args") or {}
        nd = len(self.dims)
        self.capacity = [sum(m.capacity[i] for m in self.machines) for i in range(nd)]
        self.free = [list(m.capacity) for m in self.machines]
        self.queues = []
        self.jobs = {}
        self.active = {}  # arrived, unfinished jobs in submit order
        self.now = 0
        self.call = 0
        self.changed = []
        self.arrived = []
        self.started = []
        self.finished = []
        self.preempted = []

    def apply(self, msg):
        """Bring the view up to date with one schedule message."""
        self.now = msg["now"]
        self.call = msg["call"]
        if "queues" in msg:
            self.queues.extend(msg["queues"])
        nd = len(self.dims)
        jobs = self.jobs
        arrived = []
        for a in msg["arrivals"]:
            j = Job(a, nd)
            jobs[j.job] = j
            self.active[j.job] = j
            arrived.append(j.job)
        self.arrived = arrived
        changed = []
        for s in msg["jobs"]:
            j = jobs[s["job"]]
            j.running = s["running"]
            j.pending = s["pending"]
            j.finished = s["finished"]
            j.remaining_estimate = s["remaining_estimate"]
            j.first_start = s["first_start"]
            j.alloc = s["alloc"]
            j.stage_state = s["stages"]
            if s["done"] and not j.done:
                j.done = True
                self.active.pop(j.job, None)
            changed.append(j.job)
        self.changed = changed
        for job, stage, task in msg["finished"]:
            jobs[job].running_tasks.pop((stage, task), None)
        for job, stage, task in msg["preempted"]:
            jobs[job].running_tasks.pop((stage, task), None)
        for job, stage, task, machine, start, slowed in msg["started"]:
            jobs[job].running_tasks[(stage, task)] = (machine, start, bool(slowed))
        self.started = msg["started"]
        self.finished = msg["finished"]
        self.preempted = msg["preempted"]
        for m, f in msg["free"]:
            self.free[m] = f

    def first_fit(self, demand, free=None):
        """The lowest-numbered machine whose free capacity (or the given list's) fits demand,
        or None."""
        for m, f in enumerate(self.free if free is None else free):
            if fits(demand, f):
                return m
        return None


class Plan:
    """A scheduler's decisions: starts [job, stage, machine, count] and preemptions
    [job, stage, task]. Preemptions are applied before starts."""

    __slots__ = ("starts", "preempts")

    def __init__(self):
        self.starts = []
        self.preempts = []

    def start(self, job, stage, machine, count=1):
        """Start count pending tasks of a runnable stage on machine (merged with the previous
        start when it names the same job, stage and machine)."""
        if self.starts:
            last = self.starts[-1]
            if last[0] == job and last[1] == stage and last[2] == machine:
                last[3] += count
                return
        self.starts.append([job, stage, machine, count])

    def preempt(self, job, stage, task):
        self.preempts.append([job, stage, task])


class Scheduler:
    """Base class: override schedule(view) -> Plan, and setup(view) to read view.args."""

    name = "python"
    capabilities = ("machines",)

    def setup(self, view):
        """Called once after the hello, before the first call."""

    def schedule(self, view):
        raise NotImplementedError

    def end(self, view):
        """Called once when the run ends."""


def _dump(msg):
    return (json.dumps(msg, separators=(",", ":")) + "\n").encode()


def _converse(sched, rfile, wfile):
    """Serve one run over a binary line reader and writer. Returns an exit status."""
    view = None
    dumps = json.JSONEncoder(separators=(",", ":")).encode  # one encoder, not one per call
    # The decoder's C scanner, called directly: json.loads would also sniff the encoding and
    # match whitespace twice with regexes, a fifth of a small call's decoding time.
    scan = json.JSONDecoder().scan_once
    while True:
        line = rfile.readline()
        if not line:
            return 0  # the engine is gone: nothing left to do
        try:
            text = line.decode()
            try:
                msg, end = scan(text, 0)
            except StopIteration:
                raise ProtocolError("not a JSON message: %.60r" % (text,)) from None
            if end < len(text) - 1 and not text[end:].isspace():
                raise ProtocolError("extra data after the message: %.60r" % (text[end:],))
            t = msg.get("type") if type(msg) is dict else None
            if t == "schedule":
                view.apply(msg)
                plan = sched.schedule(view)
                out = ('{"type":"plan","call":%d,"starts":%s,"preempts":%s}\n' % (
                    msg["call"], dumps(plan.starts) if plan.starts else "[]",
                    dumps(plan.preempts) if plan.preempts else "[]")).encode()
            elif t == "hello":
                if msg.get("protocol") != PROTOCOL_VERSION:
                    wfile.write(_dump({"type": "error", "message": "client speaks protocol %d, engine %s" % (PROTOCOL_VERSION, msg.get("protocol"))}))
                    wfile.flush()
                    return 1
                view = View(msg)
                sched.setup(view)
                out = _dump({"type": "hello", "protocol": PROTOCOL_VERSION, "name": sched.name,
                             "capabilities": list(sched.capabilities)})
            elif t == "end":
                sched.end(view)
                return 0
            else:
                raise ProtocolError("unknown message type %r" % (t,))
        except Exception as e:  # report it to the engine: the run ends with this line
            traceback.print_exc(file=sys.stderr)
            wfile.write(_dump({"type": "error", "message": "%s: %s" % (type(e).__name__, e)}))
            wfile.flush()
            return 1
        wfile.write(out)
        wfile.flush()


class _FdWriter:
    """Writes each message with one write(2): no buffering, so no flush call."""

    def __init__(self, fd):
        self.fd = fd

    def write(self, b):
        while b:
            b = b[os.write(self.fd, b):]

    def flush(self):
        pass


def serve(sched, rfile=None, wfile=None):
    """Run sched over stdin/stdout (a child of schedlab) until the run ends; exits the process
    with status 0, or 1 after reporting an error."""
    rfile = rfile or sys.stdin.buffer
    if wfile is None:
        sys.stdout.flush()
        wfile = _FdWriter(sys.stdout.fileno())
        sys.stdout = sys.stderr  # a stray print() must not corrupt the protocol
    sys.exit(_converse(sched, rfile, wfile))


def serve_socket(make_sched, path, runs=None):
    """Listen on a Unix socket and serve one run per connection with a fresh make_sched()
    (runs: how many connections to serve; None: forever)."""
    if os.path.exists(path):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(8)
    served = 0
    try:
        while runs is None or served < runs:
            conn, _ = srv.accept()
            with conn:
                f = conn.makefile("rwb")
                _converse(make_sched(), f, f)
                f.close()
            served += 1
    finally:
        srv.close()
        os.unlink(path)
