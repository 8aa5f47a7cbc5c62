"""lognormal and gamma_log end to end, beyond what the shared likelihood tests cover (eval against
scipy, fits that recover the truth, predict's columns and metrics, bad responses; those run them
through likelihood_models.py and multilevel_models.py with the other likelihoods): what check
reports for them (log y's mean and sd beside y's, the default priors, how the exact expectation
is taken), the default priors when the config gives none (lognormal's are the normal
likelihood's on log y), a multilevel gamma fit with a varying intercept; and, where statsmodels is
installed, the frequentist target: with vague priors on 10^5 rows the posterior means
within 0.05 posterior sd of statsmodels' GLM Gamma (log link) coefficients and of the shape's
maximum-likelihood estimate (statsmodels' own scale is Pearson's moment estimate, not the ML
one, so the shape's is computed here with scipy at statsmodels' coefficients), and of OLS on
log y for lognormal (sigma's ML estimate sqrt(RSS / n))."""
import json
import unittest

import numpy as np
from scipy import optimize, special

import likelihood_models as lm

try:
    import statsmodels.api as sm
except ImportError:  # Debian's python3-statsmodels; the test says so when it skips
    sm = None
from bvi_test import BinaryTestCase, SOURCE_DIR, run

FEATURES = ["x1", "x2", "x3"]


def example(family):
    with open(SOURCE_DIR + "/configs/likelihoods/%s.json" % family) as f:
        cfg = json.load(f)
    cfg["data"]["csv"] = SOURCE_DIR + "/data/lik_%s.csv" % family
    return cfg


