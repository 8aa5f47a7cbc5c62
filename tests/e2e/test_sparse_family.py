"""The sparse family (exact method): a Gaussian whose precision is zero where the posterior's is,
between the effects of groups that share no row. auto takes it for models with group effects it
can fit; its optimum is dense fullrank's (the same means and sds to 1e-6 of an sd on the bundled
multilevel reference problems: one factor, correlated varying slopes, three crossed factors, few
rows per group; with BVI_SLOW_TESTS=1 also 400 groups of 1 to 459 rows with varying slopes
correlated and not, where dense fullrank at P = 806 costs 35-47 CPU-s a fit: measured 5e-10 and 1e-10
sd); it contains the structured family (its ELBO at least structured's) and keeps the
sd of a logistic varying intercept with 2 to 4 rows per group; predict reads its fit; it refuses
what it cannot fit (the Monte Carlo method) with exit 78."""
import json
import os
import tempfile
import unittest

import numpy as np

from bvi_test import SOURCE_DIR, BinaryTestCase, run

REFERENCE = os.path.join(SOURCE_DIR, "tests", "reference", "multilevel")


class SparseFamily(BinaryTestCase):
    @classmethod
    def setUpClass(cls):
        cls._data = tempfile.TemporaryDirectory()
        rng = np.random.default_rng(12)
        groups, sd = 700, 1.0
        effects = rng.normal(0, sd, groups)
        g = np.repeat(np.arange(groups), rng.integers(2, 5, groups))
        x = rng.normal(0, 1, g.size)
        z = rng.normal(0, 1, g.size)
        eta = -0.3 + 0.8 * x + effects[g]
        y = (rng.random(g.size) < 1 / (1 + np.exp(-eta))).astype(int)
        cls.csv = os.path.join(cls._data.name, "weak.csv")
        with open(cls.csv, "w") as f:
            f.write("x,z,g,y\n")
            for xi, zi, gi, yi in zip(x, z, g, y):
                f.write("%.6f,%.6f,s%d,%d\n" % (xi, zi, gi, yi))

    @classmethod
    def tearDownClass(cls):
        cls._data.cleanup()

    def fit_config(self, cfg, name="config.json"):
        p = run(["fit", self.write_config(cfg, name), "--quiet"], timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def weak(self, inference, formula="y ~ x + (1 | g)"):
        return {"data": {"csv": self.csv},
                "model": {"likelihood": "bernoulli_logit", "formula": formula,
                          "priors": {"sd_g": {"half_normal": {"scale": 2}}}},
                "inference": dict(inference, output_draws=100)}

    def reference(self, name, inference):
        with open(os.path.join(REFERENCE, name + ".json")) as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = os.path.join(REFERENCE, cfg["data"]["csv"])
        cfg["inference"] = dict(inference, output_draws=100)
        return cfg

    def test_auto_takes_it_and_it_contains_structured(self):
        auto = self.fit_config(self.weak({}))
        self.assertEqual(auto["algorithm"], "sparse", auto["algorithm_choice"])
        self.assertIn("group effects", auto["algorithm_choice"])
        self.assertTrue(auto["converged"], auto["convergence"])
        structured = self.fit_config(self.weak({"algorithm": "structured"}), "structured.json")
        self.assertGreaterEqual(auto["elbo"], structured["elbo"] - 1e-6 * abs(structured["elbo"]))
        sd_g = next(q for q in auto["parameters"] if q["name"] == "sd_g.1")
        self.assertGreater(sd_g["mean"], 0.6)
        self.assertLess(sd_g["mean"], 1.4)

    def test_equals_fullrank_on_the_reference_problems(self):
        names = ["a_varying_intercept", "b_correlated_slopes", "c_crossed_logistic", "d_weak_logistic"]
        if os.environ.get("BVI_SLOW_TESTS") == "1":
            names += ["h_many_groups_correlated", "i_many_groups_uncorrelated"]
        for name in names:
            with self.subTest(name):
                tight = {"tol_grad": 1e-10, "max_iterations": 500}
                dense = self.fit_config(self.reference(name, dict(tight, algorithm="fullrank")), "dense.json")
                sparse = self.fit_config(self.reference(name, dict(tight, algorithm="sparse")), "sparse.json")
                self.assertTrue(dense["converged"] and sparse["converged"])
                self.assertEqual(sparse["elbo_se"], 0.0)  # nothing is a sample average
                # On the unconstrained scale the two are the same Gaussian; the summaries' means and
                # sds (constrained scale for the sds) follow from it. A correlation's summary comes
                # from the output draws (Monte Carlo), which the two families draw differently.
                worst = 0.0
                for d, s in zip(dense["parameters"], sparse["parameters"]):
                    self.assertEqual(d["name"], s["name"])
                    if d["name"].startswith("cor_"):
                        continue
                    worst = max(worst, abs(d["mean"] - s["mean"]) / d["sd"], abs(d["sd"] - s["sd"]) / d["sd"])
                self.assertLessEqual(worst, 1e-6, name)

    def test_predict_reads_its_fit(self):
        out = self.path("fit")
        p = run(["fit", self.write_config(self.weak({"algorithm": "sparse"})), "--quiet", "--output", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["predict", self.path("config.json"), "--fit", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.csv) as f:
            rows = sum(1 for _ in f) - 1
        self.assertEqual(len(p.stdout.strip().split("\n")), rows + 1)

    def test_correlated_slopes_are_its_own(self):
        # Two correlated effects: their prior's expectation is exact, so auto takes the sparse family.
        auto = self.fit_config(self.reference("b_correlated_slopes", {}))
        self.assertEqual(auto["algorithm"], "sparse", auto["algorithm_choice"])
        self.assertTrue(auto["converged"], auto["convergence"])
        self.assertEqual(auto["elbo_se"], 0.0)

    def test_what_it_cannot_fit(self):
        # Five or more correlated effects (an LKJ prior's sample average): test_sparse_three_effects.py.
        # The Monte Carlo method fits it with its natural optimizer only (test_monte_carlo_sparse.py).
        p = run(["fit", self.write_config(self.weak({"algorithm": "sparse", "method": "monte_carlo",
                                                     "optimizer": {"name": "adam"}})), "--quiet"])
        self.assert_error(p, 78, where="/inference/algorithm", contains="natural optimizer")


if __name__ == "__main__":
    unittest.main()
