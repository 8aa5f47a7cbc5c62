#!/usr/bin/python3
"""Validation of vi_optimum.py and its modules (plain unittest, < 60 s on 2 cores):

    /usr/bin/python3 tests/reference/test_vi_optimum.py

* reproduces the seed notebook's mean-field optimum (shared/data/seed_meanfield_optimum.csv,
  copied to fixtures/) and its ELBO -73.779;
* every 1-D rule against scipy.integrate.quad (value and both derivatives, 1e-12): the logistic
  and probit expectations over both regimes, every prior family on every transform through the
  panel rule, and each closed form against the panel rule;
* analytic gradients against central differences, for every likelihood x both families, for a
  model with every prior family and constraint, and for a hierarchical (horseshoe) prior;
* the ELBO constants: a Monte Carlo average (1e5 draws) of scipy.stats log densities minus
  log q agrees within 4 standard errors, for every likelihood and every prior family (each
  prior coordinate on its own, so a missing log 2 would show), and the logistic ELBO is below
  log p(y) from 2-D integration;
* the optimizer: fullrank >= meanfield, plain L-BFGS reaches the same optimum, hierarchical and
  constrained models converge, constrained-scale moments and quantiles;
* config handling (parameter order, standardize with ddof=1, extra columns, refused hierarchies)
  and compare_fit.py.
"""

import contextlib
import csv
import io
import json
import math
import os
import shutil
import subprocess
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
import vi_priors  # noqa: E402
import vi_quadrature as vq  # noqa: E402
import compare_fit  # noqa: E402

SEED_CSV = os.path.join(REPO, "data", "seed_logistic.csv")
SEED_OPT = os.path.join(HERE, "fixtures", "seed_meanfield_optimum.csv")
LIKELIHOODS = ("bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "normal",
               "negative_binomial_log", "lognormal", "gamma_log", "beta_logit")


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------

