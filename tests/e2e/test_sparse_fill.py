"""The sparse family's Cholesky factor against the memory budget. Crossed factors fill the factor
in (a users x items design: eliminating the users joins the items they share), and how much is known
only once the rows are read. check counts the factor's non-zeros; a fit whose factor the budget
cannot hold falls back to the structured family when auto chose sparse (algorithm_choice and a
warning say why) and stops with exit 71 and one line when the config asked for sparse. The budget
is set with BAYES_VI_MEMORY_LIMIT (a malformed one is a usage error, exit 64)."""
import json
import os
import re
import subprocess
import tempfile
import unittest

import numpy as np

from bvi_test import BINARY, BinaryTestCase

ESTIMATE = re.compile(r"fit would need about ([0-9.]+) (MB|GB) at peak")
FACTOR = re.compile(r"precision   sparse: (\d+) values on the pattern .*\), (\d+) in its Cholesky factor")


def run_limited(args, limit=None):
    env = dict(os.environ)
    env.pop("BAYES_VI_SKIP_MEMORY_CHECK", None)
    env.pop("BAYES_VI_MEMORY_LIMIT", None)
    if limit is not None:
        env["BAYES_VI_MEMORY_LIMIT"] = str(limit)
    return subprocess.run([BINARY] + args, capture_output=True, text=True, timeout=600, env=env)


class SparseFill(BinaryTestCase):
    @classmethod
    def setUpClass(cls):
        # 6 000 users x 3 000 items, 15 items per user: the items' block of the factor fills in
        # (about 4.4 million non-zeros, 88 MB), while the pattern itself is 0.13 million values.
        cls._data = tempfile.TemporaryDirectory()
        rng = np.random.default_rng(7)
        users, items, per_user = 6000, 3000, 15
        u = np.repeat(np.arange(users), per_user)
        i = rng.integers(0, items, u.size)
        x = rng.normal(0, 1, u.size)
        eta = -0.2 + 0.5 * x + rng.normal(0, 0.5, users)[u] + rng.normal(0, 0.5, items)[i]
        y = (rng.random(u.size) < 1 / (1 + np.exp(-eta))).astype(int)
        cls.csv = os.path.join(cls._data.name, "ratings.csv")
        with open(cls.csv, "w") as f:
            f.write("x,user,item,y\n")
            f.writelines("%.5f,u%d,i%d,%d\n" % row for row in zip(x, u, i, y))

    @classmethod
    def tearDownClass(cls):
        cls._data.cleanup()

    def config(self, algorithm):
        return self.write_config({
            "data": {"csv": self.csv},
            "model": {"formula": "y ~ x + (1 | user) + (1 | item)", "likelihood": "bernoulli_logit"},
            "inference": {"algorithm": algorithm, "max_iterations": 3, "output_draws": 10}},
            name=algorithm + ".json")

    def check(self, cfg, limit=None):
        p = run_limited(["check", cfg], limit)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def test_check_counts_the_fill_in(self):
        p = self.check(self.config("auto"))
        m = FACTOR.search(p.stdout)
        self.assertIsNotNone(m, p.stdout)
        values, factor = int(m.group(1)), int(m.group(2))
        # The pattern: its lower triangle is about half of it; the factor holds far more.
        self.assertGreater(factor, 5 * values)
        self.assertGreater(factor, 4 * 10**6)

    def test_a_factor_over_the_budget(self):
        auto, asked = self.config("auto"), self.config("sparse")
        free = self.check(auto)
        values, factor = (int(v) for v in FACTOR.search(free.stdout).groups())
        value, unit = ESTIMATE.search(free.stderr).groups()
        estimate = float(value) * (1e9 if unit == "GB" else 1e6)
        # Room for the estimate, not for the factor's fill-in (20 bytes per non-zero beyond the
        # pattern, which the estimate holds).
        limit = int(estimate + 20e6)
        self.assertLess(limit - estimate, 20 * (factor - values), "the limit must leave too little for the factor")

        p = self.check(auto, limit)
        self.assertIn("structured (auto: structured, since the sparse family would not fit in memory", p.stdout)
        p = self.check(asked, limit)
        self.assertIn("(fit would stop with exit 71)", p.stdout)
        self.assertIn("under BAYES_VI_MEMORY_LIMIT of", p.stderr)

        out = self.path("out")
        p = run_limited(["fit", auto, "--threads", "1", "--output", out], limit)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("the sparse family does not fit: its Cholesky factor would hold more than", p.stderr)
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        self.assertEqual(summary["algorithm"], "structured")
        self.assertIn("sparse family would not fit in memory", summary["algorithm_choice"])

        p = run_limited(["fit", asked, "--threads", "1", "--output", self.path("asked")], limit)
        self.assert_error(p, 71, "memory", "the sparse family does not fit this model: its Cholesky factor")
        self.assertIn('"algorithm": "structured"', p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.path("asked"), "summary.json")))

    def test_a_malformed_limit_is_a_usage_error(self):
        for bad in ["abc", "-1GB", "0", "5 parsecs", "1e999"]:
            with self.subTest(limit=bad):
                p = run_limited(["check", self.config("auto")], bad)
                self.assert_error(p, 64, "command line", "BAYES_VI_MEMORY_LIMIT must be a positive size")

    def test_a_generous_limit_keeps_the_sparse_family(self):
        p = self.check(self.config("auto"), "7.5GiB")
        self.assertIsNotNone(FACTOR.search(p.stdout), p.stdout)
        self.assertIn("may use 8.05 GB under BAYES_VI_MEMORY_LIMIT of 8.05 GB", p.stderr)


if __name__ == "__main__":
    unittest.main()
