"""A Gymnasium-style environment: each step is one scheduling call of a schedlab run.

    env = SchedlabEnv(["workload.sample=0.05"], schedlab="schedlab")
    obs, info = env.reset(seed=1)
    while True:
        obs, reward, terminated, truncated, info = env.step(0)   # start candidate 0
        if terminated or truncated:
            break
    print(info["summary"]["metrics"]["avg_jct_s"])
    env.close()

reset() starts `schedlab run --policy external` as a subprocess with policy.params.socket naming
a Unix socket the environment listens on, so every environment is its own schedlab process and
several can be stepped side by side in one Python process.

Observation (a dict, rebuilt at every call from the View):
    now         simulated time, µs
    free        free capacity per machine (fixed-point integers; view.unit is one unit)
    active      one entry per arrived, unfinished job in submit order:
                {job, submit, queue, class, priority, pending, running, remaining_estimate}
    candidates  the starts the environment offers: one per (active job, runnable stage with
                pending tasks) whose task fits somewhere, in job then stage order:
                {job, stage, demand, estimate, pending}
Action: an int i starts as many tasks of candidates[i] as fit (first fit over machines); an int
equal to len(candidates), or None, starts nothing; a Plan (or {"starts": [...], "preempts":
[...]}) is sent as it is and validated by the engine.
Reward: reward="jct" (default) gives −(seconds elapsed since the previous call × jobs active
then), so an episode's rewards sum to minus the total job completion time of completed jobs;
reward="completed" gives the jobs completed since the previous call; or pass a function
f(prev_view_snapshot, view) -> float.
info: {"view": the View, "call": n}; at the end also {"summary": summary.json as a dict}.
"""

import json
import os
import shutil
import socket
import subprocess
import tempfile

from .protocol import PROTOCOL_VERSION, Plan, View, fits

try:  # subclass gymnasium.Env when it is importable; a plain class otherwise
    import gymnasium as _gym

    _Base = _gym.Env
except ImportError:  # pragma: no cover - depends on the machine
    _Base = object


