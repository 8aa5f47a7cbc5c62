#!/usr/bin/python3
"""Deterministic reference optimum of bayes-vi's Gaussian variational families, for every
likelihood and prior family bayes-vi has.

    vi_optimum.py CONFIG.json --family meanfield|fullrank [--out FILE]

q = N(m, Sigma) on the unconstrained parameter space (meanfield: Sigma diagonal). The ELBO

    E_q[log p(y | eta)] + E_q[log p(T(zeta)) + log|T'(zeta)|] + P/2 (1 + log 2 pi) + 1/2 log det Sigma

is computed exactly (to quadrature accuracy, ~1e-13 relative), every constant included:

* likelihood (vi_likelihoods.py): eta_i = x_i . theta is N(mu_i, s_i^2) under q, so each row's
  expectation is a 1-D Gaussian integral -- closed form for poisson_log and normal (whose
  sigma = exp(u) is handled jointly with eta_i by an exponential tilt), Gauss-Hermite / split or
  sinh-graded Gauss-Legendre rules for the logit and probit links (vi_quadrature.py);
* priors (vi_priors.py): one 1-D integral per coordinate over its Gaussian marginal, closed form
  where one exists, else a composite Gauss-Legendre rule that resolves the density's kinks and
  complex singularities; a hierarchical normal(loc, f * prod of positive parameters) prior is
  closed form through the same tilt (HierarchicalNormal);
* entropy: closed form.

Gradients: every term is a function of m and of linear functionals of Sigma (s_i^2, the
coordinate variances, Cov(eta_i, u), ...), so the gradient is dELBO/dm and the symmetric
G = dE/dSigma of the expected log joint, chained to the optimization coordinates: (m, log sd)
for meanfield (d/dlog sd_j = 2 sd_j^2 G_jj + 1) and (m, L) with Sigma = L L', L lower triangular
with log diagonal, for fullrank (d/dL = 2 G L + diag(1/L_ii)).

Optimizer: natural-gradient fixed point (the Bayesian learning rule): with P = -2 G (by Price's
theorem, the expected negative Hessian of the log joint),
    S <- (1 - rho) S + rho P,    m <- m + rho S^-1 dELBO/dm        (S = Sigma^-1; meanfield keeps
                                                                    diag(S), but moves m by the
                                                                    full matrix)
unit steps (rho = 1 is a Newton step in m), halved while S is not positive definite or the ELBO
drops; where it stalls, a Newton polish (finite-difference Hessian of the exact gradient), then
L-BFGS. Stop when the Euclidean norm of the gradient in the optimization coordinates is below
--tol (1e-9); "converged" means < 1e-8 (exit status 1 otherwise).

Standard library + numpy + scipy only. See tests/reference/README.md.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np
from scipy import linalg, optimize, special
from scipy.linalg import blas

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from vi_quadrature import (LOG_2PI, LogisticExpectation, PanelRule,  # noqa: E402
                           ProbitExpectation)
from vi_priors import ConfigError, expect_prior, is_closed_form  # noqa: E402
from vi_model import FixedPrior, load_model, start_point  # noqa: E402
from vi_likelihoods import make_likelihood  # noqa: E402

# Recorded by make_datasets.py: optima of an older version are recomputed.
REFERENCE_VERSION = 3

# Backwards-compatible names (the logistic rule was this module's Quadrature).
Quadrature = LogisticExpectation
load_problem = load_model


# --------------------------------------------------------------------------------------------
# The expected log joint and its gradient
# --------------------------------------------------------------------------------------------

def weighted_gram(X, a):
    """X' diag(a) X. When a <= 0 (every likelihood here is log-concave in eta, so
    d/ds^2 E log p <= 0) as -B'B with B = sqrt(-a) X by BLAS syrk: half the flops of a GEMM."""
    if np.all(a <= 0):
        B = X * np.sqrt(-a)[:, None]
        G = -blas.dsyrk(1.0, B.T, trans=0)              # B.T is Fortran-ordered: no copy
        iu = np.triu_indices_from(G, 1)
        G[(iu[1], iu[0])] = G[iu]
        return G
    return X.T @ (a[:, None] * X)


