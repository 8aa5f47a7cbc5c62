"""negative_binomial_log against a long NUTS run on public data (the target: population
effects and the likelihood's parameter within 0.1 NUTS posterior sd, sds within 10 %).

Every fifth row of the RAND Health Insurance Experiment data as statsmodels ships it (4,038 rows:
outpatient doctor visits, mean 2.8, variance 19; 9 standardized predictors; written by
tests/reference/make_randhie.py), alpha ~ normal(0, 5), beta ~ normal(0, 2.5) and brms's
phi ~ gamma(0.01, 0.01) (tests/reference/randhie_negbin.json). The reference is rstan's NUTS with
Stan's neg_binomial_2_log, 4 chains x 5000 draws, worst R-hat 1.0005, smallest bulk ESS 18,685
(tests/reference/fixtures/randhie_negbin.nuts.json, made by tests/reference/nuts_reference.py).
The default fit (exact, fullrank) is compared: every mean, phi's included, within 0.1 NUTS sd,
every sd within 10 % (measured: 0.009 sd and 1.6 %)."""
import json
import os
import unittest

from bvi_test import SOURCE_DIR, BinaryTestCase, run

REFERENCE = os.path.join(SOURCE_DIR, "tests", "reference")


class NegativeBinomialAgainstNuts(BinaryTestCase):
    def test_default_fit_is_within_a_tenth_of_a_nuts_sd(self):
        with open(os.path.join(REFERENCE, "fixtures", "randhie_negbin.nuts.json")) as f:
            nuts = {p["name"]: p for p in json.load(f)["parameters"]}
        with open(os.path.join(REFERENCE, "randhie_negbin.json")) as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = os.path.join(REFERENCE, cfg["data"]["csv"])
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
