#!/usr/bin/python3
"""Deterministic reference optimum of the Gaussian variational families for
bayes-vi's logistic regression (``bernoulli_logit``) with Normal priors.

    vi_optimum.py CONFIG.json --family meanfield|fullrank [--out FILE]

Method (see tests/reference/README.md):

* Under q(theta) = N(m, Sigma) every logit eta_n = x_n . theta is N(mu_n, s_n^2) with
  mu_n = x_n . m and s_n^2 = x_n' Sigma x_n, so E_q log p(y_n | theta) = E log sigmoid(t_n eta_n)
  (t_n = 2 y_n - 1) is a one-dimensional Gaussian integral F(t_n mu_n, s_n).
* F is computed by Gauss-Hermite (16/24/48 nodes for s <= 0.3/0.6/1) and, when s > 1 (where Gauss-Hermite loses
  accuracy because log sigmoid has poles at +-i*pi, i.e. at distance pi/s from the real z axis),
  by splitting log sigmoid(eta) = min(eta, 0) - log1p(exp(-|eta|)): the first term's Gaussian
  expectation is closed form and the second, smooth on each half-line and negligible beyond
  |eta| = 40, is integrated against the Gaussian density by composite Gauss-Legendre.  Both rules
  agree with adaptive quadrature to ~1e-14 per row over 0.05 <= s <= 50, |mu| <= 50.
* The prior term and the entropy are closed form, so the ELBO (all constants included) and its
  exact gradient (the derivative of the discretised objective itself) are deterministic.
* Maximisation: natural-gradient fixed-point iterations with unit step (a Newton step for m, and
  Sigma^{-1} <- Lambda_0 - 2 X' diag(dF/ds^2) X, or its diagonal for meanfield), safeguarded by
  ELBO damping, then an L-BFGS polish when needed, until the gradient in the optimisation
  coordinates -- (m, log sd) for meanfield, (m, L) with L lower triangular and log-diagonal for
  fullrank -- has Euclidean norm below --tol.

Standard library + numpy + scipy only.
"""

import argparse
import csv
import json
import math
import os
import sys
import time

import numpy as np
from scipy import linalg, optimize, special

LOG_2PI = math.log(2.0 * math.pi)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


class ConfigError(Exception):
    pass


# --------------------------------------------------------------------------------------------
# Problem definition
# --------------------------------------------------------------------------------------------