class Terms:
    """E_q[log p(y, T(zeta)) + log|T'(zeta)|] at one (m, Sigma): value, g_m = d/dm, and
    dE/dSigma = pad(X' diag(a) X) + Gs (the likelihood's s_i^2 part kept as the row vector a,
    everything else in the dense P x P matrix Gs)."""

    def __init__(self, value, g_m=None, a=None, Gs=None, X=None):
        self.value, self.g_m, self.a, self.Gs = value, g_m, a, Gs
        self._X, self._gram = X, None

    def gram(self):
        """X' diag(a) X, computed once."""
        if self._gram is None:
            self._gram = weighted_gram(self._X, self.a)
        return self._gram


class Objective:
    """Evaluates Terms for a model; `refine` multiplies every quadrature rule's resolution."""

    def __init__(self, model, refine=1):
        self.model = model
        self.logistic = LogisticExpectation(refine=refine)
        self.probit = ProbitExpectation(refine=refine)
        self.rule = PanelRule(refine=refine)
        self.lik = make_likelihood(model, self.logistic, self.probit)

    def evaluate(self, m, Sigma, mu, s2, c, grad=True):
        """Sigma: (P,) variances (meanfield) or (P, P) covariance (fullrank); mu, s2: the rows'
        linear predictor moments; c = Cov(eta_i, log sigma) (normal likelihood, else None)."""
        M = self.model
        full = Sigma.ndim == 2
        var = np.diag(Sigma) if full else Sigma
        iu = M.sigma_index
        sig = None if iu is None else (m[iu], var[iu], c)
        rows = self.lik.expected(mu, s2, grad, sig)
        value = rows.value
        g_m = np.zeros(M.P) if grad else None
        Gs = np.zeros((M.P, M.P)) if grad else None
        if grad:
            g_m[:M.K] = M.X.T @ rows.g_mu
            if iu is not None:
                g_m[iu] += rows.g_mu_u
                Gs[iu, iu] += rows.g_v_u
                cross = 0.5 * (M.X.T @ rows.g_c)
                Gs[:M.K, iu] += cross
                Gs[iu, :M.K] += cross
        for p in M.priors:
            if isinstance(p, FixedPrior):
                value += self._fixed(p, m, var, g_m, Gs, grad)
            else:
                value += self._hierarchical(p, m, Sigma, var, full, g_m, Gs, grad)
        return Terms(value, g_m, rows.a, Gs, M.X)

    def _fixed(self, p, m, var, g_m, Gs, grad):
        idx = p.block.coords()
        val, dm, dv = expect_prior(p.family, p.block.transform, p.h, m[idx], var[idx],
                                   self.logistic, self.rule)
        if grad:
            g_m[idx] += dm
            Gs[idx, idx] += dv
        return float(val.sum())

    @staticmethod
    def _hierarchical(p, m, Sigma, var, full, g_m, Gs, grad):
        """x_j ~ N(loc, f e^(U_j)), U_j = a_j . zeta (HierarchicalNormal): with T_j =
        E[(x_j - loc)^2 e^(-2 U_j)] = exp(-2 m_U + 2 v_U) ((m_j - loc - 2 c_j)^2 + v_j),
        c_j = Cov(x_j, U_j), E log p = -log(2 pi)/2 - log f - m_U - T_j / (2 f^2)."""
        idx = p.block.coords()
        A = np.zeros((idx.size, m.size))
        for j, load in enumerate(p.loadings):
            for k, cnt in load.items():
                A[j, k] = cnt
        mU = A @ m
        if full:
            SA = Sigma @ A.T                                 # P x n
            vU = np.einsum("jp,pj->j", A, SA)
            c = SA[idx, np.arange(idx.size)]
        else:
            vU = (A * A) @ var
            c = np.zeros(idx.size)
        f2 = p.factor ** 2
        with np.errstate(over="ignore"):
            tilt = np.exp(-2.0 * mU + 2.0 * vU)
        r = m[idx] - p.loc - 2.0 * c
        T = tilt * (r * r + var[idx])
        value = float(np.sum(-0.5 * LOG_2PI - math.log(p.factor) - mU - T / (2.0 * f2)))
        if grad:
            g_m[idx] += -tilt * r / f2
            g_m += A.T @ (-1.0 + T / f2)
            Gs[idx, idx] += -tilt / (2.0 * f2)
            Gs += A.T @ ((-T / f2)[:, None] * A)
            dc = 2.0 * tilt * r / f2
            E = np.zeros_like(A)
            E[np.arange(idx.size), idx] = 1.0
            half = 0.5 * (E.T @ (dc[:, None] * A))
            Gs += half + half.T
        return value


