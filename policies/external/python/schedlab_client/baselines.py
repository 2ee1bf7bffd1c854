"""Python ports of schedlab's baselines fifo, srpt, drf and sp (policies/baseline), making the
same decisions as the Go policies: an ordered greedy scheduler over jobs, first-fit placement
that honours placement constraints, and sp's preemption with holds. The differential tests in
policies/external require byte-identical results, at job level and at queue level (drf and sp
with policy.level: queue share between queues weighted by args["weights"], a queue's jobs served
in FIFO order; for sp an entity is one queue's jobs of one class)."""

import heapq
import math
import operator

from .protocol import Plan, Scheduler, fits

INF = float("inf")


class _Rec:
    __slots__ = ("submit", "rank", "weight", "running", "alloc", "pending", "remain",
                 "rack_at", "taken", "taken_call", "eligible", "aside", "key", "in_heap",
                 "group", "in_group")

    def __init__(self, job, rank):
        self.submit = job.submit
        self.rank = rank
        w = job.weight
        self.weight = w if (w is not None and w > 0 and w != INF) else 1
        self.running = 0
        self.alloc = None
        self.pending = 0
        self.remain = 0
        self.rack_at = 0
        self.taken = {}
        self.taken_call = -1
        self.eligible = False
        self.aside = False
        self.key = None
        self.in_heap = False
        self.group = None  # its _Group at queue level
        self.in_group = False  # listed in its group's heap


class _Group:
    """A queue-level entity: the jobs of one queue (for sp, of one class rank) in FIFO order,
    with their summed allocation."""
    __slots__ = ("index", "rank", "queue", "weight", "alloc", "jobs", "count", "key", "in_heap",
                 "aside")

    def __init__(self, index, rank, queue, weight, ndims):
        self.index, self.rank, self.queue, self.weight = index, rank, queue, weight
        self.alloc = [0] * ndims
        self.jobs = []  # heap of (submit, job); entries of ineligible jobs are dropped lazily
        self.count = 0  # eligible jobs
        self.key = None
        self.in_heap = False
        self.aside = False


