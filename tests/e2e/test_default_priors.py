"""Default priors: a config with only the data, the response and the likelihood (or a formula)
fits; the defaults check --explain writes out are rstanarm's/brms's scales computed here from the
data with numpy (s_y = sd(y) for normal, 1 otherwise; s_x the sd of each design column); eval's
log joint with them matches a scipy reference in which the intercept's student_t prior sits on
the intercept at the column means (alpha + means . beta, brms's Intercept); and the explained
config makes the same model."""
import json
import unittest

import numpy as np
from scipy import stats

import multilevel_models as mm
from bvi_test import BinaryTestCase, read_csv_rows, run


class DefaultPriors(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.cols = mm.simulate("normal", 200, seed=21)
        self.csv = self.path("d.csv")
        mm.write_csv(self.csv, self.cols)

    def test_minimal_configs_fit(self):
        for cfg in ({"data": {"csv": self.csv, "response": "y", "features": ["x", "z"]},
                     "model": {"likelihood": "normal"}},
                    {"data": {"csv": self.csv}, "model": {"likelihood": "normal", "formula": "y ~ x + (1 | county)"}}):
            cfg["inference"] = {"max_iterations": 20, "output_draws": 20, "final_elbo_draws": 1000}
            p = run(["fit", self.write_config(cfg), "--quiet"])
            self.assertEqual(p.returncode, 0, p.stderr)

    def test_defaults_and_the_centered_intercept(self):
        cfg = {"data": {"csv": self.csv},
               "model": {"likelihood": "normal", "formula": "y ~ x * sex + (1 + x | county)"}}
        path = self.write_config(cfg)
        explain = run(["check", path, "--explain"])
        self.assertEqual(explain.returncode, 0, explain.stderr)
        priors = json.loads(explain.stdout)["model"]["priors"]
        y, x = self.cols["y"].astype(float), self.cols["x"].astype(float)
        male = (self.cols["sex"] == "male").astype(float)
        X = np.column_stack([x, male, x * male])
        sy = y.std(ddof=1)
        np.testing.assert_allclose(priors["beta"]["normal"]["scale"], 2.5 * sy / X.std(axis=0, ddof=1), rtol=1e-12)
        self.assertEqual(priors["beta"]["normal"]["loc"], 0)
        self.assertTrue(priors["alpha"]["centered"])
        self.assertEqual(priors["alpha"]["student_t"]["df"], 3)
        self.assertAlmostEqual(priors["alpha"]["student_t"]["loc"], y.mean(), delta=1e-12)
        self.assertAlmostEqual(priors["alpha"]["student_t"]["scale"], 2.5 * sy, delta=1e-12)
        self.assertAlmostEqual(priors["sigma"]["exponential"]["rate"], 1 / sy, delta=1e-12)
        self.assertEqual(priors["sd_county"]["half_student_t"]["df"], 3)
        self.assertAlmostEqual(priors["sd_county"]["half_student_t"]["scale"], 2.5 * sy, delta=1e-12)
        self.assertEqual(priors["cor_county"], {"lkj": {"eta": 1.0}})
        report = run(["check", path]).stdout
        self.assertIn("on the intercept at the feature means (centered) (default)", report)

        # eval with the defaults against scipy: the explicit-prior reference with its priors swapped.
        county = {c: i for i, c in enumerate(sorted(set(self.cols["county"])))}
        g = mm.Group("county", np.array([county[c] for c in self.cols["county"]]),
                     np.column_stack([np.ones(len(x)), x]), True)
        ref = mm.Reference("normal", {**self.cols, "y": y}, X, [g])
        rng = np.random.default_rng(2)
        points = [ref.random_point(rng) for _ in range(2)]
        p = run(["eval", path, "--params", "-"], stdin=mm.params_csv(ref.names(), points))
        self.assertEqual(p.returncode, 0, p.stderr)
        for row, pt in zip(read_csv_rows(p.stdout), points):
            beta = np.array([pt["beta.%d" % j] for j in (1, 2, 3)])
            sd = np.array([pt["sd_county.1"], pt["sd_county.2"]])
            explicit = (stats.norm.logpdf(beta, 0, ref.beta_scale).sum() + stats.norm.logpdf(pt["alpha"], 0, ref.alpha_scale)
                        + stats.halfnorm.logpdf(pt["sigma"], 0, ref.sigma_scale)
                        + stats.halfnorm.logpdf(sd, 0, ref.sd_scale).sum())
            defaults = (stats.norm.logpdf(beta, 0, 2.5 * sy / X.std(axis=0, ddof=1)).sum()
                        + stats.t.logpdf(pt["alpha"] + X.mean(axis=0) @ beta, 3, y.mean(), 2.5 * sy)
                        + stats.expon.logpdf(pt["sigma"], scale=sy)
                        + (np.log(2) + stats.t.logpdf(sd, 3, 0, 2.5 * sy)).sum())
            want = ref.log_joint(pt) - explicit + defaults
            self.assertAlmostEqual(float(row["log_joint"]), want, delta=1e-10 * abs(want))

        # The explained config is the same model.
        again = run(["eval", self.write_config(json.loads(explain.stdout), "explained.json"), "--params", "-"],
                    stdin=mm.params_csv(ref.names(), points))
        self.assertEqual(again.stdout, p.stdout)

    def test_a_term_prior_overrides_beta_for_its_coefficients(self):
        cfg = {"data": {"csv": self.csv},
               "model": {"likelihood": "normal", "formula": "y ~ x + sex",
                         "priors": {"beta": {"normal": {"loc": 0, "scale": 1}},
                                    "beta[sex]": {"normal": {"loc": 1, "scale": [0.5]}},
                                    "alpha": {"normal": {"loc": 0, "scale": 5}},
                                    "sigma": {"half_normal": {"scale": 2}}}}}
        p = run(["eval", self.write_config(cfg), "--params", "-"], stdin="alpha,beta.1,beta.2,sigma\n0.1,0.2,0.3,1.2\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        y, x = self.cols["y"].astype(float), self.cols["x"].astype(float)
        male = (self.cols["sex"] == "male").astype(float)
        want = (stats.norm.logpdf(y, 0.1 + 0.2 * x + 0.3 * male, 1.2).sum() + stats.norm.logpdf(0.2, 0, 1)
                + stats.norm.logpdf(0.3, 1, 0.5) + stats.norm.logpdf(0.1, 0, 5) + stats.halfnorm.logpdf(1.2, 0, 2))
        self.assertAlmostEqual(float(read_csv_rows(p.stdout)[0]["log_joint"]), want, delta=1e-10 * abs(want))
        # A term prior for no term, or with the wrong number of entries: 78 at the key.
        cfg["model"]["priors"]["beta[sex]"]["normal"]["scale"] = [0.5, 0.5]
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/model/priors/beta[sex]/normal/scale",
                          contains="the term 'sex' has 1 coefficients")
        del cfg["model"]["priors"]["beta[sex]"]
        cfg["model"]["priors"]["beta[z]"] = {"normal": {"loc": 0, "scale": 1}}
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/model/priors/beta[z]",
                          contains="no term 'z'")


if __name__ == "__main__":
    unittest.main()