def entropy(P, logdet):
    return 0.5 * P * (1.0 + LOG_2PI) + 0.5 * logdet


# --------------------------------------------------------------------------------------------
# The two families
# --------------------------------------------------------------------------------------------

class Family:
    def __init__(self, model, objective=None):
        self.model = model
        self.prob = model        # older name
        self.obj = objective or Objective(model)
        self.P = model.P
        self.nfev = 0
        self._last = None

    def _remember(self, x, terms):
        self._last = (x.copy(), terms)

    def natural_targets(self, x):
        """dELBO/dm and P = -2 dE/dSigma (full matrix)."""
        if self._last is None or not np.array_equal(self._last[0], x):
            self.elbo(x)
        t = self._last[1]
        M = self.model
        G = t.Gs.copy()
        G[:M.K, :M.K] += t.gram()
        return t.g_m, -2.0 * G

    def _rows(self, m, XS):
        """mu, and c = Cov(eta, log sigma) for the normal likelihood (XS: X L[:K,:K] or None)."""
        M = self.model
        mu = M.X @ m[:M.K]
        if M.sigma_index is None:
            return mu, None
        if XS is None:
            return mu, np.zeros(M.N)
        return mu, XS[0] @ XS[1]


class MeanField(Family):
    """params = (m, log sd)."""
    name = "meanfield"

    def split(self, x):
        return x[:self.P], x[self.P:]

    def natural_scale(self, x):
        """What makes the gradient scale-free: sd_j for m_j, 1 for log sd_j."""
        return np.concatenate([np.exp(self.split(x)[1]), np.ones(self.P)])

    def init_params(self, m, var):
        return np.concatenate([m, 0.5 * np.log(var)])

    def moments(self, x):
        m, rho = self.split(x)
        return m, np.exp(2.0 * rho)

    def elbo(self, x, grad=True):
        self.nfev += 1
        M = self.model
        m, rho = self.split(x)
        v = np.exp(2.0 * rho)
        mu, c = self._rows(m, None)
        s2 = M.X2 @ v[:M.K]
        t = self.obj.evaluate(m, v, mu, s2, c, grad)
        val = t.value + entropy(self.P, 2.0 * np.sum(rho))
        if not grad:
            return val, None
        self._remember(x, t)
        Gd = np.diag(t.Gs).copy()
        Gd[:M.K] += M.X2.T @ t.a
        return val, np.concatenate([t.g_m, 2.0 * v * Gd + 1.0])

    def combine(self, x, g_m, Ptar, rho_step):
        """Precision (1 - rho) S + rho P on the diagonal; m moved by the full matrix
        (1 - rho) diag(S) + rho P (a Newton step at rho = 1)."""
        m, v = self.moments(x)
        Mmat = rho_step * Ptar
        Mmat[np.diag_indices_from(Mmat)] += (1.0 - rho_step) / v
        cf = linalg.cho_factor(Mmat)                    # LinAlgError when not positive definite
        mm = m + rho_step * linalg.cho_solve(cf, g_m)
        return np.concatenate([mm, -0.5 * np.log(np.diag(Mmat))])

    def summary(self, x):
        m, v = self.moments(x)
        return m, np.sqrt(v), None

    def cov(self, x):
        return np.diag(self.moments(x)[1])


