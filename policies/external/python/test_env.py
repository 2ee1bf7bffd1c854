"""Steps four schedlab runs side by side through SchedlabEnv (run by go test ./policies/external/
with SCHEDLAB_BIN naming a schedlab binary)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from schedlab_client.env import SchedlabEnv  # noqa: E402


class FourEnvironments(unittest.TestCase):
    def test_four_runs_side_by_side(self):
        binary = os.environ.get("SCHEDLAB_BIN")
        if not binary:
            self.skipTest("SCHEDLAB_BIN is not set")
        sets = ["workload.sample=0.04", "metrics.usage_window_s=0"]
        envs = [SchedlabEnv(sets, schedlab=binary) for _ in range(4)]
        try:
            obs = []
            for seed, env in enumerate(envs, start=1):
                o, info = env.reset(seed=seed)
                self.assertIn("candidates", o)
                obs.append(o)
            pids = {env.proc.pid for env in envs}
            self.assertEqual(len(pids), 4, "each environment runs its own schedlab")
            returns = [0.0] * 4
            steps = [0] * 4
            summaries = [None] * 4
            live = set(range(4))
            while live:  # one step of each live environment per round: truly interleaved
                for i in sorted(live):
                    action = 0 if obs[i]["candidates"] else None
                    o, reward, terminated, truncated, info = envs[i].step(action)
                    self.assertFalse(truncated)
                    obs[i] = o
                    returns[i] += reward
                    steps[i] += 1
                    if terminated:
                        summaries[i] = info["summary"]
                        live.discard(i)
            for i in range(4):
                m = summaries[i]["metrics"]
                self.assertGreater(m["jobs"], 0)
                self.assertEqual(m["completed"], m["jobs"], "greedy candidate 0 completes every job")
                self.assertGreater(steps[i], m["jobs"])
                # The default reward integrates active jobs over time: the episode's return is
                # minus the total job completion time.
                total_jct = m["avg_jct_s"] * m["completed"]
                self.assertAlmostEqual(-returns[i], total_jct, delta=1e-6 * max(1.0, total_jct))
            self.assertGreater(len({s["metrics"]["jobs"] for s in summaries} | {round(r) for r in returns}), 1,
                               "different seeds sample different workloads")
        finally:
            for env in envs:
                env.close()

    def test_plain_class_without_gymnasium(self):
        env = SchedlabEnv([])
        for name in ("reset", "step", "close"):
            self.assertTrue(callable(getattr(env, name)))


if __name__ == "__main__":
    unittest.main()
