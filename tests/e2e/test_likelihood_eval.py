"""bayes-vi eval --grad for every likelihood against an independent numpy/scipy log joint
(likelihood_models.py: scipy.stats logpmf/logpdf with every constant — log C(n, y), -log y!,
-log sigma - log(2 pi)/2, the negative binomial's log Gamma(y + phi) - log Gamma(phi) - log y! —
and closed-form gradients), to 1e-9 relative; with trials (zeros
included), offset and exposure together, float32 features, and standardize leaving the normal
response as it is."""
import unittest

import numpy as np

import likelihood_models as lm
from bvi_test import BinaryTestCase, read_csv_rows, run

FEATURES = ["x1", "x2", "x3"]


class EvalMatchesScipy(BinaryTestCase):
    def eval_family(self, family, dtype="float64", standardize=False, rtol=1e-9):
        cols = lm.simulate(family, 60, 0.3, [0.8, -0.5, 0.2], seed=11)
        csv = self.path(family + ".csv")
        lm.write_csv(csv, cols)
        cfg = lm.config(family, csv, FEATURES, dtype=dtype, standardize=standardize)
        names = lm.param_names(family, 3)
        rng = np.random.default_rng(3)
        points = rng.normal(0, 0.6, (4, len(names)))
        if family in lm.OWN:  # sigma, phi (and student_t's nu) > 0
            points[:, 4:] = 0.5 + np.abs(points[:, 4:])
        params = ",".join(names) + "\n" + "".join(",".join(repr(v) for v in p) + "\n" for p in points)
        p = run(["eval", self.write_config(cfg), "--grad", "--params", "-"], stdin=params)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = read_csv_rows(p.stdout)
        self.assertEqual(len(out), 4)
        ref_cols = dict(cols)
        if standardize:  # features only: centred, divided by the sample sd (ddof = 1)
            for f in FEATURES:
                ref_cols[f] = (cols[f] - cols[f].mean()) / cols[f].std(ddof=1)
        if dtype == "float32":
            for f in FEATURES:
                ref_cols[f] = ref_cols[f].astype(np.float32).astype(float)
        for row, pt in zip(out, points):
            own = pt[4:] if family in lm.OWN else [None]  # sigma or phi, then nu
            lp, grad = lm.log_joint(family, ref_cols, FEATURES, pt[0], pt[1:4], *own)
            self.assertLessEqual(abs(float(row["log_joint"]) - lp), rtol * abs(lp), (family, row["log_joint"], lp))
            for n, g in zip(names, grad):
                got = float(row["grad." + n])
                self.assertLessEqual(abs(got - g), rtol * max(1.0, np.abs(grad).max()), (family, n, got, g))

    def test_bernoulli_logit(self):
        self.eval_family("bernoulli_logit")

    def test_bernoulli_probit(self):
        self.eval_family("bernoulli_probit")

    def test_binomial_logit_with_trials(self):
        self.eval_family("binomial_logit")

    def test_poisson_log_with_offset_and_exposure(self):
        self.eval_family("poisson_log")

    def test_normal(self):
        self.eval_family("normal")

    def test_negative_binomial_log_with_offset_and_exposure(self):
        self.eval_family("negative_binomial_log")

    def test_lognormal(self):
        self.eval_family("lognormal")

    def test_gamma_log(self):
        self.eval_family("gamma_log")

    def test_beta_logit(self):
        self.eval_family("beta_logit")

    def test_student_t(self):
        self.eval_family("student_t")

    def test_parameters_outside_their_support_give_nan_without_a_sign(self):
        # phi = 0 or < 0, sigma = 0 or < 0: no density there. Whatever sign bit the arithmetic
        # leaves on a NaN, the CSV says nan (as it documents), never -nan.
        for family, name in (("negative_binomial_log", "phi"), ("normal", "sigma")):
            with self.subTest(family=family):
                cols = lm.simulate(family, 20, 0.3, [0.8, -0.5, 0.2], seed=11)
                csv = self.path(family + "_bad.csv")
                lm.write_csv(csv, cols)
                cfg = lm.config(family, csv, FEATURES)
                names = lm.param_names(family, 3)
                self.assertEqual(names[4], name)
                params = ",".join(names) + "\n0,0,0,0,0\n0,0,0,0,-1\n"
                p = run(["eval", self.write_config(cfg, family + ".json"), "--grad", "--params", "-"], stdin=params)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertNotIn("-nan", p.stdout)
                out = read_csv_rows(p.stdout)
                self.assertEqual(out[0]["log_joint"], "nan")

    def test_normal_standardize_leaves_the_response_alone(self):
        self.eval_family("normal", standardize=True)

    def test_float32_features_every_family(self):
        # The reference sees the features rounded to float; the logits are float products, so
        # each row carries ~1e-7 of relative rounding.
        for family in lm.FAMILIES:
            with self.subTest(family=family):
                self.eval_family(family, dtype="float32", rtol=2e-6)


if __name__ == "__main__":
    unittest.main()