class FullRank(Family):
    """params = (m, L) with L lower triangular stored row-wise, diagonal as log L_ii."""
    name = "fullrank"

    def __init__(self, model, objective=None):
        super().__init__(model, objective)
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

    def init_params(self, m, var):
        return np.concatenate([m, self.from_L(np.diag(np.sqrt(var)))])

    def natural_scale(self, x):
        """What makes the gradient scale-free: sd_j for m_j, sd_i for L_ij (i > j: its units are
        theta_i's), 1 for log L_ii."""
        sd = np.sqrt(np.diag(self.moments(x)[1]))
        scale = sd[self.tril[0]]
        scale[self.diag_pos] = 1.0
        return np.concatenate([sd, scale])

    def moments(self, x):
        m = x[:self.P]
        L = self.to_L(x[self.P:])
        return m, L @ L.T

    def elbo(self, x, grad=True):
        self.nfev += 1
        M = self.model
        m = x[:self.P]
        L = self.to_L(x[self.P:])
        S = L @ L.T
        XL = M.X @ L[:M.K, :M.K]                 # rows of L above K have no entries past K
        s2 = np.einsum("ij,ij->i", XL, XL)
        iu = M.sigma_index
        mu, c = self._rows(m, None if iu is None else (XL, L[iu, :M.K]))
        t = self.obj.evaluate(m, S, mu, s2, c, grad)
        diagL = np.diag(L)
        val = t.value + entropy(self.P, 2.0 * np.sum(np.log(diagL)))
        if not grad:
            return val, None
        self._remember(x, t)
        GL = t.Gs @ L
        GL[:M.K, :M.K] += t.gram() @ L[:M.K, :M.K]     # X' diag(a) X L, reused by natural_targets
        gvals = (2.0 * GL)[self.tril].copy()
        gvals[self.diag_pos] = gvals[self.diag_pos] * diagL + 1.0
        return val, np.concatenate([t.g_m, gvals])

    def combine(self, x, g_m, Ptar, rho_step):
        """S <- (1 - rho) S + rho P, m <- m + rho S^-1 g_m."""
        m = x[:self.P]
        if rho_step == 1.0:
            prec = Ptar
        else:
            L = self.to_L(x[self.P:])
            Linv = linalg.solve_triangular(L, np.eye(self.P), lower=True)
            prec = (1.0 - rho_step) * (Linv.T @ Linv) + rho_step * Ptar
        prec = 0.5 * (prec + prec.T)
        cf = linalg.cho_factor(prec)                    # LinAlgError when not positive definite
        mm = m + rho_step * linalg.cho_solve(cf, g_m)
        return np.concatenate([mm, self.from_L(_chol_of_inverse(prec))])

    def summary(self, x):
        m, S = self.moments(x)
        return m, np.sqrt(np.diag(S)), S

    def cov(self, x):
        return self.moments(x)[1]


def _chol_of_inverse(prec):
    """Lower-triangular L with L L' = prec^{-1}, from the Cholesky factor of prec."""
    prec = 0.5 * (prec + prec.T)
    R = linalg.cholesky(prec, lower=True)           # prec = R R'
    Rinv = linalg.solve_triangular(R, np.eye(prec.shape[0]), lower=True)
    S = Rinv.T @ Rinv                               # prec^{-1} = R^-T R^-1
    return linalg.cholesky(0.5 * (S + S.T), lower=True)


FAMILIES = {"meanfield": MeanField, "fullrank": FullRank}


# --------------------------------------------------------------------------------------------
# Optimizer
# --------------------------------------------------------------------------------------------

def _fixed_point(fam, x, f, g, tol, max_iter, log, patience=12):
    """Natural-gradient fixed point (see the module docstring). At a fixed point P = Sigma^-1
    (fullrank; its diagonal for meanfield) and dELBO/dm = 0: the gradient vanishes.

    A step is halved while S is not positive definite or the ELBO drops by more than rounding.
    Near the optimum the ELBO no longer tells steps apart, and the map (linear convergence) may
    cycle there instead of contracting, e.g. when q's variances feed back into the curvature
    (hierarchical scales, sigma, heavy-tailed priors). So the point with the smallest gradient is
    kept, and the iteration stops after `patience` steps that did not halve the best gradient
    norm; the Newton polish takes over."""
    best = (x, f, g)
    since_best = 0
    mark = np.linalg.norm(g)
    it = 0
    for it in range(1, max_iter + 1):
        if np.linalg.norm(g) < tol:
            it -= 1
            break
        g_m, Ptar = fam.natural_targets(x)
        rho_step = 1.0
        accepted = False
        while rho_step > 1e-4:
            try:
                with np.errstate(over="ignore", invalid="ignore"):
                    xn = fam.combine(x, g_m, Ptar.copy(), rho_step)
                    fn, gnew = fam.elbo(xn) if np.all(np.isfinite(xn)) else (-np.inf, None)
            except (linalg.LinAlgError, FloatingPointError, ValueError):
                rho_step *= 0.5
                continue
            if (np.isfinite(fn) and np.all(np.isfinite(gnew))
                    and fn >= f - 1e-12 * (1.0 + abs(f))):
                accepted = True
                break
            rho_step *= 0.5
        if not accepted:
            break
        x, f, g = xn, fn, gnew
        if log:
            log("fixed-point %3d  elbo %.12f  |grad| %.3e  step %.3g"
                % (it, f, np.linalg.norm(g), rho_step))
        if np.linalg.norm(g) < np.linalg.norm(best[2]):
            best = (x, f, g)
        if np.linalg.norm(best[2]) < 0.5 * mark:
            mark, since_best = np.linalg.norm(best[2]), 0
        else:
            since_best += 1
            if since_best >= patience:
                break
    return best + (it,)


