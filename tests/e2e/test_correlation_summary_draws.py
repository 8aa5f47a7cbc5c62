"""A correlation's summary comes from the output draws (its transform is not one column's). The
exact method's fit converts only the correlation block's columns of the draws when it writes no
draws.csv, and all of them when it does: both give the summary that numpy computes from the
cor_F.i.j column of draws.csv (mean, sd, numpy's linear 5/50/95 % quantiles), for two factors with
correlations, one of them with three effects (three correlations), and a sparse and a fullrank fit."""
import csv
import json
import os
import unittest

import numpy as np

from bvi_test import BinaryTestCase, run


def simulate(path, seed=7):
    rng = np.random.default_rng(seed)
    n_a, n_b = 30, 12
    a = rng.integers(0, n_a, 1500)
    b = rng.integers(0, n_b, 1500)
    x = rng.normal(0, 1, a.size)
    z = rng.normal(0, 1, a.size)
    ea = rng.multivariate_normal([0, 0], [[0.5, -0.15], [-0.15, 0.2]], n_a)
    eb = rng.multivariate_normal([0, 0, 0], np.diag([0.3, 0.1, 0.1]), n_b)
    eta = 0.3 + 0.5 * x - 0.2 * z + ea[a, 0] + ea[a, 1] * x + eb[b, 0] + eb[b, 1] * x + eb[b, 2] * z
    y = eta + rng.normal(0, 0.8, a.size)
    with open(path, "w") as f:
        f.write("x,z,a,b,y\n")
        for row in zip(x, z, a, b, y):
            f.write("%.6f,%.6f,a%d,b%d,%.6f\n" % row)


class CorrelationSummaryFromDraws(BinaryTestCase):
    def fit(self, algorithm, output):
        csv_path = self.path("data.csv")
        if not os.path.exists(csv_path):
            simulate(csv_path)
        cfg = {"data": {"csv": csv_path},
               "model": {"likelihood": "normal", "formula": "y ~ x + z + (1 + x | a) + (1 + x + z | b)"},
               "inference": {"algorithm": algorithm, "output_draws": 400}}
        args = ["fit", self.write_config(cfg, algorithm + ".json"), "--quiet"]
        if output:
            args += ["--output", self.path(algorithm + "_out")]
        p = run(args, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def check(self, algorithm):
        with_draws = self.fit(algorithm, True)
        without = self.fit(algorithm, False)
        self.assertEqual(with_draws["algorithm"], algorithm)
        cors = [q for q in with_draws["parameters"] if q["name"].startswith("cor_")]
        self.assertEqual(len(cors), 4)  # one for a, three for b
        # The same fit either way: every summary alike, the correlations' included.
        self.assertEqual(with_draws["parameters"], without["parameters"])
        with open(os.path.join(self.path(algorithm + "_out"), "draws.csv")) as f:
            rows = list(csv.reader(line for line in f if not line.startswith("#")))
        header, body = rows[0], np.array(rows[2:], dtype=float)  # rows[1]: the mean of q
        self.assertEqual(body.shape[0], 400)
        for q in cors:
            v = body[:, header.index(q["name"])]
            self.assertTrue(np.all(np.abs(v) < 1), q["name"])
            for key, ref in (("mean", v.mean()), ("sd", v.std(ddof=1)), ("q05", np.quantile(v, 0.05)),
                             ("q50", np.quantile(v, 0.5)), ("q95", np.quantile(v, 0.95))):
                # draws.csv holds 17 significant digits
                self.assertAlmostEqual(q[key], ref, delta=1e-12, msg=(q["name"], key))
        for q in without["parameters"]:
            if q["name"].startswith("cor_"):
                v = body[:, header.index(q["name"])]
                self.assertAlmostEqual(q["mean"], v.mean(), delta=1e-12)

    def test_sparse(self):
        self.check("sparse")

    def test_fullrank(self):
        self.check("fullrank")


if __name__ == "__main__":
    unittest.main()
