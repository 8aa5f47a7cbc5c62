"""beta_logit end to end, beyond what the shared likelihood tests cover (eval against scipy,
fits that recover the truth, predict, responses of 0 and 1 refused; those run it through
likelihood_models.py and multilevel_models.py with the other likelihoods): what check reports
for it (phi's default prior, how the exact expectation is taken) and, where statsmodels is
installed, the frequentist target: with vague priors on 10^5 rows the posterior means
within 0.05 posterior sd of statsmodels' BetaModel (logit mean, log precision; measured with
default priors on 10^5 x 20: 0.002 sd); and against a long NUTS run on simulated data (2000 rows,
tests/reference/sim_beta.json, made by make_positive_sim.py; rstan with Stan's beta_proportion,
tests/reference/fixtures/sim_beta.nuts.json): every mean within 0.1 NUTS sd, every sd within 10 %."""
import json
import os
import unittest

import numpy as np

import likelihood_models as lm

try:
    import statsmodels.api as sm
    from statsmodels.othermod.betareg import BetaModel
except ImportError:  # Debian's python3-statsmodels; the test says so when it skips
    sm = None
from bvi_test import BinaryTestCase, SOURCE_DIR, run

FEATURES = ["x1", "x2", "x3"]


class BetaLogit(BinaryTestCase):
    def test_check_reports_phi_and_the_expectation(self):
        with open(SOURCE_DIR + "/configs/likelihoods/beta_logit.json") as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = SOURCE_DIR + "/data/lik_beta_logit.csv"
        del cfg["model"]["priors"]["phi"]
        p = run(["check", self.write_config(cfg)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("model       beta_logit, with intercept", p.stdout)
        self.assertIn("parameters  5: alpha beta.1 beta.2 beta.3 phi", p.stdout)
        self.assertIn("prior       phi ~ gamma(shape=0.01, rate=0.01) (default)", p.stdout)
        self.assertIn("expectation likelihood: a 2-D Gauss-Hermite rule per row over (eta, log phi)", p.stdout)

    @unittest.skipIf(sm is None, "needs statsmodels (Debian: python3-statsmodels)")
    def test_vague_priors_land_on_statsmodels_estimates(self):
        cols = lm.simulate("beta_logit", 100000, 0.3, [0.5, -0.3, 0.2], seed=81, sigma=6.0)
        lm.write_csv(self.path("big.csv"), cols)
        cfg = lm.config("beta_logit", self.path("big.csv"), FEATURES)
        cfg["model"]["priors"] = {"alpha": {"normal": {"loc": 0, "scale": 100}},
                                  "beta": {"normal": {"loc": 0, "scale": 100}},
                                  "phi": {"gamma": {"shape": 0.01, "rate": 0.01}}}
        cfg["inference"] = {"output_draws": 100}  # the draws' log densities are most of the time
        p = run(["fit", self.write_config(cfg), "--quiet"], timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = {q["name"]: q for q in json.loads(p.stdout)["parameters"]}
        X = sm.add_constant(np.column_stack([cols[f] for f in FEATURES]))
        res = BetaModel(cols["y"], X).fit(disp=0)
        est = dict(zip(["alpha", "beta.1", "beta.2", "beta.3"], res.params[:4]))
        est["phi"] = float(np.exp(res.params[-1]))
        for name, value in est.items():
            with self.subTest(parameter=name):
                self.assertLessEqual(abs(got[name]["mean"] - value), 0.05 * got[name]["sd"], (got[name], value))

    def test_default_fit_against_nuts(self):
        reference = os.path.join(SOURCE_DIR, "tests", "reference")
        with open(os.path.join(reference, "fixtures", "sim_beta.nuts.json")) as f:
            nuts = {p["name"]: p for p in json.load(f)["parameters"]}
        with open(os.path.join(reference, "sim_beta.json")) as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = os.path.join(reference, cfg["data"]["csv"])
        p = run(["fit", self.write_config(cfg), "--quiet"], timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        summary = json.loads(p.stdout)
        self.assertEqual((summary["method"], summary["algorithm"]), ("exact", "fullrank"))
        self.assertTrue(summary["converged"], summary["convergence"])
        self.assertEqual(sorted(q["name"] for q in summary["parameters"]), sorted(nuts))
        for q in summary["parameters"]:
            ref = nuts[q["name"]]
            with self.subTest(parameter=q["name"]):
                self.assertLessEqual(abs(q["mean"] - ref["mean"]), 0.1 * ref["sd"], (q, ref))
                self.assertLessEqual(abs(q["sd"] / ref["sd"] - 1), 0.10, (q, ref))


if __name__ == "__main__":
    unittest.main()