class Problem:
    """Design matrix X (N x P, intercept column first when present), signs t = 2y-1, Normal prior
    (loc, scale) per parameter, parameter names."""

    def __init__(self, X, y, loc, scale, names, features):
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.y = np.asarray(y, dtype=np.float64)
        self.t = 2.0 * self.y - 1.0
        self.loc = np.asarray(loc, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.prec = 1.0 / self.scale ** 2
        self.names = list(names)
        self.features = list(features)
        self.N, self.P = self.X.shape
        self.X2 = self.X * self.X


def _prior_vector(node, key, n, where):
    if key not in node:
        raise ConfigError("%s/%s: missing" % (where, key))
    v = node[key]
    if isinstance(v, bool) or not (isinstance(v, (int, float)) or isinstance(v, list)):
        raise ConfigError("%s/%s: must be a number or an array of numbers" % (where, key))
    if isinstance(v, list):
        if len(v) != n or any(isinstance(e, bool) or not isinstance(e, (int, float)) for e in v):
            raise ConfigError("%s/%s: array must hold %d numbers" % (where, key, n))
        arr = np.array(v, dtype=np.float64)
    else:
        arr = np.full(n, float(v))
    if not np.all(np.isfinite(arr)):
        raise ConfigError("%s/%s: must be finite" % (where, key))
    return arr


def _normal_prior(priors, name, n):
    where = "/model/priors/" + name
    if name not in priors:
        raise ConfigError(where + ": missing (the reference requires every prior to be stated)")
    p = priors[name]
    if not isinstance(p, dict) or list(p.keys()) != ["normal"] or not isinstance(p["normal"], dict):
        raise ConfigError(where + ": only {\"normal\": {\"loc\": .., \"scale\": ..}} is supported")
    loc = _prior_vector(p["normal"], "loc", n, where + "/normal")
    scale = _prior_vector(p["normal"], "scale", n, where + "/normal")
    if np.any(scale <= 0):
        raise ConfigError(where + "/normal/scale: must be > 0")
    return loc, scale


def read_csv(path):
    """Header + float matrix. Rejects ragged rows and non-finite values."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise ConfigError("%s: empty file" % path)
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    if data.shape[0] == 0:
        raise ConfigError("%s: no rows" % path)
    if data.shape[1] != len(header):
        raise ConfigError("%s: %d columns in header, %d in rows" % (path, len(header), data.shape[1]))
    if not np.all(np.isfinite(data)):
        raise ConfigError("%s: non-finite value" % path)
    return header, data


def load_problem(config_path):
    with open(config_path) as f:
        cfg = json.load(f)
    try:
        data = cfg["data"]
        model = cfg["model"]
    except (KeyError, TypeError):
        raise ConfigError("config must have objects 'data' and 'model'")
    csv_path = data.get("csv")
    if not isinstance(csv_path, str):
        raise ConfigError("/data/csv: missing or not a string")
    if not os.path.isabs(csv_path):
        csv_path = os.path.join(os.path.dirname(os.path.abspath(config_path)), csv_path)
    response = data.get("response")
    if not isinstance(response, str):
        raise ConfigError("/data/response: missing or not a string")
    header, table = read_csv(csv_path)
    if response not in header:
        raise ConfigError("/data/response: column %r not in %s" % (response, csv_path))
    features = data.get("features")
    if features is None:
        features = [h for h in header if h != response]
    elif not isinstance(features, list) or not all(isinstance(h, str) for h in features):
        raise ConfigError("/data/features: must be an array of column names")
    for h in features:
        if h not in header:
            raise ConfigError("/data/features: column %r not in %s" % (h, csv_path))
    y = table[:, header.index(response)]
    if not np.all((y == 0) | (y == 1)):
        raise ConfigError("%s: response %r must be 0 or 1" % (csv_path, response))
    X = table[:, [header.index(h) for h in features]]
    if data.get("standardize", False):
        if X.shape[0] < 2:
            raise ConfigError("/data/standardize: needs at least 2 rows")
        sd = X.std(axis=0, ddof=1)
        if np.any(sd == 0):
            raise ConfigError("/data/standardize: constant feature %r"
                              % features[int(np.argmin(sd))])
        X = (X - X.mean(axis=0)) / sd
    if model.get("likelihood") != "bernoulli_logit":
        raise ConfigError("/model/likelihood: only 'bernoulli_logit' is supported")
    intercept = model.get("intercept", False)
    if not isinstance(intercept, bool):
        raise ConfigError("/model/intercept: must be true or false")
    priors = model.get("priors")
    if not isinstance(priors, dict):
        raise ConfigError("/model/priors: missing (the reference requires explicit priors)")
    D = X.shape[1]
    bloc, bscale = _normal_prior(priors, "beta", D)
    names = ["beta.%d" % (j + 1) for j in range(D)]
    feats = list(features)
    if intercept:
        aloc, ascale = _normal_prior(priors, "alpha", 1)
        X = np.hstack([np.ones((X.shape[0], 1)), X])
        bloc = np.concatenate([aloc, bloc])
        bscale = np.concatenate([ascale, bscale])
        names = ["alpha"] + names
        feats = [None] + feats
    return Problem(X, y, bloc, bscale, names, feats)


# --------------------------------------------------------------------------------------------
# The 1-D expectation F(mu, s) = E[log sigmoid(mu + s z)], z ~ N(0, 1), and its derivatives
# --------------------------------------------------------------------------------------------

# Composite Gauss-Legendre panels on [0, 40] for the smooth remainder -log1p(exp(-|eta|)).
_PANEL_EDGES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0,
                         14.0, 17.0, 20.0, 24.0, 28.0, 33.0, 40.0])


# Gauss-Hermite tiers (largest logit sd, nodes): fewer nodes suffice for narrow Gaussians. Each
# tier reaches the double-precision floor (|error| < 1e-13 in F, < 1e-15 in dF/dmu, dF/ds over
# |mu| <= 40) at its upper sd, checked against 200 nodes; see README.md.
GH_TIERS = ((0.3, 16), (0.6, 24), (1.0, 48))


def _gh_rule(n):
    x, w = np.polynomial.hermite.hermgauss(n)
    return math.sqrt(2.0) * x, w / math.sqrt(math.pi)


class Quadrature:
    """F(mu, s) with derivatives dF/dmu, dF/ds (exact derivatives of the discrete rule).

    s <= 1: Gauss-Hermite in z, node count by tier (GH_TIERS, times `refine`).
    s >  1: closed-form E[min(eta, 0)] + composite Gauss-Legendre (leg_nodes per panel) of
            -log1p(exp(-|eta|)) * N(eta; mu, s^2) over eta in [-40, 40].
    refine=2 doubles every node count (used to check the error of the default rule).
    """

    def __init__(self, refine=1, leg_nodes=20, block=1 << 19):
        self.tiers = [(smax, _gh_rule(refine * n), refine * n) for smax, n in GH_TIERS]
        self.switch = GH_TIERS[-1][0]
        self.leg_nodes = refine * leg_nodes
        gx, gw = np.polynomial.legendre.leggauss(self.leg_nodes)
        a, b = _PANEL_EDGES[:-1], _PANEL_EDGES[1:]
        e = ((b - a)[:, None] / 2 * gx[None, :] + (a + b)[:, None] / 2).ravel()
        ew = ((b - a)[:, None] / 2 * gw[None, :]).ravel()
        r = -np.log1p(np.exp(-e))
        self.eta = np.concatenate([-e[::-1], e])                # nodes in eta
        self.eta_wr = np.concatenate([(ew * r)[::-1], ew * r])  # weight * remainder
        self.block = block                                      # elements per work array
        self.z, self.w = self.tiers[-1][1]                      # for the s == 0 limit

    def __call__(self, mu, s, grad=True):
        mu = np.asarray(mu, dtype=np.float64)
        s = np.asarray(s, dtype=np.float64)
        F = np.empty_like(mu)
        Fm = np.empty_like(mu)
        Fs = np.empty_like(mu)
        lower = -np.inf
        for smax, (z, w), n in self.tiers:
            idx = np.flatnonzero((s > lower) & (s <= smax))
            lower = smax
            wz = w * z
            step = max(1, self.block // n)
            for k in range(0, idx.size, step):
                i = idx[k:k + step]
                x = mu[i, None] + s[i, None] * z[None, :]
                e = np.exp(-np.abs(x))
                l1 = np.log1p(e)
                F[i] = (np.minimum(x, 0.0) - l1) @ w           # log sigmoid(x) = min(x,0) - log1p(e^-|x|)
                if grad:
                    d1 = np.where(x > 0, e, 1.0) / (1.0 + e)   # sigmoid(-x) = d/dx log sigmoid(x)
                    Fm[i] = d1 @ w
                    Fs[i] = d1 @ wz
        idx = np.flatnonzero(s > self.switch)
        step = max(1, self.block // self.eta.size)
        for k in range(0, idx.size, step):
            i = idx[k:k + step]
            m, sd = mu[i], s[i]
            u = m / sd
            phi = INV_SQRT_2PI * np.exp(-0.5 * u * u)
            cdf = special.ndtr(-u)
            d = (self.eta[None, :] - m[:, None]) / sd[:, None]
            dens = np.exp(-0.5 * d * d) * (INV_SQRT_2PI / sd)[:, None]
            wd = dens * self.eta_wr[None, :]
            F[i] = m * cdf - sd * phi + wd.sum(axis=1)
            if grad:
                Fm[i] = cdf + (wd * d).sum(axis=1) / sd
                Fs[i] = -phi + (wd * (d * d - 1.0)).sum(axis=1) / sd
        return F, Fm, Fs

    def describe(self):
        return {"gauss_hermite": "logit sd <= %s: %s nodes" % (
                    "/".join(str(t[0]) for t in self.tiers), "/".join(str(t[2]) for t in self.tiers)),
                "split_rule": "logit sd > %s: closed-form E[min(eta,0)] + Gauss-Legendre %d nodes "
                              "x %d panels on |eta|<=40"
                              % (self.switch, self.leg_nodes, len(_PANEL_EDGES) - 1)}


def _second_moment_coef(Fs, s, quad_zero):
    """a = dF/d(s^2) = (dF/ds) / (2 s); at s == 0 (an all-zero design row) use the limit."""
    a = np.empty_like(s)
    pos = s > 0
    a[pos] = Fs[pos] / (2.0 * s[pos])
    if np.any(~pos):
        a[~pos] = quad_zero(~pos)
    return a


# --------------------------------------------------------------------------------------------
# ELBO of the two families
# --------------------------------------------------------------------------------------------

class Family:
    """Common machinery; subclasses define the covariance parametrisation."""

    def __init__(self, prob, quad):
        self.prob = prob
        self.quad = quad
        self.P = prob.P
        self.nfev = 0

    def _loglik_terms(self, m, s, grad=True):
        p = self.prob
        mu = p.X @ m
        F, Fm, Fs = self.quad(p.t * mu, s, grad)
        if not grad:
            return F.sum(), None, None, None
        g_mu = p.t * Fm

        def limit(mask):
            x = (p.t * mu)[mask][:, None] + 0.0 * self.quad.z[None, :]
            d1 = special.expit(-x)
            return 0.5 * ((-d1 * (1.0 - d1)) @ self.quad.w)

        a = _second_moment_coef(Fs, s, limit)
        return F.sum(), g_mu, a, (F, Fm, Fs)

    def _remember(self, x, g_mu, a):
        self._last = (x.copy(), g_mu, a)

    def _recall(self, x):
        last = getattr(self, "_last", None)
        if last is not None and np.array_equal(last[0], x):
            return last[1], last[2]
        return None

    def natural_targets(self, x):
        """Gradient in m and the fixed-point precision Lambda_0 - 2 X' diag(dF/ds^2) X."""
        p = self.prob
        got = self._recall(x)
        if got is None:
            self.elbo(x)
            got = self._recall(x)
        g_mu, a = got
        m = x[:self.P]
        Pmat = (p.X * (-2.0 * a)[:, None]).T @ p.X
        Pmat[np.diag_indices_from(Pmat)] += p.prec
        g_m = p.X.T @ g_mu - (m - p.loc) * p.prec
        return g_m, Pmat

    def _prior_mean_part(self, m):
        p = self.prob
        r = m - p.loc
        val = -0.5 * self.P * LOG_2PI - np.sum(np.log(p.scale)) - 0.5 * np.sum(r * r * p.prec)
        return val, -r * p.prec

    def entropy(self, logdet):
        return 0.5 * self.P * (1.0 + LOG_2PI) + 0.5 * logdet


class MeanField(Family):
    """params = (m, log sd)."""
    name = "meanfield"

    def split(self, x):
        return x[:self.P], x[self.P:]

    def init_params(self, m, prec_matrix):
        return np.concatenate([m, -0.5 * np.log(np.diag(prec_matrix))])

    def moments(self, x):
        m, rho = self.split(x)
        return m, np.exp(2.0 * rho)

    def elbo(self, x, grad=True):
        self.nfev += 1
        p = self.prob
        m, rho = self.split(x)
        v = np.exp(2.0 * rho)
        s = np.sqrt(p.X2 @ v)
        ll, g_mu, a, _ = self._loglik_terms(m, s, grad)
        pm, g_m_prior = self._prior_mean_part(m)
        val = ll + pm - 0.5 * np.sum(v * p.prec) + self.entropy(2.0 * np.sum(rho))
        if not grad:
            return val, None
        self._remember(x, g_mu, a)
        g_m = p.X.T @ g_mu + g_m_prior
        g_v = p.X2.T @ a - 0.5 * p.prec
        g_rho = 2.0 * v * g_v + 1.0
        return val, np.concatenate([g_m, g_rho])

    def combine(self, x, m_new, Pmat, rho_step):
        """Move a fraction rho_step of the way (in m and in precision) to the targets."""
        m, v = self.moments(x)
        prec_now = 1.0 / v
        prec_tgt = np.diag(Pmat)
        prec = (1.0 - rho_step) * prec_now + rho_step * prec_tgt
        mm = m + rho_step * (m_new - m)
        return np.concatenate([mm, -0.5 * np.log(prec)])

    def summary(self, x):
        m, v = self.moments(x)
        return m, np.sqrt(v), None


class FullRank(Family):
    """params = (m, L) with L lower triangular stored row-wise, diagonal as log L_ii."""
    name = "fullrank"

    def __init__(self, prob, quad):
        super().__init__(prob, quad)
        self.tril = np.tril_indices(self.P)
        self.diag_pos = np.flatnonzero(self.tril[0] == self.tril[1])

    def to_L(self, lvec):
        L = np.zeros((self.P, self.P))
        vals = lvec.copy()
        vals[self.diag_pos] = np.exp(vals[self.diag_pos])
        L[self.tril] = vals
        return L

    def from_L(self, L):
        vals = L[self.tril].copy()
        vals[self.diag_pos] = np.log(vals[self.diag_pos])
        return vals

    def init_params(self, m, prec_matrix):
        return np.concatenate([m, self.from_L(_chol_of_inverse(prec_matrix))])

    def moments(self, x):
        m = x[:self.P]
        L = self.to_L(x[self.P:])
        return m, L @ L.T

    def elbo(self, x, grad=True):
        self.nfev += 1
        p = self.prob
        m = x[:self.P]
        L = self.to_L(x[self.P:])
        XL = p.X @ L
        s = np.sqrt(np.einsum("ij,ij->i", XL, XL))
        ll, g_mu, a, _ = self._loglik_terms(m, s, grad)
        pm, g_m_prior = self._prior_mean_part(m)
        diagL = np.diag(L)
        val = (ll + pm - 0.5 * np.sum(np.sum(L * L, axis=1) * p.prec)
               + self.entropy(2.0 * np.sum(np.log(diagL))))
        if not grad:
            return val, None
        self._remember(x, g_mu, a)
        g_m = p.X.T @ g_mu + g_m_prior
        # dELBO/dSigma = X' diag(a) X - diag(prec)/2 (+ Sigma^{-1}/2 from the entropy);
        # dELBO/dL = 2 (X' diag(a) X - diag(prec)/2) L + diag(1/L_ii)
        GL = 2.0 * (p.X.T @ (a[:, None] * XL)) - p.prec[:, None] * L
        gvals = GL[self.tril].copy()
        gvals[self.diag_pos] = gvals[self.diag_pos] * diagL + 1.0
        return val, np.concatenate([g_m, gvals])

    def combine(self, x, m_new, Pmat, rho_step):
        m = x[:self.P]
        L = self.to_L(x[self.P:])
        if rho_step == 1.0:
            prec = Pmat
        else:
            Linv = linalg.solve_triangular(L, np.eye(self.P), lower=True)
            prec = (1.0 - rho_step) * (Linv.T @ Linv) + rho_step * Pmat
        mm = m + rho_step * (m_new - m)
        return np.concatenate([mm, self.from_L(_chol_of_inverse(prec))])

    def summary(self, x):
        m, S = self.moments(x)
        return m, np.sqrt(np.diag(S)), S


def _chol_of_inverse(prec):
    """Lower-triangular L with L L' = prec^{-1}, from the Cholesky factor of prec."""
    prec = 0.5 * (prec + prec.T)
    R = linalg.cholesky(prec, lower=True)           # prec = R R'
    Rinv = linalg.solve_triangular(R, np.eye(prec.shape[0]), lower=True)
    # prec^{-1} = R^{-T} R^{-1}; R^{-T} is upper triangular -> re-factor to lower form.
    S = Rinv.T @ Rinv
    return linalg.cholesky(0.5 * (S + S.T), lower=True)


# --------------------------------------------------------------------------------------------
# Optimiser
# --------------------------------------------------------------------------------------------

def _fixed_point(fam, x, f, g, tol, max_iter, log):
    """Natural-gradient steps of unit length: m <- m + P^{-1} grad_m (a Newton step, as the
    Hessian of the expected log joint in m is -P) and Sigma^{-1} <- P (fullrank) or
    diag(Sigma)^{-1} <- diag(P) (meanfield), with P = Lambda_0 - 2 X' diag(dF/ds^2) X.  At a
    fixed point both gradients vanish.  Steps are halved (in m and in precision) if the ELBO
    drops by more than rounding."""
    it = 0
    stall = 0
    for it in range(1, max_iter + 1):
        gn = float(np.linalg.norm(g))
        if gn < tol:
            return x, f, g, it - 1
        g_m, Pmat = fam.natural_targets(x)
        try:
            cf = linalg.cho_factor(Pmat)
        except linalg.LinAlgError:
            break
        m_new = x[:fam.P] + linalg.cho_solve(cf, g_m)
        rho_step = 1.0
        accepted = False
        while rho_step > 1e-4:
            try:
                xn = fam.combine(x, m_new, Pmat, rho_step)
            except (linalg.LinAlgError, FloatingPointError):
                rho_step *= 0.5
                continue
            fn, gnew = fam.elbo(xn)
            # accept ascent; near the optimum accept changes at rounding level too
            if np.isfinite(fn) and fn >= f - 1e-12 * (1.0 + abs(f)):
                accepted = True
                break
            rho_step *= 0.5
        if not accepted:
            break
        stall = stall + 1 if (np.linalg.norm(gnew) >= gn and rho_step < 1.0) else 0
        x, f, g = xn, fn, gnew
        if log:
            log("fixed-point %3d  elbo %.12f  |grad| %.3e  step %.3g"
                % (it, f, np.linalg.norm(g), rho_step))
        if stall >= 5:
            break
    return x, f, g, it


def _lbfgs(fam, x, f, g, tol, max_iter, log):
    """L-BFGS on the same objective (used when the fixed point stalls, and as a cross-check).
    It stops near |grad| ~ 1e-8 once ELBO differences fall below rounding."""
    def negf(z):
        v, gr = fam.elbo(z)
        return -v, -gr
    res = optimize.minimize(negf, x, jac=True, method="L-BFGS-B",
                            options={"maxiter": max_iter, "maxfun": 2 * max_iter,
                                     "ftol": 0.0, "gtol": tol / 10, "maxcor": 30})
    f2, g2 = fam.elbo(res.x)
    if log:
        log("L-BFGS %d iterations: %s  elbo %.12f  |grad| %.3e"
            % (res.nit, res.message, f2, np.linalg.norm(g2)))
    info = {"iterations": int(res.nit), "message": str(res.message)}
    if np.isfinite(f2) and np.linalg.norm(g2) < np.linalg.norm(g):
        return res.x, f2, g2, info
    return x, f, g, info


def optimize_family(fam, tol=1e-9, max_fixed_point=500, max_lbfgs=20000, log=None,
                    method="auto"):
    """method "auto": fixed point, then (if it stalls) L-BFGS and the fixed point again.
    method "lbfgs": L-BFGS only (an independent optimiser for cross-checks)."""
    p = fam.prob
    t0 = time.time()
    # Start: m at the prior location, precision Lambda_0 + X'X/4 (the largest curvature the
    # logistic likelihood can have, so the start is never wider than the posterior).
    prec0 = (p.X.T @ p.X) * 0.25
    prec0[np.diag_indices_from(prec0)] += p.prec
    x = fam.init_params(p.loc.copy(), prec0)
    f, g = fam.elbo(x)
    fp_iters = 0
    lbfgs_info = None
    steps = []
    if method == "lbfgs":
        x, f, g, lbfgs_info = _lbfgs(fam, x, f, g, tol, max_lbfgs, log)
        steps.append("L-BFGS")
    else:
        x, f, g, n = _fixed_point(fam, x, f, g, tol, max_fixed_point, log)
        fp_iters += n
        steps.append("natural-gradient fixed point")
        if not np.linalg.norm(g) < tol:
            x, f, g, lbfgs_info = _lbfgs(fam, x, f, g, tol, max_lbfgs, log)
            x, f, g, n = _fixed_point(fam, x, f, g, tol, max_fixed_point, log)
            fp_iters += n
            steps += ["L-BFGS", "fixed point"]
    gn = float(np.linalg.norm(g))
    return {"x": x, "elbo": float(f), "grad": g, "grad_norm": gn,
            "grad_max_abs": float(np.max(np.abs(g))), "converged": bool(gn < 1e-8),
            "fixed_point_iterations": fp_iters, "lbfgs": lbfgs_info, "method": " + ".join(steps),
            "function_evaluations": fam.nfev, "seconds": time.time() - t0}


FAMILIES = {"meanfield": MeanField, "fullrank": FullRank}


def solve(config_path, family, tol=1e-9, check_quadrature=True, log=None):
    prob = load_problem(config_path)
    quad = Quadrature()
    fam = FAMILIES[family](prob, quad)
    res = optimize_family(fam, tol=tol, log=log)
    m, sd, S = fam.summary(res["x"])
    out = {
        "family": family,
        "elbo": res["elbo"],
        "grad_norm": res["grad_norm"],
        "parameters": [dict({"name": n, "mean": float(mi), "sd": float(si)},
                            **({"feature": fe} if fe is not None else {}))
                       for n, fe, mi, si in zip(prob.names, prob.features, m, sd)],
    }
    if S is not None:
        out["cov"] = [[float(v) for v in row] for row in S]
    s_all = np.sqrt(np.einsum("ij,jk,ik->i", prob.X, S, prob.X) if S is not None
                    else prob.X2 @ (sd * sd))
    diag = {
        "converged": res["converged"],
        "grad_max_abs": res["grad_max_abs"],
        "method": res["method"],
        "fixed_point_iterations": res["fixed_point_iterations"],
        "lbfgs": res["lbfgs"],
        "function_evaluations": res["function_evaluations"],
        "seconds": round(res["seconds"], 3),
        "N": prob.N, "P": prob.P,
        "max_logit_sd": float(np.max(s_all)),
        "rows_on_split_rule": int(np.sum(s_all > quad.switch)),
        "quadrature": quad.describe(),
    }
    if check_quadrature:
        # Re-evaluate at the optimum with a much finer rule: the ELBO difference bounds the
        # quadrature error; the gradient under the fine rule says how far the optimum would move.
        fine = Quadrature(refine=2)
        fam_f = FAMILIES[family](prob, fine)
        f_fine, g_fine = fam_f.elbo(res["x"])
        diag["quadrature_check"] = {
            "elbo_fine_minus_elbo": float(f_fine - res["elbo"]),
            "grad_norm_under_fine_rule": float(np.linalg.norm(g_fine)),
            "fine_rule": fine.describe(),
        }
    out["diagnostics"] = diag
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--family", required=True, choices=sorted(FAMILIES))
    ap.add_argument("--out", help="write the JSON here (atomically) instead of stdout")
    ap.add_argument("--tol", type=float, default=1e-9,
                    help="target Euclidean gradient norm (default 1e-9; 'converged' means < 1e-8)")
    ap.add_argument("--no-quadrature-check", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="progress on stderr")
    args = ap.parse_args(argv)
    log = (lambda msg: print(msg, file=sys.stderr)) if args.verbose else None
    try:
        out = solve(args.config, args.family, tol=args.tol,
                    check_quadrature=not args.no_quadrature_check, log=log)
    except (ConfigError, OSError, ValueError, json.JSONDecodeError) as e:
        print("vi_optimum: error: %s" % e, file=sys.stderr)
        return 2
    text = json.dumps(out, indent=1) + "\n"
    if args.out:
        tmp = args.out + ".tmp%d" % os.getpid()
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.out)
    else:
        sys.stdout.write(text)
    if not out["diagnostics"]["converged"]:
        print("vi_optimum: warning: gradient norm %.3e did not reach 1e-8" % out["grad_norm"],
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