class PositiveLikelihoods(BinaryTestCase):
    def check_report(self, family, own, expectation):
        cfg = example(family)
        del cfg["model"]["priors"]
        p = run(["check", self.write_config(cfg)])
        self.assertEqual(p.returncode, 0, p.stderr)
        y = np.loadtxt(cfg["data"]["csv"], delimiter=",", skiprows=1)[:, 3]
        ly = np.log(y)
        self.assertIn("mean %.4g, sd %.4g, range %.4g to %.4g" % (y.mean(), y.std(ddof=1), y.min(), y.max()), p.stdout)
        self.assertIn("log y       mean %.4g, sd %.4g (geometric mean %.4g)" % (ly.mean(), ly.std(ddof=1),
                                                                            np.exp(ly.mean())), p.stdout)
        self.assertIn("model       %s, with intercept" % family, p.stdout)
        self.assertIn("parameters  5: alpha beta.1 beta.2 beta.3 %s" % own, p.stdout)
        self.assertIn("expectation likelihood: " + expectation, p.stdout)
        p = run(["check", self.write_config(cfg), "--explain"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)["model"]["priors"], ly

    def test_check_lognormal_and_its_default_priors_on_log_y(self):
        priors, ly = self.check_report("lognormal", "sigma", "closed form")
        s = ly.std(ddof=1)
        self.assertAlmostEqual(priors["sigma"]["exponential"]["rate"], 1 / s, delta=1e-12 / s)
        t = priors["alpha"]["student_t"]
        self.assertAlmostEqual(t["loc"], ly.mean(), delta=1e-12)
        self.assertAlmostEqual(t["scale"], 2.5 * s, delta=1e-12)

    def test_check_gamma_log_and_brms_default_shape_prior(self):
        priors, _ = self.check_report("gamma_log", "shape",
                                      "closed form in eta, one Gauss-Hermite rule in log shape")
        self.assertEqual(priors["shape"], {"gamma": {"rate": 0.01, "shape": 0.01}})

    def test_default_priors_fit(self):
        for family in ("lognormal", "gamma_log"):
            with self.subTest(family=family):
                cfg = example(family)
                del cfg["model"]["priors"]
                p = run(["fit", self.write_config(cfg), "--quiet"])
                self.assertEqual(p.returncode, 0, p.stderr)
                s = json.loads(p.stdout)
                self.assertTrue(s["converged"], s.get("convergence"))
                got = {q["name"]: q for q in s["parameters"]}
                # make_likelihood_data.py: alpha 0.5, beta (1, -0.5, 0.25), sigma 0.6 or shape 2
                truth = {"alpha": 0.5, "beta.1": 1.0, "beta.2": -0.5, "beta.3": 0.25,
                         ("sigma" if family == "lognormal" else "shape"): 0.6 if family == "lognormal" else 2.0}
                for name, t in truth.items():
                    self.assertLessEqual(abs(got[name]["mean"] - t), 4 * got[name]["sd"], (name, got[name], t))

    def test_multilevel_gamma_fit_recovers_the_truth(self):
        rng = np.random.default_rng(9)
        n, G = 3000, 25
        x1 = rng.standard_normal(n)
        g = rng.integers(0, G, n)
        r = 0.4 * rng.standard_normal(G)
        eta = 1.0 + 0.5 * x1 + r[g]
        shape = 3.0
        y = rng.gamma(shape, np.exp(eta) / shape)
        with open(self.path("ml.csv"), "w") as f:
            f.write("y,x1,g\n")
            for i in range(n):
                f.write("%r,%r,g%d\n" % (y[i], x1[i], g[i]))
        cfg = {"data": {"csv": self.path("ml.csv")},
               "model": {"likelihood": "gamma_log", "formula": "y ~ x1 + (1 | g)"}}
        p = run(["fit", self.write_config(cfg), "--quiet"], timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        s = json.loads(p.stdout)
        self.assertEqual(s["method"], "exact")
        self.assertTrue(s["converged"], s.get("convergence"))
        got = {q["name"]: q for q in s["parameters"]}
        for name, truth in (("alpha", 1.0), ("beta", 0.5), ("shape", shape), ("sd_g", 0.4)):
            name = name if name in got else name + ".1"
            with self.subTest(parameter=name):
                self.assertLessEqual(abs(got[name]["mean"] - truth), 4 * got[name]["sd"], (got[name], truth))

    def vague_fit(self, family, cols, own_prior):
        lm.write_csv(self.path("big.csv"), cols)
        cfg = lm.config(family, self.path("big.csv"), FEATURES)
        cfg["model"]["priors"] = {"alpha": {"normal": {"loc": 0, "scale": 100}},
                                  "beta": {"normal": {"loc": 0, "scale": 100}}, **own_prior}
        p = run(["fit", self.write_config(cfg), "--quiet"], timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        return {q["name"]: q for q in json.loads(p.stdout)["parameters"]}

    def assert_close(self, got, est):
        for name, value in est.items():
            with self.subTest(parameter=name):
                self.assertLessEqual(abs(got[name]["mean"] - value), 0.05 * got[name]["sd"], (got[name], value))

    @unittest.skipIf(sm is None, "needs statsmodels (Debian: python3-statsmodels)")
    def test_gamma_vague_priors_land_on_statsmodels_estimates(self):
        cols = lm.simulate("gamma_log", 100000, 0.4, [0.5, -0.3, 0.2], seed=71, sigma=2.0)
        got = self.vague_fit("gamma_log", cols, {"shape": {"gamma": {"shape": 0.01, "rate": 0.01}}})
        X = sm.add_constant(np.column_stack([cols[f] for f in FEATURES]))
        res = sm.GLM(cols["y"], X, family=sm.families.Gamma(sm.families.links.Log())).fit()
        est = dict(zip(["alpha", "beta.1", "beta.2", "beta.3"], res.params))
        # The shape's ML estimate at the GLM's mean: n (log k + 1 - psi(k)) + sum(log(y / mu) - y / mu) = 0.
        ratio = cols["y"] / res.fittedvalues
        t = np.mean(np.log(ratio) - ratio)
        est["shape"] = optimize.brentq(lambda k: np.log(k) + 1 - special.digamma(k) + t, 1e-3, 1e4, xtol=1e-14)
        self.assert_close(got, est)

    @unittest.skipIf(sm is None, "needs statsmodels (Debian: python3-statsmodels)")
    def test_lognormal_vague_priors_land_on_ols_of_log_y(self):
        cols = lm.simulate("lognormal", 100000, 0.4, [0.5, -0.3, 0.2], seed=72, sigma=0.7)
        got = self.vague_fit("lognormal", cols, {"sigma": {"half_normal": {"scale": 100}}})
        X = sm.add_constant(np.column_stack([cols[f] for f in FEATURES]))
        res = sm.OLS(np.log(cols["y"]), X).fit()
        est = dict(zip(["alpha", "beta.1", "beta.2", "beta.3"], res.params))
        est["sigma"] = np.sqrt(res.ssr / len(cols["y"]))
        self.assert_close(got, est)


if __name__ == "__main__":
    unittest.main()
