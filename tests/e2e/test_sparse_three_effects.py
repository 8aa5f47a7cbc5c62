"""Three correlated group effects, `(1 + x + z | g)`: their prior's expectation is exact (Gaussian
tilts for r' W r, one Gauss-Hermite integral per correlation, models/correlated_tilt.hpp), so the
sparse family fits them, auto takes it, its optimum is dense fullrank's (means and sds within 1e-6
of an sd) for a normal and a logistic likelihood, and the fit converges noise-free (elbo_se 0; a
few dozen iterations for the normal likelihood, about a hundred for the logistic one). Five
correlated effects (11041 tilt terms per group) are left to the sample average: sparse refuses
them with exit 78 and auto takes another family."""
import json
import os
import tempfile
import unittest

import numpy as np

from bvi_test import BinaryTestCase, run


def simulate(path, family, groups, seed):
    rng = np.random.default_rng(seed)
    sd = np.array([0.8, 0.5, 0.4])
    R = np.array([[1.0, -0.4, 0.3], [-0.4, 1.0, 0.2], [0.3, 0.2, 1.0]])
    cov = np.diag(sd) @ R @ np.diag(sd)
    effects = rng.multivariate_normal(np.zeros(3), cov, groups)
    g = np.repeat(np.arange(groups), rng.integers(3, 12, groups))
    x = rng.normal(0, 1, g.size)
    z = rng.normal(0, 1, g.size)
    w = rng.normal(0, 1, g.size)
    eta = 0.2 + 0.5 * x - 0.3 * z + effects[g, 0] + effects[g, 1] * x + effects[g, 2] * z
    if family == "normal":
        y = eta + rng.normal(0, 0.7, g.size)
    else:
        y = (rng.random(g.size) < 1 / (1 + np.exp(-eta))).astype(int)
    with open(path, "w") as f:
        f.write("x,z,w,g,y\n")
        for row in zip(x, z, w, g, y):
            f.write("%.6f,%.6f,%.6f,g%d,%s\n" % (row[0], row[1], row[2], row[3], row[4]))


class SparseThreeEffects(BinaryTestCase):
    @classmethod
    def setUpClass(cls):
        cls._data = tempfile.TemporaryDirectory()
        cls.csv = {}
        for family, seed in (("normal", 3), ("bernoulli_logit", 4)):
            cls.csv[family] = os.path.join(cls._data.name, family + ".csv")
            simulate(cls.csv[family], family, 60, seed)

    @classmethod
    def tearDownClass(cls):
        cls._data.cleanup()

    def config(self, family, inference, formula="y ~ x + z + (1 + x + z | g)"):
        return {"data": {"csv": self.csv[family]},
                "model": {"likelihood": family, "formula": formula},
                "inference": dict(inference, output_draws=100)}

    def fit_config(self, cfg, name="config.json"):
        p = run(["fit", self.write_config(cfg, name), "--quiet"], timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_sparse_equals_fullrank(self):
        for family in ("normal", "bernoulli_logit"):
            with self.subTest(family):
                tight = {"tol_grad": 1e-10, "max_iterations": 500}
                dense = self.fit_config(self.config(family, dict(tight, algorithm="fullrank")), "dense.json")
                sparse = self.fit_config(self.config(family, dict(tight, algorithm="sparse")), "sparse.json")
                self.assertTrue(dense["converged"], dense["convergence"])
                self.assertTrue(sparse["converged"], sparse["convergence"])
                self.assertEqual(sparse["elbo_se"], 0.0)  # nothing is a sample average
                self.assertEqual(dense["elbo_se"], 0.0)
                # Normal: about 30 iterations. Logistic with 3 to 11 rows per group: about 100 at this
                # tolerance (the same data with uncorrelated effects, `||`, takes about 75).
                self.assertLessEqual(sparse["iterations"], 60 if family == "normal" else 150)
                worst = 0.0
                names = 0
                for d, s in zip(dense["parameters"], sparse["parameters"]):
                    self.assertEqual(d["name"], s["name"])
                    # A correlation's summary comes from the output draws, drawn differently.
                    if d["name"].startswith("cor_"):
                        continue
                    names += 1
                    worst = max(worst, abs(d["mean"] - s["mean"]) / d["sd"], abs(d["sd"] - s["sd"]) / d["sd"])
                self.assertGreater(names, 180)
                self.assertLessEqual(worst, 1e-6, family)
                self.assertAlmostEqual(sparse["elbo"], dense["elbo"], delta=1e-8 * abs(dense["elbo"]))

    def test_auto_takes_sparse(self):
        auto = self.fit_config(self.config("bernoulli_logit", {}))
        self.assertEqual(auto["algorithm"], "sparse", auto["algorithm_choice"])
        self.assertTrue(auto["converged"], auto["convergence"])
        self.assertEqual(auto["elbo_se"], 0.0)

    def test_five_effects_are_left_to_the_sample_average(self):
        five = "y ~ x + (1 + x + z + w + x:z | g)"
        auto = self.fit_config(self.config("normal", {"max_iterations": 3}, five))
        self.assertNotEqual(auto["algorithm"], "sparse")
        p = run(["fit", self.write_config(self.config("normal", {"algorithm": "sparse"}, five)), "--quiet"])
        self.assert_error(p, 78, where="/inference/algorithm", contains="five or more correlated")


if __name__ == "__main__":
    unittest.main()
