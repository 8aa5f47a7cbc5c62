"""bayes-vi eval --grad on multilevel models against an independent numpy/scipy log joint
(multilevel_models.py: the design built by hand, scipy's norm / multivariate_normal for the group
effects, the LKJ density from the Beta law of the partial correlations), every constant included:
for every likelihood a categorical fixed effect with its interaction, correlated varying
intercepts and slopes by a string factor and varying intercepts by a numeric-ID factor; three
correlated effects (K = 3) with eta = 2; uncorrelated effects; a nested factor (combined levels);
no intercept with full dummy coding; standardized numeric variables; float32. Values to 1e-10,
gradients (correlations included, on Omega's entries) to central differences of the reference."""
import unittest

import numpy as np

import multilevel_models as mm
from bvi_test import BinaryTestCase, read_csv_rows, run

ROWS = 240


def levels(values):
    return {v: i for i, v in enumerate(sorted(set(values)))}


class MultilevelEval(BinaryTestCase):
    def check_eval(self, ref, cfg, points, rtol=1e-10, gtol=2e-5):
        names = ref.names()
        p = run(["eval", self.write_config(cfg), "--grad", "--params", "-"], stdin=mm.params_csv(names, points))
        self.assertEqual(p.returncode, 0, p.stderr)
        out = read_csv_rows(p.stdout)
        self.assertEqual(len(out), len(points))
        self.assertEqual(sorted(k[5:] for k in out[0] if k.startswith("grad.")), sorted(names))
        for row, pt in zip(out, points):
            lp = ref.log_joint(pt)
            self.assertLessEqual(abs(float(row["log_joint"]) - lp), rtol * abs(lp), (row["log_joint"], lp))
            grad = ref.gradient(pt)
            scale = max(1.0, max(abs(v) for v in grad.values()))
            for n in names:
                self.assertLessEqual(abs(float(row["grad." + n]) - grad[n]), gtol * scale,
                                     (n, row["grad." + n], grad[n]))

    def model_a(self, family, dtype="float64", standardize=False):
        """y ~ x * sex + (1 + x | county) + (1 | school)"""
        cols = mm.simulate(family, ROWS, seed=7)
        csv = self.path(family + ".csv")
        mm.write_csv(csv, cols)
        x = cols["x"].astype(float)
        if standardize:
            x = (x - x.mean()) / x.std(ddof=1)
        if dtype == "float32":
            x = x.astype(np.float32).astype(float)
        male = (cols["sex"] == "male").astype(float)
        X = np.column_stack([x, male, x * male])
        if dtype == "float32":
            X = X.astype(np.float32).astype(float)
        county = levels(cols["county"])
        school = levels(cols["school"])
        self.assertEqual(list(county), sorted(mm.COUNTIES))  # byte order: upper case before 'denver'
        groups = [mm.Group("county", np.array([county[c] for c in cols["county"]]), np.column_stack([np.ones(ROWS), x]),
                           True),
                  mm.Group("school", np.array([school[s] for s in cols["school"]]), np.ones((ROWS, 1)), True)]
        ref = mm.Reference(family, {**cols, "y": cols["y"].astype(float)}, X, groups)
        cfg = {"data": {**mm.data_section(family, csv), "dtype": dtype, "standardize": standardize},
               "model": {"likelihood": family, "formula": "y ~ x * sex + (1 + x | county) + (1 | school)",
                         "priors": mm.explicit_priors(ref, None)}}
        if family in ("poisson_log", "negative_binomial_log"):  # offset() in the formula, not data.offset
            del cfg["data"]["offset"]
            cfg["model"]["formula"] += " + offset(offset)"
        return ref, cfg

    def test_every_likelihood(self):
        rng = np.random.default_rng(1)
        for family in mm.FAMILIES:
            with self.subTest(family=family):
                ref, cfg = self.model_a(family)
                self.check_eval(ref, cfg, [ref.random_point(rng) for _ in range(2)])

    def test_float32_and_standardize(self):
        rng = np.random.default_rng(2)
        for family in ("bernoulli_logit", "normal"):
            with self.subTest(family=family, dtype="float32"):
                ref, cfg = self.model_a(family, dtype="float32")
                self.check_eval(ref, cfg, [ref.random_point(rng)], rtol=3e-6, gtol=1e-4)
            with self.subTest(family=family, standardize=True):
                ref, cfg = self.model_a(family, standardize=True)
                self.check_eval(ref, cfg, [ref.random_point(rng)])

    def test_three_correlated_effects_with_eta_2(self):
        rng = np.random.default_rng(3)
        for family in ("normal", "poisson_log"):
            with self.subTest(family=family):
                cols = mm.simulate(family, ROWS, seed=11)
                csv = self.path("k3.csv")
                mm.write_csv(csv, cols)
                x, z = cols["x"].astype(float), cols["z"].astype(float)
                county = levels(cols["county"])
                g = mm.Group("county", np.array([county[c] for c in cols["county"]]),
                             np.column_stack([np.ones(ROWS), x, z]), True, eta=2.0)
                ref = mm.Reference(family, {**cols, "y": cols["y"].astype(float)}, x[:, None], [g])
                cfg = {"data": mm.data_section(family, csv),
                       "model": {"likelihood": family, "formula": "y ~ x + (1 + x + z | county)",
                                 "priors": mm.explicit_priors(ref, None)}}
                if family == "poisson_log":
                    cfg["model"]["formula"] += " + offset(offset)"
                    del cfg["data"]["offset"]
                self.check_eval(ref, cfg, [ref.random_point(rng) for _ in range(2)])

    def test_uncorrelated_and_nested_factors(self):
        rng = np.random.default_rng(4)
        family = "bernoulli_logit"
        cols = mm.simulate(family, ROWS, seed=13)
        csv = self.path("nested.csv")
        mm.write_csv(csv, cols)
        x = cols["x"].astype(float)
        county = levels(cols["county"])
        sex = levels(cols["sex"])
        # county:sex, the combined factor of (1 | county/sex): the observed pairs in level order.
        pairs = sorted(set((county[c], sex[s]) for c, s in zip(cols["county"], cols["sex"])))
        pair = {p: i for i, p in enumerate(pairs)}
        groups = [mm.Group("county", np.array([county[c] for c in cols["county"]]),
                           np.column_stack([np.ones(ROWS), x]), False),
                  mm.Group("county_sex", np.array([pair[(county[c], sex[s])] for c, s in zip(cols["county"], cols["sex"])]),
                           np.ones((ROWS, 1)), True)]
        ref = mm.Reference(family, {**cols, "y": cols["y"].astype(float)}, x[:, None], groups[:1])
        # (1 + x || county) alone, then with the nested factor.
        cfg = {"data": {"csv": csv}, "model": {"likelihood": family, "formula": "y ~ x + (1 + x || county)",
                                              "priors": mm.explicit_priors(ref, None)}}
        self.check_eval(ref, cfg, [ref.random_point(rng)])
        ref2 = mm.Reference(family, {**cols, "y": cols["y"].astype(float)}, x[:, None], [groups[1]])
        cfg2 = {"data": {"csv": csv}, "model": {"likelihood": family, "formula": "y ~ x + (1 | county/sex)",
                                               "priors": mm.explicit_priors(ref2, None)}}
        # (1 | county/sex) = (1 | county) + (1 | county:sex): both factors, varying intercepts.
        g_county = mm.Group("county", np.array([county[c] for c in cols["county"]]), np.ones((ROWS, 1)), True)
        ref3 = mm.Reference(family, {**cols, "y": cols["y"].astype(float)}, x[:, None], [g_county, groups[1]])
        cfg2["model"]["priors"] = mm.explicit_priors(ref3, None)
        self.check_eval(ref3, cfg2, [ref3.random_point(rng)])

    def test_no_intercept_codes_every_level(self):
        rng = np.random.default_rng(5)
        family = "normal"
        cols = mm.simulate(family, ROWS, seed=17)
        csv = self.path("noint.csv")
        mm.write_csv(csv, cols)
        x = cols["x"].astype(float)
        female, male = (cols["sex"] == "female").astype(float), (cols["sex"] == "male").astype(float)
        school = levels(cols["school"])
        X = np.column_stack([female, male, x * female, x * male])
        g = mm.Group("school", np.array([school[s] for s in cols["school"]]), np.column_stack([x]), True)
        ref = mm.Reference(family, {**cols, "y": cols["y"].astype(float)}, X, [g], intercept=False)
        cfg = {"data": {"csv": csv, "categorical": ["school"]},
               "model": {"likelihood": family, "formula": "y ~ 0 + sex + x:sex + (0 + x | school)",
                         "priors": mm.explicit_priors(ref, None)}}
        self.check_eval(ref, cfg, [ref.random_point(rng) for _ in range(2)])
        # The coefficients' labels, in R's order.
        summary = run(["check", self.write_config(cfg)]).stdout
        self.assertIn("features    sex[female] sex[male] x:sex[female] x:sex[male]\n", summary)

    def test_correlations_that_make_no_correlation_matrix(self):
        # cor 0.9, 0.9, -0.9 for K = 3 is not positive definite: exit 65 at the params row.
        cols = mm.simulate("normal", 60, seed=3)
        csv = self.path("bad.csv")
        mm.write_csv(csv, cols)
        cfg = {"data": {"csv": csv}, "model": {"likelihood": "normal", "formula": "y ~ (1 + x + z | county)"}}
        x = cols["x"].astype(float)
        county = levels(cols["county"])
        g = mm.Group("county", np.array([county[c] for c in cols["county"]]),
                     np.column_stack([np.ones(60), x, x]), True)
        ref = mm.Reference("normal", {**cols, "y": cols["y"].astype(float)}, np.zeros((60, 0)), [g])
        point = ref.random_point(np.random.default_rng(1))
        point.update({"cor_county.2.1": 0.9, "cor_county.3.1": 0.9, "cor_county.3.2": -0.9})
        p = run(["eval", self.write_config(cfg), "--params", "-"], stdin=mm.params_csv(ref.names(), [point, point]))
        self.assert_error(p, 65, where="<stdin>:2", contains="make no correlation matrix")

    def test_lkj_references_agree(self):
        # The two routes to the LKJ density of the reference module: the Beta law of the partial
        # correlations and Lewandowski et al.'s closed form; K = 2 is the Beta density itself.
        rng = np.random.default_rng(6)
        for K in (2, 3, 4):
            for eta in (0.7, 1.0, 2.5):
                A = rng.standard_normal((K, K + 1))
                S = A @ A.T
                d = np.sqrt(np.diag(S))
                L = np.linalg.cholesky(S / np.outer(d, d))
                self.assertAlmostEqual(mm.lkj_cholesky_logpdf(L, eta), mm.lkj_closed_form(L, eta), delta=1e-10)
                if K == 2:
                    from scipy import stats
                    r = L[1, 0]
                    self.assertAlmostEqual(mm.lkj_cholesky_logpdf(L, eta),
                                           stats.beta.logpdf((r + 1) / 2, eta, eta) - np.log(2), delta=1e-12)
        # The volume of the 3 x 3 correlation matrices is pi^2 / 2: LKJ(1) is 2 / pi^2 there.
        self.assertAlmostEqual(mm.lkj_closed_form(np.eye(3), 1.0), np.log(2 / np.pi ** 2), delta=1e-12)


if __name__ == "__main__":
    unittest.main()
