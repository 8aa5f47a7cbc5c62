"""negative_binomial_log end to end, beyond what the shared likelihood tests cover (eval against
scipy, fits that recover the truth, predict's columns and metrics, bad responses; those run it
through likelihood_models.py and multilevel_models.py with the other likelihoods): what check
reports for it (the response's variance beside its mean, phi's default prior, how the exact
expectation is taken), the default prior when the config gives none, a multilevel fit with
correlated varying intercepts and slopes and an offset, and overdispersed counts held out, where
its predictive density beats the Poisson's; and, where statsmodels is installed, the
frequentist target: with vague priors on 10^5 rows the posterior means within 0.05 posterior sd
of statsmodels' NegativeBinomial estimates (phi = 1/alpha there; measured: 0.003 sd at most)."""
import json
import unittest

import numpy as np

import likelihood_models as lm

try:
    import statsmodels.api as sm
except ImportError:  # Debian's python3-statsmodels; the test says so when it skips
    sm = None
from bvi_test import BinaryTestCase, SOURCE_DIR, run

FEATURES = ["x1", "x2", "x3"]


class NegativeBinomial(BinaryTestCase):
    def test_check_reports_the_response_and_phi(self):
        with open(SOURCE_DIR + "/configs/likelihoods/negative_binomial_log.json") as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = SOURCE_DIR + "/data/lik_negative_binomial_log.csv"
        del cfg["model"]["priors"]["phi"]
        p = run(["check", self.write_config(cfg)])
        self.assertEqual(p.returncode, 0, p.stderr)
        y = np.loadtxt(cfg["data"]["csv"], delimiter=",", skiprows=1)[:, 4]
        self.assertIn("counts 0 to %d, total %d, mean %.4g, variance %.4g (%.4g x the mean)"
                      % (y.max(), y.sum(), y.mean(), y.var(ddof=1), y.var(ddof=1) / y.mean()), p.stdout)
        self.assertIn("model       negative_binomial_log, with intercept", p.stdout)
        self.assertIn("parameters  5: alpha beta.1 beta.2 beta.3 phi", p.stdout)
        self.assertIn("prior       phi ~ gamma(shape=0.01, rate=0.01) (default)", p.stdout)
        self.assertIn("expectation likelihood: Gauss-Hermite quadrature per row over (eta, log phi)", p.stdout)
        p = run(["check", self.write_config(cfg), "--explain"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["model"]["priors"]["phi"], {"gamma": {"rate": 0.01, "shape": 0.01}})

    def test_multilevel_fit_recovers_the_truth(self):
        # 3000 rows, 30 groups, correlated varying intercepts and slopes of x1, an offset and phi 2.
        rng = np.random.default_rng(8)
        n, G = 3000, 30
        x1, x2 = rng.standard_normal(n), rng.standard_normal(n)
        g = rng.integers(0, G, n)
        sd, rho = np.array([0.5, 0.3]), 0.4
        cov = np.diag(sd) @ np.array([[1, rho], [rho, 1]]) @ np.diag(sd)
        r = rng.multivariate_normal(np.zeros(2), cov, G)
        off = 0.3 * rng.standard_normal(n)
        eta = 0.6 + 0.5 * x1 - 0.3 * x2 + r[g, 0] + r[g, 1] * x1 + off
        phi = 2.0
        y = rng.negative_binomial(phi, phi / (phi + np.exp(eta)))
        with open(self.path("ml.csv"), "w") as f:
            f.write("y,x1,x2,g,off\n")
            for i in range(n):
                f.write("%d,%r,%r,g%d,%r\n" % (y[i], x1[i], x2[i], g[i], off[i]))
        cfg = {"data": {"csv": self.path("ml.csv")},
               "model": {"likelihood": "negative_binomial_log",
                         "formula": "y ~ x1 + x2 + (1 + x1 | g) + offset(off)"}}
        p = run(["fit", self.write_config(cfg), "--quiet"], timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        s = json.loads(p.stdout)
        self.assertEqual(s["method"], "exact")
        self.assertTrue(s["converged"], s.get("convergence"))
        got = {q["name"]: q for q in s["parameters"]}
        for name, truth in (("alpha", 0.6), ("beta.1", 0.5), ("beta.2", -0.3), ("phi", phi),
                            ("sd_g.1", sd[0]), ("sd_g.2", sd[1])):
            with self.subTest(parameter=name):
                self.assertLessEqual(abs(got[name]["mean"] - truth), 4 * got[name]["sd"], (got[name], truth))
        self.assertIn("cor_g.2.1", got)

    def test_overdispersed_counts_predict_better_than_poisson(self):
        train = lm.simulate("negative_binomial_log", 1000, 0.5, [0.6, -0.4, 0.2], seed=51, sigma=1.2)
        new = lm.simulate("negative_binomial_log", 500, 0.5, [0.6, -0.4, 0.2], seed=52, sigma=1.2)
        lm.write_csv(self.path("train.csv"), train)
        lm.write_csv(self.path("new.csv"), new)
        lpd = {}
        for family in ("negative_binomial_log", "poisson_log"):
            cfg = self.write_config(lm.config(family, self.path("train.csv"), FEATURES), family + ".json")
            p = run(["fit", cfg, "--quiet", "--output", self.path(family)])
            self.assertEqual(p.returncode, 0, p.stderr)
            p = run(["predict", cfg, "--fit", self.path(family), "--data", self.path("new.csv"),
                     "--metrics", self.path(family + ".m.json")])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(self.path(family + ".m.json")) as f:
                lpd[family] = json.load(f)["mean_log_predictive_density"]
        # Var y = mu + mu^2 / 1.2: the Poisson's predictive density is far too narrow.
        self.assertGreater(lpd["negative_binomial_log"], lpd["poisson_log"] + 0.2, lpd)

    @unittest.skipIf(sm is None, "needs statsmodels (Debian: python3-statsmodels)")
    def test_vague_priors_land_on_statsmodels_estimates(self):
        cols = lm.simulate("negative_binomial_log", 100000, 0.4, [0.5, -0.3, 0.2], seed=61, sigma=2.0)
        lm.write_csv(self.path("big.csv"), cols)
        cfg = lm.config("negative_binomial_log", self.path("big.csv"), FEATURES)
        cfg["model"]["priors"] = {"alpha": {"normal": {"loc": 0, "scale": 100}},
                                  "beta": {"normal": {"loc": 0, "scale": 100}},
                                  "phi": {"gamma": {"shape": 0.01, "rate": 0.01}}}
        p = run(["fit", self.write_config(cfg), "--quiet"], timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = {q["name"]: q for q in json.loads(p.stdout)["parameters"]}
        X = sm.add_constant(np.column_stack([cols[f] for f in FEATURES]))
        offset = cols["offset"] + np.log(cols["exposure"])
        res = sm.NegativeBinomial(cols["y"], X, offset=offset).fit(disp=0, maxiter=200)
        est = dict(zip(["alpha", "beta.1", "beta.2", "beta.3"], res.params[:4]))
        est["phi"] = 1.0 / res.params[-1]
        for name, value in est.items():
            with self.subTest(parameter=name):
                self.assertLessEqual(abs(got[name]["mean"] - value), 0.05 * got[name]["sd"], (got[name], value))


if __name__ == "__main__":
    unittest.main()