def _fd_hessian(fam, x, g0=None):
    """Hessian of the ELBO in the optimization coordinates by central differences of the exact
    gradient (step 1e-5 max(1, |x_i|): truncation ~1e-10, rounding ~1e-11 relative)."""
    n = x.size
    H = np.empty((n, n))
    for i in range(n):
        h = 1e-5 * max(1.0, abs(x[i]))
        xp, xm = x.copy(), x.copy()
        xp[i] += h
        xm[i] -= h
        H[:, i] = (fam.elbo(xp)[1] - fam.elbo(xm)[1]) / (2.0 * h)
    return 0.5 * (H + H.T)


def _newton_polish(fam, x, f, g, tol, max_dim, log, max_steps=6):
    """Newton steps on the gradient with a finite-difference Hessian (negative definite at a
    maximum; otherwise eigenvalues replaced by -max(|lambda|, 1e-8 |lambda|_max)), each
    backtracked until the gradient norm falls. For up to max_dim optimization coordinates."""
    if x.size > max_dim:
        return x, f, g, 0
    steps = 0
    for steps in range(1, max_steps + 1):
        gn = np.linalg.norm(g)
        if gn < tol:
            return x, f, g, steps - 1
        w, V = np.linalg.eigh(_fd_hessian(fam, x))
        w = -np.maximum(np.abs(w), 1e-8 * np.max(np.abs(w)))     # saddle-free: |eigenvalues|
        d = -V @ ((V.T @ g) / w)
        t = 1.0
        while t > 1e-3:
            with np.errstate(over="ignore", invalid="ignore"):
                fn, gnew = fam.elbo(x + t * d)
            if np.isfinite(fn) and np.all(np.isfinite(gnew)) and np.linalg.norm(gnew) < gn:
                break
            t *= 0.5
        else:
            return x, f, g, steps
        x, f, g = x + t * d, fn, gnew
        if log:
            log("newton %d  elbo %.12f  |grad| %.3e  step %.3g" % (steps, f, np.linalg.norm(g), t))
    return x, f, g, steps


def _lbfgs(fam, x, f, g, tol, max_iter, log):
    """L-BFGS on the same objective (when the fixed point stalls, and as a cross-check).
    It stops near |grad| ~ 1e-8 once ELBO differences fall below rounding."""
    def negf(z):
        with np.errstate(over="ignore", invalid="ignore"):
            v, gr = fam.elbo(z)
        if not (np.isfinite(v) and np.all(np.isfinite(gr))):
            return np.inf, np.zeros_like(z)
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