def write_config(folder, name, X, y, priors, likelihood="bernoulli_logit", intercept=True,
                 standardize=False, extra=None, parameters=None, data_keys=None):
    """CSV x1..xD[,extra columns],y and its config; returns the config path."""
    extra = extra or {}
    path = os.path.join(folder, name + ".csv")
    cols = ["x%d" % (j + 1) for j in range(X.shape[1])] + list(extra) + ["y"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for i in range(X.shape[0]):
            w.writerow([repr(float(v)) for v in X[i]] + [repr(float(extra[k][i])) for k in extra]
                       + [repr(float(y[i]))])
    data = {"csv": name + ".csv", "response": "y", "standardize": standardize}
    data.update(data_keys or {})
    model = {"likelihood": likelihood, "intercept": intercept, "priors": priors}
    if parameters:
        model["parameters"] = parameters
    cpath = os.path.join(folder, name + ".json")
    with open(cpath, "w") as f:
        json.dump({"data": data, "model": model}, f)
    return cpath


def simulate(rng, N, D, corr=0.0, beta_scale=1.0, alpha=0.0):
    C = corr ** np.abs(np.subtract.outer(np.arange(D), np.arange(D)))
    X = rng.standard_normal((N, D)) @ np.linalg.cholesky(C).T
    beta = beta_scale * rng.standard_normal(D)
    return X, alpha + X @ beta


BASE_PRIORS = {"alpha": {"normal": {"loc": 0.5, "scale": 5}},
               "beta": {"normal": {"loc": [0, 0.1, -0.2], "scale": [2.5, 1.0, 3.0]}}}


def likelihood_problem(folder, lik, rng, N=60, eta_scale=1.0):
    """A small dataset of each likelihood (3 features) with its config."""
    X, eta = simulate(rng, N, 3, corr=0.5, alpha=0.3)
    eta = eta_scale * eta / max(1.0, np.std(eta))
    priors = dict(BASE_PRIORS)
    extra, keys = {}, {}
    if lik == "bernoulli_logit":
        y = (rng.random(N) < special.expit(eta)).astype(float)
    elif lik == "bernoulli_probit":
        y = (rng.random(N) < special.ndtr(eta)).astype(float)
    elif lik == "binomial_logit":
        n = rng.integers(0, 12, N).astype(float)
        y = rng.binomial(n.astype(int), special.expit(eta)).astype(float)
        extra, keys = {"n": n}, {"trials": "n"}
    elif lik == "poisson_log":
        off = np.round(rng.normal(0, 0.3, N), 3)
        expo = np.round(rng.uniform(0.5, 2.0, N), 3)
        y = rng.poisson(expo * np.exp(off + 0.5 * eta)).astype(float)
        extra, keys = {"off": off, "expo": expo}, {"offset": "off", "exposure": "expo"}
    elif lik == "negative_binomial_log":
        off = np.round(rng.normal(0, 0.3, N), 3)
        expo = np.round(rng.uniform(0.5, 2.0, N), 3)
        mu, phi = expo * np.exp(off + 0.5 * eta), 1.5
        y = rng.negative_binomial(phi, phi / (phi + mu)).astype(float)
        extra, keys = {"off": off, "expo": expo}, {"offset": "off", "exposure": "expo"}
        priors["phi"] = {"gamma": {"shape": 0.01, "rate": 0.01}}
    elif lik == "lognormal":
        y = np.round(np.exp(0.5 * eta + 0.6 * rng.standard_normal(N)), 5)
        priors["sigma"] = {"half_normal": {"scale": 2}}
    elif lik == "gamma_log":
        y = np.maximum(np.round(rng.gamma(2.0, np.exp(0.5 * eta) / 2.0), 5), 1e-5)
        priors["shape"] = {"gamma": {"shape": 0.01, "rate": 0.01}}
    elif lik == "beta_logit":
        m = special.expit(0.5 * eta)
        y = np.clip(np.round(rng.beta(6.0 * m, 6.0 * (1 - m)), 6), 1e-6, 1 - 1e-6)
        priors["phi"] = {"gamma": {"shape": 0.01, "rate": 0.01}}
    else:
        y = np.round(eta + 0.7 * rng.standard_normal(N), 4)
        priors["sigma"] = {"half_normal": {"scale": 2}}
    return write_config(folder, lik, X, y, priors, lik, extra=extra, data_keys=keys)


def fd_errors(fam, x, h=1e-5, coords=None):
    """max relative error of the analytic gradient against central differences (over the
    optimization coordinates `coords`, default all)."""
    _, g = fam.elbo(x)
    coords = np.arange(x.size) if coords is None else coords
    num = g.copy()
    for i in coords:
        hi = h * max(1.0, abs(x[i]))
        xp, xm = x.copy(), x.copy()
        xp[i] += hi
        xm[i] -= hi
        num[i] = (fam.elbo(xp, grad=False)[0] - fam.elbo(xm, grad=False)[0]) / (2 * hi)
    return float(np.max(np.abs(num - g) / np.maximum(1.0, np.abs(g))))


def random_point(fam, rng, spread, logsd):
    """m around the start, log sd / log diag(L) around logsd, small off-diagonal L entries."""
    x0 = vo.start(fam)
    P = fam.P
    m = x0[:P] + spread * rng.standard_normal(P)
    if isinstance(fam, vo.MeanField):
        return np.concatenate([m, logsd + 0.3 * rng.standard_normal(P)])
    lv = 0.15 * rng.standard_normal(P * (P + 1) // 2)
    lv[fam.diag_pos] = logsd + 0.3 * rng.standard_normal(P)
    return np.concatenate([m, lv])


def scipy_loglik(lik, model, eta, u=None):
    """log p(y | eta) summed over rows with scipy.stats, for draws eta (S x N)."""
    y = model.y
    d = model.data
    if lik == "bernoulli_logit":
        return stats.bernoulli.logpmf(y, special.expit(eta)).sum(axis=1)
    if lik == "bernoulli_probit":
        return stats.norm.logcdf((2 * y - 1) * eta).sum(axis=1)
    if lik == "binomial_logit":
        return stats.binom.logpmf(y, d["trials"], special.expit(eta)).sum(axis=1)
    if lik == "poisson_log":
        return stats.poisson.logpmf(y, np.exp(eta + d["offset"])).sum(axis=1)
    if lik == "negative_binomial_log":
        phi, mu = np.exp(u)[:, None], np.exp(eta + d["offset"])
        return stats.nbinom.logpmf(y, phi, phi / (phi + mu)).sum(axis=1)
    if lik == "lognormal":
        return stats.lognorm.logpdf(y, s=np.exp(u)[:, None], scale=np.exp(eta)).sum(axis=1)
    if lik == "gamma_log":
        k = np.exp(u)[:, None]
        return stats.gamma.logpdf(y, k, scale=np.exp(eta) / k).sum(axis=1)
    if lik == "beta_logit":
        phi, m = np.exp(u)[:, None], special.expit(eta)
        return stats.beta.logpdf(y, m * phi, (1 - m) * phi).sum(axis=1)
    return stats.norm.logpdf(y, eta, np.exp(u)[:, None]).sum(axis=1)


def scipy_logprior(fam, h, x):
    """log p(x) of a prior family with scipy.stats (README's table)."""
    if fam == "normal":
        return stats.norm.logpdf(x, h["loc"], h["scale"])
    if fam == "student_t":
        return stats.t.logpdf(x, h["df"], h["loc"], h["scale"])
    if fam == "cauchy":
        return stats.cauchy.logpdf(x, h["loc"], h["scale"])
    if fam == "laplace":
        return stats.laplace.logpdf(x, h["loc"], h["scale"])
    if fam == "logistic":
        return stats.logistic.logpdf(x, h["loc"], h["scale"])
    if fam == "half_normal":
        return stats.halfnorm.logpdf(x, scale=h["scale"])
    if fam == "half_cauchy":
        return stats.halfcauchy.logpdf(x, scale=h["scale"])
    if fam == "half_student_t":
        return np.log(2.0) + stats.t.logpdf(x, h["df"], 0.0, h["scale"])
    if fam == "exponential":
        return stats.expon.logpdf(x, scale=1.0 / h["rate"])
    if fam == "gamma":
        return stats.gamma.logpdf(x, h["shape"], scale=1.0 / h["rate"])
    return stats.lognorm.logpdf(x, h["scale"], scale=math.exp(h["loc"]))


def transform_and_logjac(kind, lo, up, z):
    """x = T(z) and log|T'(z)| computed independently of vi_priors."""
    if kind == "none":
        return z, np.zeros_like(z)
    if kind == "lower":
        return lo + np.exp(z), z
    if kind == "upper":
        return up - np.exp(z), z
    return (lo + (up - lo) / (1.0 + np.exp(-z)),
            math.log(up - lo) - np.logaddexp(0.0, -z) - np.logaddexp(0.0, z))


# (parameter name, declaration, family, hyperparameters): every family, every transform kind
PRIOR_ZOO = [
    ("a_normal", {}, "normal", {"loc": 0.3, "scale": 1.5}),
    ("b_student", {}, "student_t", {"df": 4, "loc": -0.5, "scale": 0.7}),
    ("c_cauchy", {}, "cauchy", {"loc": 0.2, "scale": 0.5}),
    ("d_laplace", {}, "laplace", {"loc": 0.1, "scale": 0.8}),
    ("e_logistic", {}, "logistic", {"loc": -0.3, "scale": 0.6}),
    ("f_halfnormal", {"constraint": "positive"}, "half_normal", {"scale": 2.0}),
    ("g_halfcauchy", {"constraint": "positive"}, "half_cauchy", {"scale": 0.5}),
    ("h_halft", {"constraint": "positive"}, "half_student_t", {"df": 3, "scale": 1.5}),
    ("i_exponential", {"constraint": "positive"}, "exponential", {"rate": 2.0}),
    ("j_gamma", {"constraint": "positive"}, "gamma", {"shape": 2.5, "rate": 1.5}),
    ("k_lognormal", {"constraint": "positive"}, "lognormal", {"loc": 0.2, "scale": 0.8}),
    ("l_unit_beta", {"constraint": "unit_interval"}, "gamma", {"shape": 2.0, "rate": 3.0}),
    ("m_lower", {"lower": -1.0}, "normal", {"loc": 0.5, "scale": 1.0}),
    ("n_upper", {"upper": 2.0}, "laplace", {"loc": 1.0, "scale": 0.5}),
    ("o_interval", {"lower": 1.0, "upper": 4.0}, "student_t", {"df": 3, "loc": 2.0, "scale": 1.0}),
    ("p_shifted_gamma", {"lower": 0.5}, "gamma", {"shape": 3.0, "rate": 2.0}),
    ("q_vector_t", {"size": 2}, "student_t", {"df": [2.5, 7], "loc": 0, "scale": [1, 0.3]}),
    ("r_interval_cauchy", {"lower": -2.0, "upper": 2.0}, "cauchy", {"loc": 0.5, "scale": 0.4}),
    ("s_lower_logistic", {"lower": 0.0}, "logistic", {"loc": 1.0, "scale": 0.5}),
    ("t_interval_lognormal", {"lower": 0.5, "upper": 3.0}, "lognormal", {"loc": 0.0, "scale": 0.5}),
]


def zoo_problem(folder, rng):
    """bernoulli_logit with student_t beta, cauchy alpha and every PRIOR_ZOO parameter declared
    (they do not enter the likelihood)."""
    X, eta = simulate(rng, 50, 2, alpha=0.2)
    y = (rng.random(50) < special.expit(eta)).astype(float)
    priors = {"alpha": {"cauchy": {"loc": 0, "scale": 2}},
              "beta": {"student_t": {"df": 3, "loc": 0, "scale": 1.5}}}
    params = {}
    for name, decl, fam, h in PRIOR_ZOO:
        params[name] = decl
        priors[name] = {fam: h}
    return write_config(folder, "zoo", X, y, priors, parameters=params)


def horseshoe_problem(folder, rng, likelihood="normal"):
    X, eta = simulate(rng, 40, 4, alpha=0.1)
    y = np.round(eta + 0.5 * rng.standard_normal(40), 4)
    priors = {"alpha": {"normal": {"loc": 0, "scale": 5}},
              "beta": {"normal": {"loc": 0, "scale": "0.5 * tau * lambda"}},
              "tau": {"half_cauchy": {"scale": 1}}, "lambda": {"half_cauchy": {"scale": 1}},
              "sigma": {"exponential": {"rate": 1}}}
    params = {"tau": {"constraint": "positive"},
              "lambda": {"size": "features", "constraint": "positive"}}
    return write_config(folder, "horseshoe", X, y, priors, likelihood, parameters=params)


def seed_config(folder):
    cfg = {"data": {"csv": SEED_CSV, "response": "y", "standardize": False},
           "model": {"likelihood": "bernoulli_logit", "intercept": False,
                     "priors": {"beta": {"normal": {"loc": 0, "scale": 10}}}}}
    path = os.path.join(folder, "seed.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


# --------------------------------------------------------------------------------------------
# Seed
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# Quadrature
# --------------------------------------------------------------------------------------------

def adaptive_z(fun, mu, s, centre):
    """E fun(mu + s z) by quad in z over [-14, 14], cut near the point where mu + s z = centre
    and at multiples of 1/s from it (the integrand's own scale)."""
    z0 = (centre - mu) / s
    pts = sorted({-14.0, 14.0, *[z0 + k / s for k in (-20, -8, -3, -1, 0, 1, 3, 8, 20)]})
    pts = [p for p in pts if -14.0 <= p <= 14.0]
    tot = 0.0
    for a, b in zip(pts[:-1], pts[1:]):
        tot += integrate.quad(lambda z: fun(mu + s * z, z) * math.exp(-0.5 * z * z), a, b,
                              epsabs=1e-15, epsrel=1e-13, limit=400)[0]
    return tot / math.sqrt(2 * math.pi)


class TestQuadrature(unittest.TestCase):
    """The 1-D rules against scipy.integrate.quad: |error| / max(1, |value|) < 1e-12."""

    @classmethod
    def setUpClass(cls):
        warnings.simplefilter("ignore", integrate.IntegrationWarning)

    def check_rule(self, rule, fns, centre, grid):
        """dF/ds = E[z f'(eta)] is measured against max(1, |dF/ds|, |dF/dmu|): when |mu| >> s
        its integrand ~ f'(mu) z cancels to a value much smaller than itself (mu = -300,
        s = 2.5 for probit: terms of 300, result 2.5), and both rules round at that scale."""
        worst = [0.0, 0.0, 0.0]
        for s in grid[0]:
            for mu in grid[1]:
                vals = rule(np.array([mu]), np.array([s]))
                refs = [adaptive_z(fun, mu, s, centre) for fun in fns]
                scales = [max(1.0, abs(refs[0])), max(1.0, abs(refs[1])),
                          max(1.0, abs(refs[2]), abs(refs[1]))]
                for k in range(3):
                    worst[k] = max(worst[k], abs(vals[k][0] - refs[k]) / scales[k])
        for k in range(3):
            self.assertLess(worst[k], 1e-12, worst)

    def test_logistic_against_quad(self):
        fns = (lambda x, z: -np.logaddexp(0.0, -x), lambda x, z: special.expit(-x),
               lambda x, z: z * special.expit(-x))
        grid = ((0.05, 0.3, 0.6, 0.9, 1.0, 1.01, 1.5, 2.5, 4.0, 8.0, 20.0, 50.0),
                (-40.0, -7.0, -2.0, -0.5, 0.0, 0.3, 1.5, 5.0, 40.0))
        self.check_rule(vq.LogisticExpectation(), fns, 0.0, grid)

    def test_probit_against_quad(self):
        lam = lambda x: math.sqrt(2 / math.pi) / special.erfcx(-x / math.sqrt(2))
        fns = (lambda x, z: special.log_ndtr(x), lambda x, z: lam(x), lambda x, z: z * lam(x))
        grid = ((0.05, 0.3, 0.6, 0.9, 1.0, 1.01, 1.5, 2.5, 4.0, 8.0, 20.0, 50.0, 200.0),
                (-300.0, -40.0, -7.0, -2.0, -0.5, 0.0, 0.3, 1.5, 2.0, 5.0, 40.0))
        self.check_rule(vq.ProbitExpectation(), fns, 1.9, grid)

    def test_node_count_refinement(self):
        for cls in (vq.LogisticExpectation, vq.ProbitExpectation):
            coarse, fine = cls(), cls(refine=3)
            mu = np.linspace(-20, 20, 81)
            for s in (0.05, 0.2, 0.3, 0.31, 0.6, 0.61, 0.7, 1.0, 1.3, 3.0, 30.0):
                a = coarse(mu, np.full_like(mu, s))[0]
                b = fine(mu, np.full_like(mu, s))[0]
                self.assertLess(np.max(np.abs(a - b) / np.maximum(1, np.abs(b))), 1e-12,
                                (cls.__name__, s))

    def test_second_derivative_limits(self):
        x = np.linspace(-8, 8, 17)
        for rule, f in ((vq.LogisticExpectation, lambda t: -np.logaddexp(0.0, -t)),
                        (vq.ProbitExpectation, special.log_ndtr)):
            h = 1e-4
            num = (f(x + h) - 2 * f(x) + f(x - h)) / h ** 2
            np.testing.assert_allclose(rule.second_derivative(x), num, rtol=1e-5, atol=1e-7)

    @staticmethod
    def quad_prior(fam, tr, hs, m, v):
        """E[g], E[g'], E[g' (zeta - m)]/(2v) for g = log p(T(zeta)) by quad, cut at every sd,
        at T^-1(loc) (the density's centre, kink or singularity) and at 0 (expit's)."""
        s = math.sqrt(v)
        growth = tr.growth(fam.growth)
        lo, hi = m - 14 * s, m + (14 + growth * s) * s
        cuts = set(np.arange(math.floor(-14), math.ceil(14 + growth * s) + 1) * s + m)
        centre = tr.inverse(hs.get("loc", 0.0))
        if centre is not None:
            cuts.update(centre + k * w for k in (-3, -1, -0.3, 0, 0.3, 1, 3)
                        for w in (hs.get("scale", 1.0),))
        cuts.add(0.0)
        pts = sorted(p for p in cuts | {lo, hi} if lo <= p <= hi)
        g = lambda z: fam.logpdf(tr.forward(np.array([z])), hs)[0]
        dg = lambda z: (fam.dlogpdf(tr.forward(np.array([z])), hs) * tr.derivative(np.array([z])))[0]
        dens = lambda z: math.exp(-0.5 * ((z - m) / s) ** 2) / (s * math.sqrt(2 * math.pi))
        out = []
        for fun in (g, dg, lambda z: dg(z) * (z - m) / (2 * v)):
            out.append(sum(integrate.quad(lambda z: fun(z) * dens(z), a, b, epsabs=1e-15,
                                          epsrel=1e-13, limit=400)[0]
                           for a, b in zip(pts[:-1], pts[1:])))
        return out

    def test_panel_rule_every_family_and_transform(self):
        rule = vq.PanelRule()
        T = vi_priors.Transform
        transforms = {"real": [T(), T("upper", 0, 2.0), T("interval", -1.0, 3.0), T("lower", -1.0)],
                      "positive": [T("lower", 0.0), T("lower", 0.7), T("interval", 0.0, 1.0),
                                   T("interval", 0.5, 4.0)]}
        hyper = {"loc": 0.4, "scale": 0.8, "df": 3.5, "rate": 1.7, "shape": 2.3}
        worst = 0.0
        for fam in vi_priors.FAMILIES.values():
            hs = {k: hyper[k] for k in fam.hypers}
            for tr in transforms[fam.support]:
                for m, v in ((0.1, 0.04), (-0.7, 0.8), (1.2, 2.5)):
                    got = vi_priors.expect_generic(fam, tr, hs, m, v, rule)
                    ref = self.quad_prior(fam, tr, hs, m, v)
                    err = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(got, ref))
                    worst = max(worst, err)
                    self.assertLess(err, 1e-12, (fam.name, tr.describe(), m, v, got, ref))
        self.assertLess(worst, 1e-12)

    def test_closed_forms_match_panel_rule(self):
        """Each closed form (vi_priors._closed_form) against the generic rule, which the previous
        test ties to quad; wide and narrow q, centred and far out."""
        T = vi_priors.Transform
        logistic, rule = vq.LogisticExpectation(), vq.PanelRule()
        hyper = {"loc": 0.4, "scale": 0.8, "df": 3.5, "rate": 1.7, "shape": 2.3}
        m = np.array([-3.0, -0.5, 0.4, 2.0, 6.0])
        v = np.array([0.01, 0.3, 1.0, 4.0, 0.5])
        checked = 0
        for fam in vi_priors.FAMILIES.values():
            for tr in (T(), T("lower", 0.0), T("lower", 0.6), T("upper", 1.5)):
                if fam.support == "positive" and tr.kind == "upper":
                    continue
                if not vi_priors.is_closed_form(fam, tr):
                    continue
                h = {k: np.full(m.size, hyper[k]) for k in fam.hypers}
                a = vi_priors.expect_prior(fam, tr, h, m, v, logistic, rule)
                b = vi_priors.expect_prior(fam, tr, h, m, v, logistic, rule, force_generic=True)
                for x, y in zip(a, b):
                    np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12,
                                               err_msg="%s %s" % (fam.name, tr.describe()))
                checked += 1
        self.assertGreaterEqual(checked, 12)

    def test_constrained_moments(self):
        rule = vq.PanelRule()
        T = vi_priors.Transform
        for tr in (T("lower", 0.0), T("lower", 2.0), T("upper", 1.0), T("interval", -1.0, 3.0)):
            for m, v in ((0.3, 0.2), (-1.0, 1.5)):
                mean, sd = tr.constrained_moments(m, v, rule)
                s = math.sqrt(v)
                dens = lambda z: math.exp(-0.5 * ((z - m) / s) ** 2) / (s * math.sqrt(2 * math.pi))
                fx = lambda z: float(tr.forward(np.array(z)))
                e1 = integrate.quad(lambda z: fx(z) * dens(z), m - 14 * s, m + 14 * s,
                                    epsabs=1e-14, limit=200)[0]
                e2 = integrate.quad(lambda z: (fx(z) - e1) ** 2 * dens(z), m - 14 * s, m + 14 * s,
                                    epsabs=1e-14, limit=200)[0]
                self.assertAlmostEqual(mean, e1, delta=1e-11 * max(1, abs(e1)))
                self.assertAlmostEqual(sd, math.sqrt(e2), delta=1e-10 * max(1, math.sqrt(e2)))


# --------------------------------------------------------------------------------------------
# Gradients
# --------------------------------------------------------------------------------------------

class TestGradients(unittest.TestCase):
    """Analytic gradients against central differences (relative 1e-7), every likelihood x both
    families; logit/probit/binomial at points with rows on both sides of the Gauss-Hermite
    switch (linear predictor sd <= 1 and > 1)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        rng = np.random.default_rng(20240611)
        cls.models = {lik: vo.load_model(likelihood_problem(cls.tmp.name, lik, rng))
                      for lik in LIKELIHOODS}
        cls.zoo = vo.load_model(zoo_problem(cls.tmp.name, rng))
        cls.horseshoe = vo.load_model(horseshoe_problem(cls.tmp.name, rng))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def linear_predictor_sd(self, fam, x):
        S = fam.cov(x)[:fam.model.K, :fam.model.K]
        return np.sqrt(np.einsum("ij,jk,ik->i", fam.model.X, S, fam.model.X))

    def check(self, model, logsds, spread=0.5, both_regimes=False, seed=1, max_coords=None):
        """max_coords: check every m and log-diagonal coordinate but only a random sample of the
        fullrank off-diagonal ones (the prior terms see L only through diag(L L'))."""
        rng = np.random.default_rng(seed)
        for cls in (vo.MeanField, vo.FullRank):
            fam = cls(model)
            for logsd in logsds:
                x = random_point(fam, rng, spread, logsd)
                if both_regimes:
                    s = self.linear_predictor_sd(fam, x)
                    self.assertTrue(np.any(s <= 1.0) and np.any(s > 1.0), (cls.name, logsd))
                coords = None
                if max_coords is not None and x.size > max_coords:
                    P = model.P
                    must = np.concatenate([np.arange(P), P + getattr(fam, "diag_pos", np.arange(P))])
                    rest = np.setdiff1d(np.arange(x.size), must)
                    coords = np.concatenate([must, rng.choice(rest, max_coords - must.size,
                                                              replace=False)])
                err = fd_errors(fam, x, coords=coords)
                self.assertLess(err, 1e-7, (model.likelihood, cls.name, logsd))

    def test_bernoulli_logit(self):
        self.check(self.models["bernoulli_logit"], (-0.9, -0.6), both_regimes=True)

    def test_bernoulli_probit(self):
        self.check(self.models["bernoulli_probit"], (-0.9, -0.6), both_regimes=True)

    def test_binomial_logit(self):
        self.check(self.models["binomial_logit"], (-0.9, -0.6), both_regimes=True)

    def test_poisson_log(self):
        self.check(self.models["poisson_log"], (-2.0, -1.0))

    def test_normal_with_sigma(self):
        self.check(self.models["normal"], (-2.0, -0.8))

    def test_negative_binomial_with_phi(self):
        self.check(self.models["negative_binomial_log"], (-2.0, -0.8))

    def test_lognormal_with_sigma(self):
        self.check(self.models["lognormal"], (-2.0, -0.8))

    def test_gamma_log_with_shape(self):
        self.check(self.models["gamma_log"], (-2.0, -0.8))

    def test_beta_logit_with_phi(self):
        self.check(self.models["beta_logit"], (-2.0, -0.8))

    def test_every_prior_family_and_constraint(self):
        self.check(self.zoo, (-1.0, 0.0), spread=0.7, max_coords=100)

    def test_hierarchical_horseshoe(self):
        self.check(self.horseshoe, (-1.5, -0.5), spread=0.5)

    def test_fullrank_equals_meanfield_on_diagonal(self):
        rng = np.random.default_rng(3)
        for model in (self.models["normal"], self.zoo, self.horseshoe):
            P = model.P
            mf, fr = vo.MeanField(model), vo.FullRank(model)
            m = vo.start(mf)[:P] + 0.3 * rng.standard_normal(P)
            logsd = rng.normal(-0.5, 0.3, P)
            a = mf.elbo(np.concatenate([m, logsd]))
            b = fr.elbo(np.concatenate([m, fr.from_L(np.diag(np.exp(logsd)))]))
            self.assertAlmostEqual(a[0], b[0], delta=1e-10 * abs(a[0]))
            np.testing.assert_allclose(a[1][:P], b[1][:P], rtol=1e-10, atol=1e-10)
            np.testing.assert_allclose(a[1][P:], b[1][P:][fr.diag_pos], rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------------------------
# Constants: Monte Carlo
# --------------------------------------------------------------------------------------------

DRAWS = 100000


class TestMonteCarlo(unittest.TestCase):
    """The exact ELBO against mean(log p(y, T(zeta)) + log|T'| - log q(zeta)) over 1e5 draws from
    a fullrank q, with scipy.stats densities: within 4 standard errors."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        rng = np.random.default_rng(77)
        cls.models = {lik: vo.load_model(likelihood_problem(cls.tmp.name, lik, rng, N=30))
                      for lik in LIKELIHOODS}
        cls.zoo = vo.load_model(zoo_problem(cls.tmp.name, rng))
        cls.horseshoe = vo.load_model(horseshoe_problem(cls.tmp.name, rng))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def q_point(self, model, seed, logsd=-1.0, near_optimum=False):
        """A random fullrank q; near_optimum: the fullrank optimum with m moved by 0.5 sd and
        L scaled by 1.2 (log p - log q then varies little: small standard errors)."""
        fam = vo.FullRank(model)
        if near_optimum:
            x = vo.optimize_family(fam, tol=1e-6)["x"]
            P = model.P
            L = fam.to_L(x[P:]) * 1.2
            m = x[:P] + 0.5 * np.sqrt(np.diag(L @ L.T)) * np.random.default_rng(seed).standard_normal(P)
            x = np.concatenate([m, fam.from_L(L)])
        else:
            x = random_point(fam, np.random.default_rng(seed), 0.3, logsd)
        m, S = fam.moments(x)
        draws = np.random.default_rng(seed + 1).multivariate_normal(m, S, size=DRAWS)
        return fam, x, m, S, draws

    def assert_within(self, w, exact, label):
        se = w.std() / math.sqrt(w.size)
        self.assertLess(abs(w.mean() - exact), 4 * se, (label, w.mean(), exact, se))
        return se

    def prior_logdens(self, model, draws):
        """sum over coordinates of log p(T(zeta)) + log|T'(zeta)|, from the config's JSON via
        scipy (independent of vi_priors), per draw; and per coordinate."""
        cols = np.zeros_like(draws)
        for p in model.priors:
            b = p.block
            idx = b.coords()
            tr = b.transform
            x, lj = transform_and_logjac(tr.kind, tr.lo, tr.up, draws[:, idx])
            if isinstance(p, vo.FixedPrior):
                for j, k in enumerate(idx):
                    h = {n: float(a[j]) for n, a in p.h.items()}
                    cols[:, k] = scipy_logprior(p.family.name, h, x[:, j]) + lj[:, j]
            else:
                for j, k in enumerate(idx):
                    scale = p.factor * np.exp(sum(c * draws[:, kk] for kk, c in p.loadings[j].items()))
                    cols[:, k] = stats.norm.logpdf(x[:, j], p.loc[j], scale)
        return cols

    def check_model(self, model, seed, logsd=-1.0, near_optimum=False):
        fam, x, m, S, draws = self.q_point(model, seed, logsd, near_optimum)
        exact = fam.elbo(x, grad=False)[0]
        eta = draws[:, :model.K] @ model.X.T
        u = draws[:, model.sigma_index] if model.sigma_index is not None else None
        ll = scipy_loglik(model.likelihood, model, eta, u)
        lp = self.prior_logdens(model, draws).sum(axis=1)
        lq = stats.multivariate_normal(m, S).logpdf(draws)
        return self.assert_within(ll + lp - lq, exact, model.likelihood)

    def test_every_likelihood(self):
        for i, lik in enumerate(LIKELIHOODS):
            with self.subTest(likelihood=lik):
                # a random q (linear predictor sds on both sides of the quadrature switch for
                # the logit/probit links), and a q near the optimum (standard errors < 0.05)
                if lik != "normal":
                    self.check_model(self.models[lik], 10 + i)
                se = self.check_model(self.models[lik], 20 + i, near_optimum=True)
                self.assertLess(se, 0.05)

    def test_every_prior_family_per_coordinate(self):
        """Each coordinate's E[log p(T(zeta)) + log|T'|] (the prior part of the ELBO, read off
        Objective term by term) against its own Monte Carlo average."""
        model = self.zoo
        fam, x, m, S, draws = self.q_point(model, 5, logsd=-0.5)
        cols = self.prior_logdens(model, draws)
        obj = fam.obj
        v = np.diag(S)
        for p in model.priors:
            idx = p.block.coords()
            val, _, _ = vi_priors.expect_prior(p.family, p.block.transform, p.h, m[idx], v[idx],
                                               obj.logistic, obj.rule)
            for j, k in enumerate(idx):
                with self.subTest(parameter=model.names[k], family=p.family.name):
                    se = self.assert_within(cols[:, k], val[j], model.names[k])
                    self.assertLess(se, 0.15)    # 4 se < log 2: a missing log 2 would show
        names = {p.family.name for p in model.priors}
        self.assertEqual(names, set(vi_priors.FAMILIES))

    def test_whole_elbo_with_every_prior(self):
        self.check_model(self.zoo, 6, logsd=-0.7)

    def test_hierarchical_horseshoe(self):
        self.check_model(self.horseshoe, 8, logsd=-1.2)
        # the funnel is far from Gaussian: 4 se < log 2 still
        self.assertLess(self.check_model(self.horseshoe, 9, near_optimum=True), 0.15)

    def test_logistic_elbo_below_log_evidence(self):
        """log p(y) by 2-D integration over (alpha, beta) on a wide grid; the fullrank optimum is
        a lower bound on it, and close on this small, well-identified problem."""
        rng = np.random.default_rng(77)
        X, eta = simulate(rng, 40, 1, beta_scale=1.5, alpha=-0.4)
        y = (rng.random(40) < special.expit(eta)).astype(float)
        priors = {"alpha": {"normal": {"loc": 0, "scale": 2}},
                  "beta": {"normal": {"loc": 0.5, "scale": 1.5}}}
        cfg = write_config(self.tmp.name, "small", X, y, priors)
        a = np.linspace(-5, 5, 401)
        b = np.linspace(-4, 6, 401)
        A, B = np.meshgrid(a, b, indexing="ij")
        th = np.stack([A.ravel(), B.ravel()], axis=1)
        lj = (stats.bernoulli.logpmf(y, special.expit(th @ np.vstack([np.ones(40), X[:, 0]])))
              .sum(axis=1) + stats.norm.logpdf(th[:, 0], 0, 2) + stats.norm.logpdf(th[:, 1], 0.5, 1.5))
        lj = lj.reshape(A.shape)
        mx = lj.max()
        log_evidence = mx + math.log(np.trapz(np.trapz(np.exp(lj - mx), b, axis=1), a))
        fr = vo.solve(cfg, "fullrank", check_quadrature=False)
        mf = vo.solve(cfg, "meanfield", check_quadrature=False)
        self.assertLess(fr["elbo"], log_evidence)
        self.assertLess(log_evidence - fr["elbo"], 0.05)
        self.assertLessEqual(mf["elbo"], fr["elbo"] + 1e-12)


# --------------------------------------------------------------------------------------------
# Optimizer
# --------------------------------------------------------------------------------------------

class TestOptimizer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        rng = np.random.default_rng(11)
        cls.solved = {}
        for cfg in (zoo_problem(cls.tmp.name, rng), horseshoe_problem(cls.tmp.name, rng)):
            for fam in ("meanfield", "fullrank"):
                cls.solved[os.path.basename(cfg), fam] = vo.solve(cfg, fam, check_quadrature=False)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_fullrank_ge_meanfield_correlated(self):
        rng = np.random.default_rng(99)
        X, eta = simulate(rng, 300, 6, corr=0.95, alpha=0.3)
        y = (rng.random(300) < special.expit(eta)).astype(float)
        priors = {"alpha": {"normal": {"loc": 0, "scale": 10}},
                  "beta": {"normal": {"loc": 0, "scale": 2.5}}}
        cfg = write_config(self.tmp.name, "corr", X, y, priors, standardize=True)
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

    def test_lbfgs_agrees_with_fixed_point(self):
        """Plain L-BFGS from the same start lands on the fixed point's optimum: logistic, and the
        normal likelihood with sigma and a student_t prior."""
        rng = np.random.default_rng(123)
        X, eta = simulate(rng, 200, 5, corr=0.9, beta_scale=2.0, alpha=-1.0)
        y = (rng.random(200) < special.expit(eta)).astype(float)
        priors = {"alpha": {"normal": {"loc": 0, "scale": 10}},
                  "beta": {"normal": {"loc": 0, "scale": 2.5}}}
        logit = vo.load_model(write_config(self.tmp.name, "x", X, y, priors, standardize=True))
        y2 = np.round(0.5 * eta + rng.standard_normal(200), 4)
        priors2 = {"alpha": {"normal": {"loc": 0, "scale": 10}},
                   "beta": {"student_t": {"df": 3, "loc": 0, "scale": 1}},
                   "sigma": {"gamma": {"shape": 2, "rate": 1}}}
        normal = vo.load_model(write_config(self.tmp.name, "n", X, y2, priors2, "normal"))
        for model in (logit, normal):
            for cls in (vo.MeanField, vo.FullRank):
                a, b = cls(model), cls(model)
                ra = vo.optimize_family(a)
                rb = vo.optimize_family(b, method="lbfgs")
                self.assertLess(ra["grad_norm"], 1e-9)
                self.assertLess(rb["grad_norm"], 1e-5)
                ma, sa, _ = a.summary(ra["x"])
                mb, sb, _ = b.summary(rb["x"])
                self.assertLess(np.max(np.abs(ma - mb) / sa), 1e-5, cls.name)
                self.assertLess(np.max(np.abs(sb / sa - 1)), 1e-5, cls.name)
                self.assertLessEqual(rb["elbo"], ra["elbo"] + 1e-9)

    def test_every_likelihood_converges(self):
        rng = np.random.default_rng(2024)
        for lik in LIKELIHOODS:
            cfg = likelihood_problem(self.tmp.name, lik, rng, N=80)
            for fam in ("meanfield", "fullrank"):
                out = vo.solve(cfg, fam)
                self.assertLess(out["grad_norm"], 1e-9, (lik, fam))
                self.assertLess(abs(out["diagnostics"]["quadrature_check"]["elbo_fine_minus_elbo"]),
                                1e-10)

    def test_constrained_and_hierarchical_converge(self):
        for (cfg, fam), out in self.solved.items():
            with self.subTest(config=cfg, family=fam):
                self.assertLess(out["grad_norm"], 1e-9)
                for p in out["parameters"]:
                    if "constrained" not in p:
                        continue
                    c = p["constrained"]
                    self.assertEqual(p["scale"], "unconstrained")
                    self.assertLessEqual(c["q05"], c["q50"])
                    self.assertLessEqual(c["q50"], c["q95"])
                    self.assertTrue(c["sd"] > 0)

    def test_zoo_optimum_matches_closed_forms(self):
        """A declared parameter that enters nothing but its prior sits at the 1-D optimum of
        its own term: for normal (none) q is the prior itself; for lognormal on (0, inf) q is
        N(loc, scale^2) on log x (the lognormal is exactly Gaussian on the log scale, and the
        log-Jacobian cancels the -log x)."""
        for fam in ("meanfield", "fullrank"):
            by = {p["name"]: p for p in self.solved["zoo.json", fam]["parameters"]}
            self.check_zoo(by)

    def check_zoo(self, by):
        self.assertAlmostEqual(by["a_normal"]["mean"], 0.3, delta=1e-9)
        self.assertAlmostEqual(by["a_normal"]["sd"], 1.5, delta=1e-9)
        self.assertAlmostEqual(by["k_lognormal"]["mean"], 0.2, delta=1e-9)
        self.assertAlmostEqual(by["k_lognormal"]["sd"], 0.8, delta=1e-9)
        c = by["k_lognormal"]["constrained"]
        self.assertAlmostEqual(c["mean"], math.exp(0.2 + 0.32), delta=1e-9)
        self.assertAlmostEqual(c["q50"], math.exp(0.2), delta=1e-12)


# --------------------------------------------------------------------------------------------
# Config
# --------------------------------------------------------------------------------------------

class TestConfig(unittest.TestCase):
    def test_standardize_intercept_arrays(self):
        rng = np.random.default_rng(4)
        X = rng.normal(3.0, 2.0, size=(25, 3))
        y = (rng.random(25) < 0.5).astype(float)
        priors = {"alpha": {"normal": {"loc": 1, "scale": 4}},
                  "beta": {"normal": {"loc": [0, 1, 2], "scale": [1, 2, 3]}}}
        with tempfile.TemporaryDirectory() as d:
            model = vo.load_model(write_config(d, "c", X, y, priors, standardize=True))
        self.assertEqual(model.names, ["alpha", "beta.1", "beta.2", "beta.3"])
        np.testing.assert_allclose(model.X[:, 0], 1.0)
        np.testing.assert_allclose(model.X[:, 1:].mean(axis=0), 0.0, atol=1e-14)
        np.testing.assert_allclose(model.X[:, 1:].std(axis=0, ddof=1), 1.0, rtol=1e-14)
        np.testing.assert_allclose(model.priors[1].h["loc"], [0, 1, 2])
        np.testing.assert_allclose(model.priors[1].h["scale"], [1, 2, 3])

    def test_parameter_order_and_names(self):
        """alpha, beta.1..D, sigma, then declared parameters in name (byte) order; size-1 scalar,
        "features" named per feature; extra columns are not features."""
        rng = np.random.default_rng(5)
        X = rng.normal(size=(20, 2))
        y = rng.normal(size=20)
        priors = {"alpha": {"normal": {"loc": 0, "scale": 1}},
                  "beta": {"normal": {"loc": 0, "scale": 1}},
                  "sigma": {"half_normal": {"scale": 1}},
                  "zeta": {"normal": {"loc": 0, "scale": 1}},
                  "Alpha2": {"normal": {"loc": 0, "scale": 1}},
                  "lam": {"half_cauchy": {"scale": 1}},
                  "b": {"normal": {"loc": 0, "scale": 1}}}
        params = {"zeta": {"size": 2}, "Alpha2": {}, "lam": {"size": "features", "constraint": "positive"},
                  "b": {"size": 1}}
        with tempfile.TemporaryDirectory() as d:
            model = vo.load_model(write_config(d, "o", X, y, priors, "normal", parameters=params))
        self.assertEqual(model.names, ["alpha", "beta.1", "beta.2", "sigma", "Alpha2", "b",
                                       "lam.1", "lam.2", "zeta.1", "zeta.2"])
        self.assertEqual(model.features[6:8], ["x1", "x2"])
        self.assertEqual(model.K, 3)

        n = rng.integers(1, 5, 20).astype(float)
        yb = np.minimum(n, rng.integers(0, 3, 20)).astype(float)
        with tempfile.TemporaryDirectory() as d:
            model = vo.load_model(write_config(
                d, "b", X, yb, {"alpha": priors["alpha"], "beta": priors["beta"]},
                "binomial_logit", extra={"n": n}, data_keys={"trials": "n"}))
        self.assertEqual(model.feature_columns, ["x1", "x2"])
        np.testing.assert_array_equal(model.data["trials"], n)

    def test_poisson_offset_and_exposure(self):
        rng = np.random.default_rng(6)
        X = rng.normal(size=(10, 1))
        off, expo = rng.normal(size=10), rng.uniform(0.5, 2, 10)
        y = rng.poisson(2.0, 10).astype(float)
        with tempfile.TemporaryDirectory() as d:
            model = vo.load_model(write_config(
                d, "p", X, y, BASE_PRIORS | {"beta": {"normal": {"loc": 0, "scale": 1}}},
                "poisson_log", extra={"o": off, "e": expo},
                data_keys={"offset": "o", "exposure": "e"}))
        np.testing.assert_allclose(model.data["offset"], off + np.log(expo), rtol=1e-15)
        self.assertEqual(model.K, 2)

    def test_errors_exit_2(self):
        rng = np.random.default_rng(7)
        X = rng.normal(size=(20, 3))
        y = (rng.random(20) < 0.5).astype(float)
        bad = [
            ({"beta": {"normal": {"loc": 0, "scale": 1}}}, {}, True),            # no alpha prior
            ({"beta": {"half_normal": {"scale": 1}}}, {}, False),                # positive on real
            ({"beta": {"student_t": {"df": 3, "loc": 0, "scale": "tau"}},        # non-normal hier.
              "tau": {"half_normal": {"scale": 1}}}, {"tau": {"constraint": "positive"}}, False),
            ({"beta": {"normal": {"loc": 0, "scale": "tau"}},                    # tau not exp(zeta)
              "tau": {"gamma": {"shape": 2, "rate": 1}}}, {"tau": {"lower": 1}}, False),
            ({"beta": {"normal": {"loc": 0, "scale": -1}}}, {}, False),          # scale <= 0
        ]
        with tempfile.TemporaryDirectory() as d:
            for priors, params, intercept in bad:
                cfg = write_config(d, "e", X, y, priors, intercept=intercept, parameters=params)
                with self.assertRaises(vo.ConfigError, msg=str(priors)):
                    vo.load_model(cfg)
                with contextlib.redirect_stderr(io.StringIO()) as err:
                    self.assertEqual(vo.main([cfg, "--family", "meanfield"]), 2)
                self.assertIn("vi_optimum: error:", err.getvalue())
            # trials with a non-binomial likelihood
            cfg = write_config(d, "t", X, y, BASE_PRIORS, extra={"n": np.ones(20)},
                               data_keys={"trials": "n"})
            with self.assertRaises(vo.ConfigError):
                vo.load_model(cfg)


# --------------------------------------------------------------------------------------------
# nuts_reference.py (the Stan program and the data file; sampling itself is not run here)
# --------------------------------------------------------------------------------------------

class TestNutsReference(unittest.TestCase):
    def test_breast_cancer_program(self):
        import nuts_reference as nr
        model = vo.load_model(os.path.join(HERE, "breast_cancer_shrinkage.json"))
        self.assertEqual(model.names, ["alpha"] + ["beta.%d" % j for j in range(1, 31)] + ["tau"])
        self.assertEqual(int(model.y.sum()), 212)               # y = 1: malignant
        np.testing.assert_allclose(model.X[:, 1:].std(axis=0, ddof=1), 1.0, rtol=1e-13)
        nc, data = nr.stan_program(model, "noncentred")
        self.assertIn("vector[30] beta = 0.0 + (1.0 * tau) * beta_z;", nc)
        self.assertIn("beta_z ~ std_normal();", nc)
        self.assertIn("real<lower=0.0> tau;", nc)
        self.assertIn("tau ~ cauchy(0, 1.0);", nc)
        self.assertIn("y ~ bernoulli_logit(alpha + X * beta);", nc)
        c, _ = nr.stan_program(model, "centred")
        self.assertIn("beta ~ normal(0.0, 1.0 * tau);", c)
        np.testing.assert_array_equal(data["X"], model.X[:, 1:])

    def test_every_likelihood_and_vector_scales(self):
        import nuts_reference as nr
        rng = np.random.default_rng(3)
        want = {"bernoulli_logit": "y ~ bernoulli_logit(", "bernoulli_probit": "normal_lcdf(sign .* (",
                "binomial_logit": "y ~ binomial_logit(trials, ", "poisson_log": "+ offset);",
                "normal": "y ~ normal(alpha + X * beta, sigma);",
                "negative_binomial_log": "y ~ neg_binomial_2_log(alpha + X * beta + offset, phi);",
                "lognormal": "y ~ lognormal(alpha + X * beta, sigma);",
                "gamma_log": "y ~ gamma(shape, shape * exp(-(alpha + X * beta)));",
                "beta_logit": "y ~ beta_proportion(inv_logit(alpha + X * beta), phi);"}
        with tempfile.TemporaryDirectory() as d:
            for lik in LIKELIHOODS:
                prog, data = nr.stan_program(vo.load_model(likelihood_problem(d, lik, rng)))
                self.assertIn(want[lik], prog)
                self.assertIn("beta ~ normal(beta_loc, beta_scale);", prog)   # per-coefficient arrays
            prog, _ = nr.stan_program(vo.load_model(horseshoe_problem(d, rng)))
            self.assertIn("vector[4] beta = 0.0 + (0.5 * lambda * tau) .* beta_z;", prog)
            self.assertIn("vector<lower=0.0>[4] lambda;", prog)
            prog, _ = nr.stan_program(vo.load_model(zoo_problem(d, rng)))
            self.assertIn("real<lower=1.0, upper=4.0> o_interval;", prog)
            self.assertIn("n_upper ~ double_exponential(1.0, 0.5);", prog)
            self.assertIn("q_vector_t ~ student_t(q_vector_t_df, 0.0, q_vector_t_scale);", prog)

    @unittest.skipIf(not shutil.which("Rscript"), "R not installed")
    def test_rdump_reads_back_in_R(self):
        import nuts_reference as nr
        data = {"N": 3, "D": 2, "X": np.array([[1.5, -2.0], [0.1, 3.0], [1e-300, 7.0]]),
                "y": np.array([0, 1, 1]), "v": np.array([0.1, -2.5e10, 3.0])}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "data.R")
            nr.write_rdump(path, data)
            expr = ("e <- new.env(); sys.source('%s', envir = e); "
                    "cat(e$N, e$D, is.integer(e$y), dim(e$X), sprintf('%%.17g', e$X), e$y, "
                    "sprintf('%%.17g', e$v))" % path)
            out = subprocess.run(["Rscript", "-e", expr], capture_output=True, text=True).stdout
        got = out.split()
        self.assertEqual(got[:5], ["3", "2", "TRUE", "3", "2"])
        np.testing.assert_array_equal(np.array(got[5:11], dtype=float), data["X"].T.ravel())
        self.assertEqual(got[11:14], ["0", "1", "1"])
        np.testing.assert_array_equal(np.array(got[14:], dtype=float), data["v"])


# --------------------------------------------------------------------------------------------
# compare_fit.py
# --------------------------------------------------------------------------------------------

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

    def run_cli(self, summary, ref=None):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "s.json"), os.path.join(d, "o.json")
            with open(a, "w") as f:
                json.dump(summary, f)
            with open(b, "w") as f:
                json.dump(ref or self.REF, f)
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

    def test_constrained_parameter_through_quantiles(self):
        """A constrained parameter is compared on the unconstrained scale: the summary's exact
        constrained quantiles map back through T^-1 to q's mean (q50) and sd ((q95 - q05) /
        (2 z_0.95)); its Monte Carlo mean/sd are not used."""
        m, s = -0.4, 0.3
        z = special.ndtri(0.95)
        ref = {"family": "meanfield", "elbo": -10.0, "parameters": [
            {"name": "sigma", "mean": m, "sd": s, "scale": "unconstrained",
             "transform": {"kind": "lower", "lower": 0.0, "upper": 0.0},
             "constrained": {"mean": 0, "sd": 0, "q05": 0, "q50": 0, "q95": 0}}]}
        for dm, r, ok in ((0.05, 1.05, True), (0.2, 1.0, False), (0.0, 1.2, False)):
            mm, ss = m + dm * s, s * r
            summ = {"algorithm": "meanfield", "parameters": [
                {"name": "sigma", "mean": 123.0, "sd": 45.0, "q05": math.exp(mm - z * ss),
                 "q50": math.exp(mm), "q95": math.exp(mm + z * ss)}]}
            res = compare_fit.compare(summ, ref)
            self.assertEqual(res["ok"], ok, (dm, r))
            self.assertAlmostEqual(res["rows"][0]["mean_err"], dm, delta=1e-9)
            self.assertAlmostEqual(res["rows"][0]["sd"] / s, r, delta=1e-9)


if __name__ == "__main__":
    unittest.main(verbosity=2)
