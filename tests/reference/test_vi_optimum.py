#!/usr/bin/python3
"""Validation of vi_optimum.py (plain unittest):

    /usr/bin/python3 tests/reference/test_vi_optimum.py

* reproduces the seed notebook's mean-field optimum (shared/data/seed_meanfield_optimum.csv,
  copied to fixtures/) and its ELBO -73.779;
* the 1-D quadrature (value and both derivatives) against scipy's adaptive quadrature;
* analytic gradients against central finite differences, both families, both quadrature regimes;
* the ELBO constants: equal to a Monte Carlo average of log p(y, theta) - log q(theta) with
  scipy.stats densities, and below log p(y) computed by 2-D numerical integration;
* fullrank ELBO >= meanfield ELBO on a strongly correlated design;
* config handling (standardize with ddof=1, intercept, per-coefficient prior arrays, missing prior).
"""

import csv
import json
import math
import os
import sys
import tempfile
import unittest
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # tiny matrices: threads only cost time
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
from scipy import integrate, special, stats

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import vi_optimum as vo  # noqa: E402
import compare_fit  # noqa: E402

SEED_CSV = os.path.join(REPO, "data", "seed_logistic.csv")
SEED_OPT = os.path.join(HERE, "fixtures", "seed_meanfield_optimum.csv")