def start(fam):
    """m0: each prior's centre (vi_model.start_point), with a data-based intercept for
    poisson_log and negative_binomial_log (log of the pooled rate) and normal (the mean response)
    and sigma = the response's sd about it; phi by the method of moments. Variances: 1 / max(-2 dE/dv_j, ...) at (m0, v = 0.01), i.e. the curvature of the
    expected log joint there (1 where it is not concave)."""
    M = fam.model
    m0 = start_point(M)
    names = M.names
    if M.likelihood in ("poisson_log", "negative_binomial_log") and "alpha" in names:
        rate = (M.y.sum() + 0.5) / np.exp(M.data["offset"]).sum()
        m0[names.index("alpha")] = math.log(rate)
    if M.likelihood == "normal":
        centre = M.y.mean() if "alpha" in names else 0.0
        if "alpha" in names:
            m0[names.index("alpha")] = centre
        m0[M.sigma_index] = math.log(max(math.sqrt(np.mean((M.y - centre) ** 2)), 1e-8))
    if M.likelihood == "lognormal":  # the normal's start on log y
        ly = np.log(M.y)
        centre = ly.mean() if "alpha" in names else 0.0
        if "alpha" in names:
            m0[names.index("alpha")] = centre
        m0[M.sigma_index] = math.log(max(math.sqrt(np.mean((ly - centre) ** 2)), 1e-8))
    if M.likelihood == "gamma_log":
        # log of the pooled mean for the intercept, the shape by the moments (Var y = mu^2 / shape).
        if "alpha" in names:
            m0[names.index("alpha")] = math.log(M.y.mean())
        m0[M.sigma_index] = math.log(min(max(M.y.mean() ** 2 / M.y.var(), 0.01), 100.0))
    if M.likelihood == "beta_logit":
        # the logit of the pooled mean, phi by the moments (Var y = mu (1 - mu) / (1 + phi)), clipped.
        mean, var = M.y.mean(), M.y.var()
        if "alpha" in names:
            m0[names.index("alpha")] = math.log(mean / (1 - mean))
        m0[M.sigma_index] = math.log(min(max(mean * (1 - mean) / var - 1, 0.1), 1000.0))
    if M.likelihood == "negative_binomial_log":
        # phi by the method of moments of the pooled counts (Var y = mu + mu^2 / phi), clipped.
        mean, var = M.y.mean(), M.y.var()
        phi = mean * mean / (var - mean) if var > mean > 0 else 100.0
        m0[M.sigma_index] = math.log(min(max(phi, 0.01), 100.0))
    v = np.full(M.P, 1e-2)
    mf = MeanField(M, fam.obj)
    with np.errstate(over="ignore", invalid="ignore"):
        _, g = mf.elbo(mf.init_params(m0, v))
    curv = -(g[M.P:] - 1.0) / v                      # -2 G_jj = -(d/dlog sd - 1) / v
    ok = np.isfinite(curv) & (curv > 0)
    v0 = np.where(ok, 1.0 / np.where(ok, curv, 1.0), 1.0)
    return fam.init_params(m0, v0)


def optimize_family(fam, tol=1e-9, max_fixed_point=500, max_lbfgs=20000, log=None,
                    method="auto", x0=None, newton_max_dim=800):
    """method "auto": fixed point; if it stops short of tol, a Newton polish (finite-difference
    Hessian, up to newton_max_dim coordinates), then L-BFGS and the fixed point again if needed.
    method "lbfgs": L-BFGS only (an independent optimizer for cross-checks)."""
    t0 = time.time()
    x = start(fam) if x0 is None else x0
    f, g = fam.elbo(x)
    fp_iters = newton = 0
    lbfgs_info = []
    steps = []
    if method == "lbfgs":
        x, f, g, info = _lbfgs(fam, x, f, g, tol, max_lbfgs, log)
        lbfgs_info.append(info)
        steps.append("L-BFGS")
    else:
        x, f, g, n = _fixed_point(fam, x, f, g, tol, max_fixed_point, log)
        fp_iters += n
        steps.append("natural-gradient fixed point")
        for _ in range(3):
            if np.linalg.norm(g) < tol:
                break
            x, f, g, n = _newton_polish(fam, x, f, g, tol, newton_max_dim, log)
            if n:
                newton += n
                steps.append("Newton polish")
            if np.linalg.norm(g) < tol:
                break
            x, f, g, info = _lbfgs(fam, x, f, g, tol, max_lbfgs, log)
            lbfgs_info.append(info)
            x, f, g, n = _fixed_point(fam, x, f, g, tol, max_fixed_point, log)
            fp_iters += n
            steps += ["L-BFGS", "fixed point"]
    gn = float(np.linalg.norm(g))
    # The gradient in q's own units (each coordinate times its scale): where the posterior is
    # very narrow (a Poisson model with counts near 10^8: sd 2e-6 on an intercept near 18) the
    # plain gradient cannot fall below ~1e-4, the curvature times the spacing of doubles, while
    # this one reaches 1e-10. Converged: either below 1e-8.
    natural = float(np.max(np.abs(g * fam.natural_scale(x))))
    return {"x": x, "elbo": float(f), "grad": g, "grad_norm": gn, "natural_grad_max_abs": natural,
            "grad_max_abs": float(np.max(np.abs(g))), "converged": bool(gn < 1e-8 or natural < 1e-8),
            "fixed_point_iterations": fp_iters, "newton_steps": newton,
            "lbfgs": lbfgs_info or None, "method": " + ".join(steps),
            "function_evaluations": fam.nfev, "seconds": time.time() - t0}


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------

Z_QUANTILES = {"q05": special.ndtri(0.05), "q50": 0.0, "q95": special.ndtri(0.95)}


