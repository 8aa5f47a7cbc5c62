"""bayes-vi fit's default settings reach the exact optimum of their variational family on a small
validation suite (tests/reference/README.md): datasets from make_datasets.py, optima from
vi_optimum.py (independent Python), judged by compare_fit.py: the exact method (the default)
within 1e-6 in every mean (in reference sds) and sd (relative), and its ELBO equal to the
optimum's; the Monte Carlo natural-gradient rule, cross-checked on the same problems, within 0.1
sd and 10 %.

The config of each fit is the suite's (standardized features, intercept, Normal priors) with
only `"inference": {"algorithm": A}` (and `"method": "monte_carlo"` for the cross-check):
everything else is a default."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from bvi_fit import parse_summary, run_fit
from bvi_test import SOURCE_DIR

REFERENCE_DIR = os.path.join(SOURCE_DIR, "tests", "reference")
# Small, and each hard in its own way (make_datasets.py --list).
DATASETS = ["indep_n1000_d10", "equicorr_n1000_d10", "nearsep_n500_d5", "imbalanced_n300_d20",
            # every other likelihood, and priors taken by quadrature, by the hierarchical tilt,
            # and on a constrained sigma
            "probit_ar09_n2000_d20", "binomial_equicorr_n1000_d10", "poisson_ar09_n2000_d20",
            "normal_ar09_n2000_d20", "prior_student_t_n500_d10", "prior_laplace_n500_d20",
            "prior_hier_tau_n300_d20", "sigma_half_cauchy_n50_d5",
            # the negative binomial: its phi under brms's gamma(0.01, 0.01), a 2-D expectation per row
            "negbin_n300_d3",
            # positive responses: lognormal's sigma, gamma_log's shape under brms's gamma(0.01, 0.01)
            "lognormal_n300_d3", "gamma_n300_d3",
            # proportions: beta_logit's precision under brms's gamma(0.01, 0.01), a 2-D rule per row
            "beta_n300_d3"]
# The target for each new likelihood: the default fit within 1e-7 of the reference optimum.
NEW_LIKELIHOODS = ["negbin_n300_d3", "lognormal_n300_d3", "gamma_n300_d3", "beta_n300_d3"]
# Counts near 10^6, whose log masses are differences of terms near y log y: the exact optimizer
# stalled on the rounding of its ELBO (200 iterations meanfield, "no step improves" fullrank) until
# the expectation took those differences whole. Only the 1e-7 target, not the ELBO's equality:
# the reference's ELBO moves by 2e-6 with a finer quadrature here (make_datasets.py's quad check).
# Poisson counts near 10^8: fullrank stopped with "no step improves" 9e-4 sd off until the
# expectation's two q-dependent terms took one rounded mean - log y.
LARGE_COUNTS = ["negbin_bigcount_n300_d3", "poisson_bigcount_n2000_d5"]
NEW_LIKELIHOODS += LARGE_COUNTS
NEW_BOUND = 1e-7
FAMILIES = ["meanfield", "fullrank"]
MEAN_BOUND, SD_BOUND = 1e-6, 1e-6  # exact
MC_MEAN_BOUND, MC_SD_BOUND = 0.1, 0.10  # Monte Carlo


class DefaultsReachTheFamilyOptimum(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import numpy  # noqa: F401
            import scipy  # noqa: F401
        except ImportError as e:
            raise unittest.SkipTest("the reference optima need numpy and scipy (%s); run with "
                                    "/usr/bin/python3" % e)
        sys.path.insert(0, REFERENCE_DIR)
        try:
            import compare_fit
        finally:
            sys.path.pop(0)
        cls.compare = staticmethod(compare_fit.compare)
        cls._tmp = tempfile.TemporaryDirectory()
        cls.suite = cls._tmp.name
        # Datasets and both families' optima, once for the class. The reference's optima of these
        # datasets are stored (tests/reference/optima, written by make_datasets.py): it reuses each
        # only where the regenerated CSV, the config and the reference's version have the digests
        # recorded with it, and computes it afresh otherwise (about 60 CPU-s for all of them).
        stored = os.path.join(REFERENCE_DIR, "optima")
        for name in os.listdir(stored):
            shutil.copy(os.path.join(stored, name), cls.suite)
        p = subprocess.run([sys.executable, os.path.join(REFERENCE_DIR, "make_datasets.py"), cls.suite,
                            "--only", ",".join(DATASETS + LARGE_COUNTS), "--families", ",".join(FAMILIES)],
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            cls._tmp.cleanup()
            raise AssertionError("make_datasets.py failed: %s" % p.stderr)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def fit(self, name, family, method=None):
        with open(os.path.join(self.suite, name + ".json")) as f:
            cfg = json.load(f)
        self.assertNotIn("inference", cfg, "the suite's configs leave inference to the defaults")
        cfg["inference"] = {"algorithm": family}
        if method:
            cfg["inference"]["method"] = method
        path = os.path.join(self.suite, "%s.%s.%s.json" % (name, family, method or "default"))  # beside NAME.csv
        with open(path, "w") as f:
            json.dump(cfg, f)
        p = run_fit([path, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return parse_summary(p.stdout)

    def optimum(self, name, family):
        with open(os.path.join(self.suite, "%s.optimum.%s.json" % (name, family))) as f:
            optimum = json.load(f)
        self.assertTrue(optimum["diagnostics"]["converged"], "reference did not converge")
        return optimum

    def check(self, summary, optimum, mean_bound, sd_bound):
        res = self.compare(summary, optimum, mean_bound, sd_bound)
        self.assertLessEqual(res["max_mean_err"], mean_bound,
                             "mean of %s off by %.3g ref sd" % (res["max_mean_err_param"], res["max_mean_err"]))
        self.assertLessEqual(res["max_sd_err"], sd_bound,
                             "sd of %s off by %.3g" % (res["max_sd_err_param"], res["max_sd_err"]))

    def test_defaults_reach_the_optimum(self):
        for name in DATASETS:
            for family in FAMILIES:
                with self.subTest(dataset=name, family=family):
                    optimum = self.optimum(name, family)
                    summary = self.fit(name, family)
                    self.assertEqual((summary["algorithm"], summary["method"]), (family, "exact"))
                    self.assertTrue(summary["converged"], summary["convergence"])
                    self.check(summary, optimum, MEAN_BOUND, SD_BOUND)
                    # The same objective, computed independently: equal to within both optimizers'
                    # tolerances (the reference stops at a gradient norm of 1e-9).
                    self.assertEqual(summary["elbo_se"], 0.0)
                    self.assertAlmostEqual(summary["elbo"], optimum["elbo"], delta=1e-10 * abs(optimum["elbo"]) + 1e-7)

    def test_new_likelihoods_within_1e7(self):
        for name in NEW_LIKELIHOODS:
            for family in FAMILIES:
                with self.subTest(dataset=name, family=family):
                    summary = self.fit(name, family)
                    self.assertTrue(summary["converged"], summary["convergence"])
                    self.check(summary, self.optimum(name, family), NEW_BOUND, NEW_BOUND)

    def test_monte_carlo_natural_rule_agrees(self):
        # The stochastic rule the exact method replaced as the default, on the same problems.
        for name in DATASETS[:2]:
            for family in FAMILIES:
                with self.subTest(dataset=name, family=family):
                    summary = self.fit(name, family, "monte_carlo")
                    self.assertEqual((summary["algorithm"], summary["method"]), (family, "monte_carlo"))
                    self.assertEqual(summary["optimizer"]["name"], "natural")
                    optimum = self.optimum(name, family)
                    self.check(summary, optimum, MC_MEAN_BOUND, MC_SD_BOUND)
                    # The reference is the family's maximum: above it only by Monte Carlo noise.
                    self.assertLessEqual(summary["elbo"], optimum["elbo"] + 5 * summary["elbo_se"])


if __name__ == "__main__":
    unittest.main()