def write_dataset(folder, name, X, y, priors, intercept, standardize):
    path = os.path.join(folder, name + ".csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["x%d" % (j + 1) for j in range(X.shape[1])] + ["y"])
        for row, yy in zip(X, y):
            w.writerow([repr(float(v)) for v in row] + [int(yy)])
    cfg = {"data": {"csv": name + ".csv", "response": "y", "standardize": standardize},
           "model": {"likelihood": "bernoulli_logit", "intercept": intercept, "priors": priors}}
    cpath = os.path.join(folder, name + ".json")
    with open(cpath, "w") as f:
        json.dump(cfg, f)
    return cpath


def simulate(rng, N, D, corr=0.0, beta_scale=1.0, alpha=0.0):
    C = corr ** np.abs(np.subtract.outer(np.arange(D), np.arange(D)))
    X = rng.standard_normal((N, D)) @ np.linalg.cholesky(C).T
    beta = beta_scale * rng.standard_normal(D)
    y = (rng.random(N) < special.expit(alpha + X @ beta)).astype(int)
    return X, y


def seed_config(folder):
    cfg = {"data": {"csv": SEED_CSV, "response": "y", "standardize": False},
           "model": {"likelihood": "bernoulli_logit", "intercept": False,
                     "priors": {"beta": {"normal": {"loc": 0, "scale": 10}}}}}
    path = os.path.join(folder, "seed.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


class TestSeedReproduction(unittest.TestCase):
    def test_seed_meanfield_optimum(self):
        with tempfile.TemporaryDirectory() as d:
            out = vo.solve(seed_config(d), "meanfield")
        self.assertLess(out["grad_norm"], 1e-8)
        with open(SEED_OPT) as f:
            ref = {r["name"]: (float(r["mean"]), float(r["sd"])) for r in csv.DictReader(f)}
        self.assertEqual([p["name"] for p in out["parameters"]], list(ref))
        err_m = max(abs(p["mean"] - ref[p["name"]][0]) for p in out["parameters"])
        err_s = max(abs(p["sd"] - ref[p["name"]][1]) for p in out["parameters"])
        # the reference file is rounded to 6 decimals
        self.assertLess(err_m, 1e-5)
        self.assertLess(err_s, 1e-5)
        self.assertAlmostEqual(out["elbo"], -73.779, delta=5e-4)
        # notebook's entropy omits D/2 + D log(2 pi): it prints about -97.16
        self.assertAlmostEqual(out["elbo"] - 5 - 10 * math.log(2 * math.pi), -97.16, delta=5e-3)

    def test_seed_fullrank_beats_meanfield(self):
        with tempfile.TemporaryDirectory() as d:
            cfg = seed_config(d)
            mf = vo.solve(cfg, "meanfield")
            fr = vo.solve(cfg, "fullrank")
        self.assertLess(fr["grad_norm"], 1e-8)
        self.assertGreaterEqual(fr["elbo"], mf["elbo"])


class TestQuadrature(unittest.TestCase):
    """F(mu, s) = E log sigmoid(mu + s z) and derivatives against scipy.integrate.quad."""

    @staticmethod
    def adaptive(fun, mu, s):
        # breakpoints around the point where mu + s z = 0 and the scale 1/s of log-sigmoid
        z0 = -mu / s
        pts = sorted({-13.0, 13.0, *[z0 + k / s for k in (-8, -3, -1, 0, 1, 3, 8)]})
        pts = [p for p in pts if -13.0 <= p <= 13.0]
        tot = 0.0
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        for a, b in zip(pts[:-1], pts[1:]):
            tot += integrate.quad(lambda z: fun(mu + s * z, z) * math.exp(-0.5 * z * z),
                                  a, b, epsabs=1e-15, epsrel=1e-13, limit=200)[0]
        return tot / math.sqrt(2 * math.pi)

    def test_against_adaptive_quadrature(self):
        q = vo.Quadrature()
        logsig = lambda x, z: -np.logaddexp(0.0, -x)
        dmu = lambda x, z: special.expit(-x)
        ds = lambda x, z: z * special.expit(-x)
        worst = [0.0, 0.0, 0.0]
        for s in (0.05, 0.3, 0.6, 0.9, 1.0, 1.01, 1.5, 2.5, 4.0, 8.0, 20.0, 50.0):
            for mu in (-40.0, -7.0, -2.0, -0.5, 0.0, 0.3, 1.5, 5.0, 40.0):
                F, Fm, Fs = q(np.array([mu]), np.array([s]))
                for k, (fun, val) in enumerate(((logsig, F[0]), (dmu, Fm[0]), (ds, Fs[0]))):
                    ref = self.adaptive(fun, mu, s)
                    worst[k] = max(worst[k], abs(val - ref) / max(1.0, abs(ref)))
        self.assertLess(worst[0], 1e-12, worst)
        self.assertLess(worst[1], 1e-12, worst)
        self.assertLess(worst[2], 1e-12, worst)

    def test_node_count_refinement(self):
        coarse, fine = vo.Quadrature(), vo.Quadrature(refine=3)
        mu = np.linspace(-20, 20, 81)
        for s in (0.05, 0.2, 0.3, 0.31, 0.6, 0.61, 0.7, 1.0, 1.3, 3.0, 30.0):
            a = coarse(mu, np.full_like(mu, s))[0]
            b = fine(mu, np.full_like(mu, s))[0]
            self.assertLess(np.max(np.abs(a - b)), 1e-12, s)


class TestGradients(unittest.TestCase):
    """Analytic gradients against central differences, at points where rows fall in both
    quadrature regimes (logit sd below and above the switch)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        rng = np.random.default_rng(20240611)
        X, y = simulate(rng, 60, 4, corr=0.6, alpha=0.5)
        X = X * np.array([1.0, 3.0, 0.5, 2.0]) + np.array([0.0, 1.0, -2.0, 5.0])
        priors = {"alpha": {"normal": {"loc": 0.5, "scale": 10}},
                  "beta": {"normal": {"loc": [0, 0.1, -0.2, 0], "scale": [2.5, 1.0, 3.0, 2.5]}}}
        cls.cfg = write_dataset(cls.tmp.name, "grad", X, y, priors, True, True)
        cls.prob = vo.load_problem(cls.cfg)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def fd_check(self, fam, x):
        f0, g = fam.elbo(x)
        num = np.empty_like(x)
        for i in range(x.size):
            h = 1e-5 * max(1.0, abs(x[i]))
            xp, xm = x.copy(), x.copy()
            xp[i] += h
            xm[i] -= h
            num[i] = (fam.elbo(xp, grad=False)[0] - fam.elbo(xm, grad=False)[0]) / (2 * h)
        err = np.max(np.abs(num - g) / np.maximum(1.0, np.abs(g)))
        self.assertLess(err, 1e-7, (g, num))
        return f0

    def regimes(self, s):
        self.assertTrue(np.any(s <= 1.0) and np.any(s > 1.0), "test point must hit both rules")

    def test_meanfield_fd(self):
        rng = np.random.default_rng(1)
        fam = vo.MeanField(self.prob, vo.Quadrature())
        P = self.prob.P
        for sd_level in (-0.8, -0.5):
            x = np.concatenate([rng.normal(0, 1, P), sd_level + 0.3 * rng.standard_normal(P)])
            self.regimes(np.sqrt(self.prob.X2 @ np.exp(2 * x[P:])))
            self.fd_check(fam, x)

    def test_fullrank_fd(self):
        rng = np.random.default_rng(2)
        fam = vo.FullRank(self.prob, vo.Quadrature())
        P = self.prob.P
        nL = P * (P + 1) // 2
        for diag_level in (-1.0, -0.3):
            lv = 0.3 * rng.standard_normal(nL)
            lv[fam.diag_pos] += diag_level
            x = np.concatenate([rng.normal(0, 1, P), lv])
            L = fam.to_L(x[P:])
            self.regimes(np.linalg.norm(self.prob.X @ L, axis=1))
            self.fd_check(fam, x)

    def test_fullrank_equals_meanfield_on_diagonal(self):
        rng = np.random.default_rng(3)
        P = self.prob.P
        mf = vo.MeanField(self.prob, vo.Quadrature())
        fr = vo.FullRank(self.prob, vo.Quadrature())
        m = rng.standard_normal(P)
        logsd = rng.normal(-0.5, 0.3, P)
        L = np.diag(np.exp(logsd))
        a = mf.elbo(np.concatenate([m, logsd]))
        b = fr.elbo(np.concatenate([m, fr.from_L(L)]))
        self.assertAlmostEqual(a[0], b[0], places=10)
        np.testing.assert_allclose(a[1][P:], b[1][P:][fr.diag_pos], rtol=1e-10, atol=1e-10)


class TestConstants(unittest.TestCase):
    """The ELBO includes every constant: check it two independent ways."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        rng = np.random.default_rng(77)
        X, y = simulate(rng, 40, 1, beta_scale=1.5, alpha=-0.4)
        priors = {"alpha": {"normal": {"loc": 0, "scale": 2}},
                  "beta": {"normal": {"loc": 0.5, "scale": 1.5}}}
        cls.cfg = write_dataset(cls.tmp.name, "small", X, y, priors, True, False)
        cls.prob = vo.load_problem(cls.cfg)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def log_joint(self, theta):
        p = self.prob
        eta = theta @ p.X.T
        ll = np.sum(stats.bernoulli.logpmf(p.y, special.expit(eta)), axis=-1)
        lp = np.sum(stats.norm.logpdf(theta, p.loc, p.scale), axis=-1)
        return ll + lp

    def test_elbo_matches_monte_carlo(self):
        fam = vo.FullRank(self.prob, vo.Quadrature())
        rng = np.random.default_rng(5)
        x = np.concatenate([[-0.3, 1.0], fam.from_L(np.array([[0.4, 0.0], [0.2, 0.5]]))])
        elbo = fam.elbo(x, grad=False)[0]
        m, S = fam.moments(x)
        draws = rng.multivariate_normal(m, S, size=200000)
        w = self.log_joint(draws) - stats.multivariate_normal(m, S).logpdf(draws)
        se = w.std() / math.sqrt(w.size)
        self.assertLess(abs(w.mean() - elbo), 5 * se, (w.mean(), elbo, se))

    def test_elbo_below_log_evidence(self):
        # log p(y) by 2-D integration over (alpha, beta) on a wide grid (trapezoid, fine step)
        a = np.linspace(-5, 5, 401)
        b = np.linspace(-4, 6, 401)
        A, B = np.meshgrid(a, b, indexing="ij")
        th = np.stack([A.ravel(), B.ravel()], axis=1)
        lj = self.log_joint(th).reshape(A.shape)
        mx = lj.max()
        Z = np.trapz(np.trapz(np.exp(lj - mx), b, axis=1), a)
        log_evidence = mx + math.log(Z)
        out = vo.solve(self.cfg, "fullrank", check_quadrature=False)
        self.assertLess(out["elbo"], log_evidence)
        # small, well-identified problem: the Gaussian family is nearly exact
        self.assertLess(log_evidence - out["elbo"], 0.05)
        mf = vo.solve(self.cfg, "meanfield", check_quadrature=False)
        self.assertLessEqual(mf["elbo"], out["elbo"] + 1e-12)


class TestCorrelatedDesign(unittest.TestCase):
    def test_fullrank_ge_meanfield_correlated(self):
        rng = np.random.default_rng(99)
        X, y = simulate(rng, 300, 6, corr=0.95, alpha=0.3)
        priors = {"alpha": {"normal": {"loc": 0, "scale": 10}},
                  "beta": {"normal": {"loc": 0, "scale": 2.5}}}
        with tempfile.TemporaryDirectory() as d:
            cfg = write_dataset(d, "corr", X, y, priors, True, True)
            mf = vo.solve(cfg, "meanfield")
            fr = vo.solve(cfg, "fullrank")
        self.assertLess(mf["grad_norm"], 1e-8)
        self.assertLess(fr["grad_norm"], 1e-8)
        # correlated posterior: fullrank is strictly better and meanfield's sds are too small
        self.assertGreater(fr["elbo"], mf["elbo"] + 0.5)
        sd_mf = np.array([p["sd"] for p in mf["parameters"]])
        sd_fr = np.array([p["sd"] for p in fr["parameters"]])
        self.assertTrue(np.all(sd_mf[1:] < sd_fr[1:]))
        cov = np.array(fr["cov"])
        np.testing.assert_allclose(np.sqrt(np.diag(cov)), sd_fr, rtol=1e-12)


class TestIndependentOptimiser(unittest.TestCase):
    """Plain L-BFGS from the same start lands on the fixed point's optimum."""

    def test_lbfgs_agrees_with_fixed_point(self):
        rng = np.random.default_rng(123)
        X, y = simulate(rng, 200, 5, corr=0.9, beta_scale=2.0, alpha=-1.0)
        priors = {"alpha": {"normal": {"loc": 0, "scale": 10}},
                  "beta": {"normal": {"loc": 0, "scale": 2.5}}}
        with tempfile.TemporaryDirectory() as d:
            prob = vo.load_problem(write_dataset(d, "x", X, y, priors, True, True))
        for cls in (vo.MeanField, vo.FullRank):
            a = cls(prob, vo.Quadrature())
            ra = vo.optimize_family(a)
            b = cls(prob, vo.Quadrature())
            rb = vo.optimize_family(b, method="lbfgs")
            self.assertEqual(ra["method"], "natural-gradient fixed point")
            self.assertLess(ra["grad_norm"], 1e-9)
            self.assertLess(rb["grad_norm"], 1e-6)
            ma, sa, _ = a.summary(ra["x"])
            mb, sb, _ = b.summary(rb["x"])
            self.assertLess(np.max(np.abs(ma - mb) / sa), 1e-6, cls.name)
            self.assertLess(np.max(np.abs(sb / sa - 1)), 1e-6, cls.name)
            self.assertLessEqual(rb["elbo"], ra["elbo"] + 1e-9)


class TestConfig(unittest.TestCase):
    def test_standardize_intercept_arrays(self):
        rng = np.random.default_rng(4)
        X = rng.normal(3.0, 2.0, size=(25, 3))
        y = (rng.random(25) < 0.5).astype(int)
        priors = {"alpha": {"normal": {"loc": 1, "scale": 4}},
                  "beta": {"normal": {"loc": [0, 1, 2], "scale": [1, 2, 3]}}}
        with tempfile.TemporaryDirectory() as d:
            prob = vo.load_problem(write_dataset(d, "c", X, y, priors, True, True))
        self.assertEqual(prob.names, ["alpha", "beta.1", "beta.2", "beta.3"])
        np.testing.assert_allclose(prob.X[:, 0], 1.0)
        np.testing.assert_allclose(prob.X[:, 1:].mean(axis=0), 0.0, atol=1e-14)
        np.testing.assert_allclose(prob.X[:, 1:].std(axis=0, ddof=1), 1.0, rtol=1e-14)
        np.testing.assert_allclose(prob.loc, [1, 0, 1, 2])
        np.testing.assert_allclose(prob.scale, [4, 1, 2, 3])

    def test_feature_subset_and_missing_prior(self):
        rng = np.random.default_rng(5)
        X = rng.normal(size=(20, 3))
        y = (rng.random(20) < 0.5).astype(int)
        with tempfile.TemporaryDirectory() as d:
            cfg = write_dataset(d, "c", X, y, {"beta": {"normal": {"loc": 0, "scale": 1}}},
                                True, False)
            with self.assertRaises(vo.ConfigError):      # intercept without alpha prior
                vo.load_problem(cfg)
            with open(cfg) as f:
                c = json.load(f)
            c["model"]["intercept"] = False
            c["data"]["features"] = ["x3", "x1"]
            with open(cfg, "w") as f:
                json.dump(c, f)
            prob = vo.load_problem(cfg)
            np.testing.assert_array_equal(prob.X, X[:, [2, 0]])
            c["model"]["priors"] = {}
            with open(cfg, "w") as f:
                json.dump(c, f)
            with self.assertRaises(vo.ConfigError):      # beta prior must be stated
                vo.load_problem(cfg)


class TestCompareFit(unittest.TestCase):
    REF = {"family": "meanfield", "elbo": -100.0,
           "parameters": [{"name": "alpha", "mean": 1.0, "sd": 0.5},
                          {"name": "beta.1", "mean": -2.0, "sd": 0.2}]}

    def summary(self, dm=(0.0, 0.0), ratio=(1.0, 1.0), **extra):
        doc = {"algorithm": "meanfield", "elbo": -100.3, "elbo_se": 0.1,
               "parameters": [{"name": p["name"], "mean": p["mean"] + d * p["sd"],
                               "sd": p["sd"] * r, "q05": 0, "q50": 0, "q95": 0}
                              for p, d, r in zip(self.REF["parameters"], dm, ratio)]}
        doc.update(extra)
        return doc

    def run_cli(self, summary):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "s.json"), os.path.join(d, "o.json")
            with open(a, "w") as f:
                json.dump(summary, f)
            with open(b, "w") as f:
                json.dump(self.REF, f)
            import contextlib
            import io
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
                code = compare_fit.main([a, b])
        return code, buf.getvalue()

    def test_within_bounds(self):
        res = compare_fit.compare(self.summary((0.05, -0.09), (1.08, 0.95)), self.REF)
        self.assertTrue(res["ok"])
        self.assertAlmostEqual(res["max_mean_err"], 0.09)
        self.assertEqual(res["max_mean_err_param"], "beta.1")
        self.assertAlmostEqual(res["max_sd_err"], 0.08)
        self.assertAlmostEqual(res["elbo_diff"], -0.3)
        self.assertEqual(self.run_cli(self.summary((0.05, -0.09), (1.08, 0.95)))[0], 0)

    def test_over_bounds_exit_1(self):
        code, out = self.run_cli(self.summary((0.11, 0.0)))
        self.assertEqual(code, 1)
        self.assertIn("FAIL", out)
        self.assertEqual(self.run_cli(self.summary(ratio=(1.0, 0.88)))[0], 1)

    def test_bad_input_exit_2(self):
        s = self.summary()
        s["parameters"] = s["parameters"][:1]
        self.assertEqual(self.run_cli(s)[0], 2)
        self.assertEqual(self.run_cli(self.summary(algorithm="fullrank"))[0], 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