def _weights(raw):
    """args["weights"]: queue name -> positive, finite weight (the built-in's params.weights)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ValueError("args.weights: want a map from queue name to weight, got %r" % (raw,))
    out = {}
    for q, w in raw.items():
        x = None
        if isinstance(w, str):  # --set policy.params.args.weights.q=2 arrives as a string
            try:
                x = float(w)
            except ValueError:
                pass
        elif isinstance(w, (int, float)) and not isinstance(w, bool):
            x = float(w)
        if x is None or not x > 0 or math.isinf(x):
            raise ValueError("args.weights.%s: want a positive number, got %r" % (q, w))
        out[q] = x
    return out


class _Hold:
    __slots__ = ("job", "rank", "machine", "amount", "expected")

    def __init__(self, job, rank, machine, amount, expected):
        self.job, self.rank, self.machine, self.amount, self.expected = job, rank, machine, amount, expected


def _sub(a, b):
    return [x - y for x, y in zip(a, b)]


def _add(a, b):
    return [x + y for x, y in zip(a, b)]


class Greedy(Scheduler):
    """The ordered greedy core. kind is fifo, srpt, drf or sp."""

    def __init__(self, kind):
        if kind not in ("fifo", "srpt", "drf", "sp"):
            raise ValueError("unknown baseline %r (valid: fifo, srpt, drf, sp)" % kind)
        self.kind = kind
        self.name = kind + ".py"
        self.shares = kind in ("drf", "sp")
        self.capabilities = ("machines", "preempt") if kind == "sp" else ("machines",)

    def setup(self, view):
        o = view.options
        if o["level"] not in ("job", "queue"):
            raise ValueError("unknown level %r (valid: job, queue)" % (o["level"],))
        self.queue_level = o["level"] == "queue" and self.shares
        self.weights = _weights(view.args.get("weights"))
        self.groups = {}  # (rank, queue) -> _Group
        self.glist = []
        self.gheap = []
        self.backfill = o["backfill"]
        self.class_rank = {c: i for i, c in enumerate(o["class_order"])} or None
        self.unlisted = len(o["class_order"])
        self.preempt = bool(view.args.get("preempt", False)) and self.kind == "sp"
        self.cap = [(d, float(c)) for d, c in enumerate(view.capacity) if c > 0]
        self.recs = {}
        self.heap = []
        self.holds = []
        self.running_jobs = set()  # jobs with running tasks (sp with preemption)
        self.n = len(view.machines)
        self.multi = self.n > 1

    # --- keys and the order ---------------------------------------------------------------

    def _share(self, r):
        s = 0.0
        a = r.alloc
        for d, c in self.cap:
            f = a[d] / c
            if f > s:
                s = f
        return s / r.weight

    def _key(self, j, r):
        k = self.kind
        if k == "fifo":
            return (0, 0.0, r.submit, j)
        if k == "srpt":
            return (r.remain, 0.0, r.submit, j)
        if k == "drf":
            return (0, self._share(r), r.submit, j)
        return (r.rank, self._share(r), r.submit, j)

    def _place(self, j, r, eligible):
        g = r.group
        if g is not None:
            if eligible != r.eligible:
                g.count += 1 if eligible else -1
            r.eligible = eligible
            if eligible and not r.in_group:
                r.in_group = True
                heapq.heappush(g.jobs, (r.submit, j))
            self._place_group(g)
            return
        r.eligible = eligible
        if not eligible:
            r.in_heap = False
            return
        key = self._key(j, r)
        if key != r.key or not r.in_heap:
            r.key = key
            r.in_heap = True
            heapq.heappush(self.heap, (key, j))

    def _peek(self):
        heap, recs = self.heap, self.recs
        while heap:
            key, j = heap[0]
            r = recs.get(j)
            if r is None:
                heapq.heappop(heap)
                continue
            if r.eligible and not r.aside and r.key == key:
                return j
            heapq.heappop(heap)
            if r.key == key and not r.aside:
                r.in_heap = False
        return None

    # --- queue level -----------------------------------------------------------------------

    def _group_for(self, view, job, rank):
        k = (rank, job.queue)
        g = self.groups.get(k)
        if g is None:
            name = view.queues[job.queue]
            g = _Group(len(self.glist), rank, job.queue, self.weights.get(name, 1.0), len(view.capacity))
            self.groups[k] = g
            self.glist.append(g)
        return g

    def _place_group(self, g):
        if g.count == 0:
            g.in_heap = False
            return
        s = 0.0
        a = g.alloc
        for d, c in self.cap:
            f = a[d] / c
            if f > s:
                s = f
        key = (g.rank, s / g.weight, 0, g.queue)
        if key != g.key or not g.in_heap:
            g.key = key
            g.in_heap = True
            heapq.heappush(self.gheap, (key, g.index))

    def _head(self, g):
        """The group's first eligible job in (submit, job) order, or None."""
        jobs, recs = g.jobs, self.recs
        while jobs:
            j = jobs[0][1]
            r = recs.get(j)
            if r is not None and r.eligible:
                return j
            heapq.heappop(jobs)
            if r is not None:
                r.in_group = False
        return None

    def _peek_group(self):
        heap, glist = self.gheap, self.glist
        while heap:
            key, gi = heap[0]
            g = glist[gi]
            if g.in_heap and not g.aside and g.key == key:
                j = self._head(g)
                if j is not None:
                    return g, j
            heapq.heappop(heap)
            if g.key == key and not g.aside:
                g.in_heap = False
        return None

    def _set_running(self, j, r, running, alloc):
        g = r.group
        if g is not None:
            old = r.alloc
            if old is None:
                g.alloc = [a + x for a, x in zip(g.alloc, alloc)]
            else:
                g.alloc = [a + x - y for a, x, y in zip(g.alloc, alloc, old)]
        if self.preempt:
            if running > 0:
                self.running_jobs.add(j)
            else:
                self.running_jobs.discard(j)
        if running <= 0:
            r.rack_at = 0
        r.running, r.alloc = running, alloc

    def _refresh(self, view, j):
        job = view.jobs[j]
        r = self.recs.get(j)
        if r is None:
            if self.kind == "sp":
                if self.class_rank is not None:
                    rank = self.class_rank.get(job.klass, self.unlisted)
                else:
                    rank = -job.priority
            else:
                rank = 0
            r = self.recs[j] = _Rec(job, rank)
            if self.queue_level:
                r.group = self._group_for(view, job, rank)
        self._set_running(j, r, job.running, job.alloc)
        r.pending = job.pending
        r.remain = job.remaining_estimate
        r.taken_call = -1
        self._place(j, r, not job.done and job.pending > 0)
        if job.done:
            del self.recs[j]
            self.running_jobs.discard(j)

    # --- placement ------------------------------------------------------------------------

    def _avail(self, m, rank):
        f = self.free[m]
        held = False
        for h in self.holds:
            if h.machine == m and h.rank < rank:
                f = _sub(f, h.amount)
                held = True
        if held:
            f = [max(x, 0) for x in f]
        return f

    def _find(self, d, rank, ok=None):
        holds = self.holds
        if not holds and ok is None:  # the common case, kept lean
            le = operator.le
            if self.max_stale:
                self.max_free = [max(col) for col in zip(*self.free)]
                self.max_stale = False
            if not all(map(le, d, self.max_free)):
                return None  # no machine has this much of every dimension
            # Free capacity only shrinks during a call, so machines this demand did not fit
            # earlier in the call are skipped (scan_from is reset at every call).
            key = tuple(d)
            free = self.free
            for m in range(self.scan_from.get(key, 0), len(free)):
                if all(map(le, d, free[m])):
                    self.scan_from[key] = m
                    return m
            self.scan_from[key] = len(free)
            return None
        for m, f in enumerate(self.free):
            if fits(d, f) and (ok is None or ok(m)) and (not holds or fits(d, self._avail(m, rank))):
                return m
        return None

    def _job_rack(self, job, r):
        if r.running <= 0:
            r.rack_at = 0
            return -1
        if r.rack_at == 0:
            if not job.running_tasks:
                return -1
            first = min(job.running_tasks)
            r.rack_at = job.running_tasks[first][0] + 1
        return r.rack_at - 1

    def _preferred(self, view, job, r):
        """A predicate on machines for job's preferred resources, or None for any machine."""
        kind = job.placement["kind"] if job.placement else ""
        if kind == "gpu":
            ms = view.machines
            return lambda m: ms[m].gpu
        if kind == "rack":
            at = self._job_rack(job, r)
            if at >= 0:
                ms = view.machines
                rack = ms[at].rack
                return lambda m: ms[m].rack == rack
        return None

    def _constrained(self, job):
        return self.multi and job.placement is not None and job.placement["kind"] != ""

    def _find_for(self, view, job, r, d):
        if not self._constrained(job):
            return self._find(d, r.rank)
        pref = self._preferred(view, job, r)
        if pref is None:
            return self._find(d, r.rank)
        m = self._find(d, r.rank, pref)
        if m is not None or job.placement["hard"]:
            return m
        return self._find(d, r.rank)

    def _count(self, m, d, rank, limit):
        f = self._avail(m, rank)
        k = limit
        for i, x in enumerate(d):
            if x > 0:
                k = min(k, max(f[i], 0) // x)
        return k

    def _take(self, m, d, k):
        use = [x * k for x in d]
        self.free[m] = _sub(self.free[m], use)
        self.max_stale = True
        for h in self.holds:
            if h.machine == m:
                h.expected = _sub(h.expected, use)

    # --- scheduling -----------------------------------------------------------------------

    def schedule(self, view):
        self.call = view.call
        for j in view.changed:
            self._refresh(view, j)
        self.free = [list(f) for f in view.free]
        self.max_stale = True
        self.scan_from = {}
        if self.holds:
            self.holds = [h for h in self.holds
                          if h.job in self.recs and self.recs[h.job].pending > 0 and h.machine < self.n
                          and not fits(h.expected, self.free[h.machine])]
        plan = Plan()
        self._fill(view, plan)
        return plan

    def _taken(self, r, s):
        if r.taken_call != self.call:
            return 0
        return r.taken.get(s, 0)

    def _fill(self, view, plan):
        aside = []
        while True:
            g = None
            if self.queue_level:
                got = self._peek_group()
                if got is None:
                    break
                g, j = got
            else:
                j = self._peek()
                if j is None:
                    break
            if not self._serve(view, plan, j):
                continue
            if self.preempt:
                self._preempt_for(view, plan, j)
            if not self.backfill:
                break
            if g is not None:
                g.aside = True  # the whole queue waits for the next call
                aside.append(g)
                continue
            self.recs[j].aside = True
            aside.append(j)
        if self.queue_level:
            for g in aside:
                g.aside = False
                g.in_heap = False
                self._place_group(g)
            return
        for j in aside:
            r = self.recs[j]
            r.aside = False
            r.in_heap = False
            self._place(j, r, r.pending > 0)

    def _serve(self, view, plan, j):
        """Start tasks of job j; True when it still has pending tasks none of which fits."""
        r = self.recs[j]
        job = view.jobs[j]
        greedy = not self.shares
        for s in job.runnable_stages():
            left = job.stage_state[s][0] - self._taken(r, s)
            d = job.stages[s].demand
            while left > 0:
                m = self._find_for(view, job, r, d)
                if m is None:
                    break
                k = self._count(m, d, r.rank, left) if greedy else 1
                if job.placement and job.placement["kind"] == "rack" and r.rack_at == 0:
                    r.rack_at = m + 1
                self._emit(plan, j, r, s, m, k, d)
                if not greedy:
                    return False
                left -= k
        if greedy:
            return r.pending > 0
        return True

    def _emit(self, plan, j, r, s, m, k, d):
        plan.start(j, s, m, k)
        self._take(m, d, k)
        if r.taken_call != self.call:
            r.taken = {}
            r.taken_call = self.call
        r.taken[s] = r.taken.get(s, 0) + k
        r.pending -= k
        # Static orders never read alloc, and the next call refreshes it from the view.
        alloc = [a + x * k for a, x in zip(r.alloc, d)] if self.shares else r.alloc
        self._set_running(j, r, r.running + k, alloc)
        if self.shares or r.pending <= 0:
            self._place(j, r, r.pending > 0)

    # --- preemption (sp) ------------------------------------------------------------------

    def _preempt_avail(self, m, j, rank):
        f = self.free[m]
        for h in self.holds:
            if h.machine == m and h.job != j and h.rank <= rank:
                f = _sub(f, h.amount)
        return [max(x, 0) for x in f]

    def _preempt_for(self, view, plan, j):
        r = self.recs[j]
        if any(h.job == j for h in self.holds):
            return
        lower = {}
        for vj in self.running_jobs:
            vr = self.recs[vj]
            if vr.rank > r.rank:
                lower.setdefault(vr.rank, []).append(vj)
        if not lower:
            return
        job = view.jobs[j]
        need = None
        for s in job.runnable_stages():
            if job.stage_state[s][0] - self._taken(r, s) > 0:
                need = job.stages[s].demand
                break
        if need is None:
            return
        usable = None
        if self._constrained(job) and job.placement["hard"]:
            usable = self._preferred(view, job, r)
        planned = {tuple(p) for p in plan.preempts}
        tally = {}
        victims = []
        for rank in sorted(lower, reverse=True):
            start = len(victims)
            batch = []
            for vj in lower[rank]:
                vjob = view.jobs[vj]
                for (stage, task), (machine, began, _) in vjob.running_tasks.items():
                    if usable is not None and not usable(machine):
                        continue
                    if (vj, stage, task) in planned:
                        continue
                    batch.append((began, vj, stage, task, machine, vjob.stages[stage].demand))
            batch.sort(reverse=True)
            victims.extend(batch)
            for i, (_, vj, stage, task, m, demand) in enumerate(batch):
                tally[m] = _add(tally[m], demand) if m in tally else list(demand)
                if not fits(need, _add(self._preempt_avail(m, j, r.rank), tally[m])):
                    continue
                freed = [0] * len(need)
                for v in victims[:start + i + 1]:
                    if v[4] == m:
                        plan.preempt(v[1], v[2], v[3])
                        freed = _add(freed, v[5])
                amount = [max(x, 0) for x in _sub(need, freed)]
                self.holds.append(_Hold(j, r.rank, m, amount, _add(self.free[m], freed)))
                return