def parameter_rows(model, m, sd, rule):
    """name, mean, sd (of q, unconstrained scale), feature; for a constrained coordinate also
    "scale": "unconstrained", the transform (kind none/lower/upper/interval with its bounds, as
    in vi_priors.Transform), and "constrained": mean and sd of x = T(zeta) (closed
    form or quadrature) and its 5/50/95 % quantiles (exact: T is monotone)."""
    out = []
    for j, (name, feat, tr) in enumerate(zip(model.names, model.features, model.transforms)):
        row = {"name": name, "mean": float(m[j]), "sd": float(sd[j])}
        if feat is not None:
            row["feature"] = feat
        if tr.kind != "none":
            cm, cs = tr.constrained_moments(float(m[j]), float(sd[j]) ** 2, rule)
            q = {k: float(tr.forward(np.array(m[j] + z * sd[j]))) for k, z in Z_QUANTILES.items()}
            if tr.kind == "upper":                      # decreasing: 5 % of x is 95 % of zeta
                q["q05"], q["q95"] = q["q95"], q["q05"]
            row.update({"scale": "unconstrained",
                        "transform": {"kind": tr.kind, "lower": tr.lo, "upper": tr.up,
                                      "formula": tr.describe()},
                        "constrained": dict({"mean": float(cm), "sd": float(cs)}, **q)})
        out.append(row)
    return out


def _prior_descriptions(model):
    out = []
    for p in model.priors:
        if isinstance(p, FixedPrior):
            how = ("closed form" if is_closed_form(p.family, p.block.transform)
                   else "panel quadrature")
        else:
            how = "closed form (exponential tilt)"
        out.append("%s: %s" % (p.describe(), how))
    return out


def solve(config_path, family, tol=1e-9, check_quadrature=True, log=None):
    model = load_model(config_path)
    fam = FAMILIES[family](model)
    res = optimize_family(fam, tol=tol, log=log)
    m, sd, S = fam.summary(res["x"])
    out = {
        "family": family,
        "reference_version": REFERENCE_VERSION,
        "elbo": res["elbo"],
        "grad_norm": res["grad_norm"],
        "natural_grad_max_abs": res["natural_grad_max_abs"],
        "parameter_scale": "mean, sd and cov are q's, on the unconstrained scale; a constrained "
                           "parameter has \"scale\": \"unconstrained\" and its constrained-scale "
                           "moments and quantiles under \"constrained\"",
        "parameters": parameter_rows(model, m, sd, fam.obj.rule),
    }
    if S is not None:
        out["cov"] = [[float(v) for v in row] for row in S]
    Sfull = fam.cov(res["x"])[:model.K, :model.K]
    s_all = np.sqrt(np.einsum("ij,ij->i", model.X @ Sfull, model.X))
    diag = {
        "converged": res["converged"],
        "grad_max_abs": res["grad_max_abs"],
        "method": res["method"],
        "fixed_point_iterations": res["fixed_point_iterations"],
        "newton_steps": res["newton_steps"],
        "lbfgs": res["lbfgs"],
        "function_evaluations": res["function_evaluations"],
        "seconds": round(res["seconds"], 3),
        "N": model.N, "P": model.P, "likelihood": model.likelihood,
        "priors": _prior_descriptions(model),
        "max_linear_predictor_sd": float(np.max(s_all)),
        "rows_beyond_gauss_hermite": int(np.sum(s_all > fam.obj.logistic.switch))
        if model.likelihood in ("bernoulli_logit", "bernoulli_probit", "binomial_logit") else 0,
        "quadrature": {"logistic": fam.obj.logistic.describe(), "probit": fam.obj.probit.describe(),
                       "prior_panels": fam.obj.rule.describe()},
    }
    if check_quadrature:
        # Re-evaluate at the optimum with every rule refined: the ELBO difference bounds the
        # quadrature error; the gradient under the finer rules says how far the optimum would move.
        fine = FAMILIES[family](model, Objective(model, refine=2))
        f_fine, g_fine = fine.elbo(res["x"])
        diag["quadrature_check"] = {
            "elbo_fine_minus_elbo": float(f_fine - res["elbo"]),
            "grad_norm_under_fine_rule": float(np.linalg.norm(g_fine)),
            "fine_rule": "every node count doubled, panel widths halved",
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