class SchedlabEnv(_Base):
    metadata = {"render_modes": []}

    def __init__(self, sets=(), schedlab="schedlab", reward="jct", accept_timeout=60.0, max_steps=None):
        self.sets = list(sets)
        self.schedlab = schedlab
        self.reward_kind = reward
        self.accept_timeout = accept_timeout
        self.max_steps = max_steps
        self.proc = None
        self.dir = None
        self.conn = None
        self.rfile = None
        self.stderr = None
        self.view = None

    # --- episode --------------------------------------------------------------------------

    def reset(self, seed=None, options=None):
        self.close()
        self.dir = tempfile.mkdtemp(prefix="schedlab-env-")
        path = os.path.join(self.dir, "s.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(1)
        srv.settimeout(self.accept_timeout)
        cmd = [self.schedlab, "run", "--quiet", "--policy", "external", "--out", os.path.join(self.dir, "out"),
               "--set", "policy.params.socket=" + path]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        for s in self.sets:
            cmd += ["--set", s]
        self.stderr = open(os.path.join(self.dir, "stderr"), "w+")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr)
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            raise RuntimeError("schedlab did not connect: " + self._stderr())
        finally:
            srv.close()
        self.conn = conn
        self.rfile = conn.makefile("rb")
        hello = self._read()
        if hello is None or hello.get("type") != "hello":
            raise RuntimeError("schedlab sent no hello: " + self._stderr())
        self.view = View(hello)
        self._send({"type": "hello", "protocol": PROTOCOL_VERSION, "name": "gym-env", "capabilities": ["machines", "preempt"]})
        self.steps = 0
        self.done = False
        msg = self._read()
        if msg is None or msg.get("type") != "schedule":
            return self._finish_obs(), {"view": self.view, "call": 0, "summary": self._summary()}
        self.view.apply(msg)
        self._snap = self._snapshot()
        return self._observe(), {"view": self.view, "call": self.view.call}

    def step(self, action):
        if self.conn is None or self.done:
            raise RuntimeError("step() without a running episode: call reset()")
        plan = self._plan(action)
        self._send({"type": "plan", "call": self.view.call, "starts": plan.starts, "preempts": plan.preempts})
        self.steps += 1
        msg = self._read()
        if msg is None or msg.get("type") == "end":
            self.done = True
            summary = self._summary()
            reward = self._reward(final=True)
            return self._finish_obs(), reward, True, False, {"view": self.view, "call": self.view.call, "summary": summary}
        if msg.get("type") != "schedule":
            raise RuntimeError("unexpected message %r" % (msg.get("type"),))
        self.view.apply(msg)
        reward = self._reward()
        truncated = self.max_steps is not None and self.steps >= self.max_steps
        obs = self._observe()
        if truncated:
            self.close()
        return obs, reward, False, truncated, {"view": self.view, "call": self.view.call}

    def close(self):
        if self.rfile is not None:
            self.rfile.close()
            self.rfile = None
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    # --- observation, action, reward ------------------------------------------------------

    def candidates(self):
        view = self.view
        out = []
        for j in view.active.values():
            for s in j.runnable_stages():
                st = j.stages[s]
                if view.first_fit(st.demand) is not None:
                    out.append({"job": j.job, "stage": s, "demand": st.demand, "estimate": st.estimate,
                                "pending": j.stage_state[s][0]})
        return out

    def _observe(self):
        view = self.view
        self._candidates = self.candidates()
        return {
            "now": view.now,
            "free": [list(f) for f in view.free],
            "active": [{"job": j.job, "submit": j.submit, "queue": j.queue, "class": j.klass, "priority": j.priority,
                        "pending": j.pending, "running": j.running, "remaining_estimate": j.remaining_estimate}
                       for j in view.active.values()],
            "candidates": self._candidates,
        }

    def _finish_obs(self):
        return {"now": self.view.now, "free": [list(f) for f in self.view.free], "active": [], "candidates": []}

    def _plan(self, action):
        if isinstance(action, Plan):
            return action
        if isinstance(action, dict):
            p = Plan()
            p.starts = [list(s) for s in action.get("starts", [])]
            p.preempts = [list(t) for t in action.get("preempts", [])]
            return p
        p = Plan()
        if action is None or action == len(self._candidates):
            return p
        c = self._candidates[int(action)]
        free = [list(f) for f in self.view.free]
        d, left = c["demand"], c["pending"]
        for m, f in enumerate(free):
            while left > 0 and fits(d, f):
                p.start(c["job"], c["stage"], m)
                f[:] = [x - y for x, y in zip(f, d)]
                left -= 1
        return p

    def _snapshot(self):
        return {"now": self.view.now, "active": len(self.view.active), "done": sum(1 for j in self.view.jobs.values() if j.done)}

    def _reward(self, final=False):
        prev = self._snap
        if final:
            # The run ended: every job still active at the last call finished after it, at
            # times the end message does not carry; summary.json has the rest.
            now = prev["now"]
        else:
            now = self.view.now
        self._snap = self._snapshot()
        if callable(self.reward_kind):
            return float(self.reward_kind(prev, self.view))
        if self.reward_kind == "completed":
            return float(self._snap["done"] - prev["done"])
        return -(now - prev["now"]) / 1e6 * prev["active"]

    # --- plumbing -------------------------------------------------------------------------

    def _read(self):
        line = self.rfile.readline()
        if not line:
            return None
        return json.loads(line)

    def _send(self, msg):
        self.conn.sendall((json.dumps(msg, separators=(",", ":")) + "\n").encode())

    def _stderr(self):
        self.stderr.flush()
        self.stderr.seek(0)
        lines = [l for l in self.stderr.read().splitlines() if l.strip()]
        return lines[-1] if lines else "(no output)"

    def _summary(self):
        if self.proc is None:
            return None
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.returncode != 0:
            raise RuntimeError("schedlab failed: " + self._stderr())
        with open(os.path.join(self.dir, "out", "summary.json")) as f:
            return json.load(f)
