"""Expected log likelihood of every bayes-vi likelihood under a Gaussian q (vi_optimum.py).

Row i's linear predictor eta_i = x_i . theta[:K] is N(mu_i, s_i^2) under q, with
mu_i = x_i . m and s_i^2 = x_i' Sigma x_i. Each likelihood returns

    value   sum_i E log p(y_i | eta_i)                (every constant, as scipy.stats)
    g_mu    d value / d mu_i
    a       d value / d s_i^2

and the normal likelihood, whose sigma = exp(u) is a coordinate of its own (u ~ N(m_u, v_u),
c_i = Cov(eta_i, u) = x_i' Sigma[:K, u]), also d/dm_u, d/dv_u and d/dc_i.

    bernoulli_logit   E log expit(t eta) = F(t mu, s),  t = 2y - 1
    bernoulli_probit  E log Phi(t eta)   = G(t mu, s)
    binomial_logit    log C(n, y) + y F(mu, s) + (n - y) F(-mu, s)
    poisson_log       y (mu + o) - exp(mu + o + s^2/2) - lgamma(y + 1),  o = offset + log exposure
    normal            -u - log(2 pi)/2 - (y - eta)^2 exp(-2u) / 2, and with w = y - eta,
                      Cov(w, u) = -c:  E[w^2 e^(-2u)] = E[e^(-2u)] E~[w^2]
                      = exp(-2 m_u + 2 v_u) ((y - mu + 2c)^2 + s^2)
                      (tilting by e^(-2u) shifts w's mean by -2 Cov(w, u) and keeps its variance).

    negative_binomial_log
                      log NB2(y | mu = e^(eta + o), phi = e^u) = gammaln(y + phi) - gammaln(phi)
                      - gammaln(y + 1) + phi log(phi / (phi + mu)) + y log(mu / (phi + mu)), as
                      scipy.stats.nbinom(phi, phi / (phi + mu)); a 2-D integral over (eta, u) by a
                      tensor Gauss-Hermite rule: eta = mu + s z1 first, then u given eta,
                      u = m_u + (c / s^2)(eta - mu) + sqrt(v_u - c^2 / s^2) z2; the derivatives by
                      Price's theorem (E f_eta, E f_eta,eta / 2, E f_u, E f_uu / 2, E f_eta,u) with
                      scipy.special's digamma and polygamma.

    lognormal         the normal likelihood's closed form on log y, minus sum log y (the Jacobian):
                      log lognorm(y | s = sigma, scale = e^eta) = log norm(log y | eta, sigma) - log y.

    gamma_log         log Gamma(y | shape k = e^u, mean e^eta) = k u - gammaln(k) + (k - 1) log y
                      - k eta - k y e^(-eta), as scipy.stats.gamma(k, scale = e^eta / k); a 2-D
                      integral over (eta, u) by the same tensor Gauss-Hermite rule as the negative
                      binomial's (bayes-vi integrates eta in closed form instead), with
                      r = y e^(-eta): f_eta = k (r - 1), f_eta,eta = -k r, f_eta,u = k (r - 1),
                      f_u = k (u + 1 - psi(k) + log y - eta - r), f_uu = f_u + k - k^2 psi1(k).

    beta_logit        log Beta(y | a, b), a = phi expit(eta), b = phi expit(-eta), phi = e^u, as
                      scipy.stats.beta(a, b); the same tensor rule, with q = phi s1 s0,
                      g = psi(b) - psi(a) + log y - log(1 - y): f_eta = q g,
                      f_eta,eta = q (s0 - s1) g - q^2 (psi1(a) + psi1(b)), f_eta,u = q g + q (b psi1(b) - a psi1(a)),
                      f_u = phi psi(phi) - a psi(a) - b psi(b) + a log y + b log(1 - y),
                      f_uu = f_u + phi^2 psi1(phi) - a^2 psi1(a) - b^2 psi1(b).

F and G are vi_quadrature's LogisticExpectation and ProbitExpectation; a = (dF/ds) / (2s), whose
s -> 0 limit (an all-zero design row) is f''(mu) / 2.
"""

import numpy as np
from scipy import special

from vi_quadrature import LOG_2PI


class RowTerms:
    """What a likelihood returns (see module docstring)."""

    def __init__(self, value, g_mu=None, a=None, g_mu_u=0.0, g_v_u=0.0, g_c=None):
        self.value, self.g_mu, self.a = value, g_mu, a
        self.g_mu_u, self.g_v_u, self.g_c = g_mu_u, g_v_u, g_c


def _coef_s2(Fs, s, rule, x):
    """dF/d(s^2) = (dF/ds) / (2s), and its limit f''(x)/2 at s == 0."""
    a = np.empty_like(s)
    pos = s > 0
    a[pos] = Fs[pos] / (2.0 * s[pos])
    if np.any(~pos):
        a[~pos] = 0.5 * rule.second_derivative(x[~pos])
    return a


class BinaryLikelihood:
    """Bernoulli with a logit (rule = LogisticExpectation) or probit (ProbitExpectation) link."""

    def __init__(self, name, y, rule):
        self.name = name
        self.t = 2.0 * y - 1.0
        self.rule = rule

    def expected(self, mu, s2, grad=True, sig=None):
        s = np.sqrt(s2)
        tm = self.t * mu
        F, Fm, Fs = self.rule(tm, s, grad)
        if not grad:
            return RowTerms(F.sum())
        return RowTerms(F.sum(), self.t * Fm, _coef_s2(Fs, s, self.rule, tm))


class BinomialLogit:
    def __init__(self, y, n, rule):
        self.name = "binomial_logit"
        self.y, self.f = y, n - y
        self.const = float(np.sum(special.gammaln(n + 1) - special.gammaln(y + 1)
                                  - special.gammaln(n - y + 1)))
        self.rule = rule

    def expected(self, mu, s2, grad=True, sig=None):
        s = np.sqrt(s2)
        Fp, Fmp, Fsp = self.rule(mu, s, grad)
        Fn, Fmn, Fsn = self.rule(-mu, s, grad)
        value = self.const + float(self.y @ Fp + self.f @ Fn)
        if not grad:
            return RowTerms(value)
        a = self.y * _coef_s2(Fsp, s, self.rule, mu) + self.f * _coef_s2(Fsn, s, self.rule, -mu)
        return RowTerms(value, self.y * Fmp - self.f * Fmn, a)


class PoissonLog:
    def __init__(self, y, offset):
        self.name = "poisson_log"
        self.y, self.offset = y, offset
        # Relative to log y (0 where y = 0): y lam - rate = y d - (rate - y) + (y log y - y), with
        # d = lam - log y and rate - y = y expm1(d + s^2/2) (rate where y = 0). A count near 10^8
        # makes y lam and rate each near 2e9 a row while their difference is small; summed as they
        # stand their rounding would move with q by more than the optimizer's tolerance.
        self.log_y = np.log(np.where(y > 0, y, 1.0))
        self.const = float(np.sum(y * self.log_y - y - special.gammaln(y + 1)))

    def expected(self, mu, s2, grad=True, sig=None):
        d = mu + self.offset - self.log_y
        with np.errstate(over="ignore"):
            r = d + 0.5 * s2                              # log(E exp(eta + o) / y)
            excess = np.where(self.y > 0, self.y * np.expm1(r), np.exp(r))   # E exp(eta + o) - y
        value = float(np.sum(self.y * d - excess)) + self.const
        if not grad:
            return RowTerms(value)
        return RowTerms(value, -excess, -0.5 * (excess + self.y))


class NormalLikelihood:
    def __init__(self, y):
        self.name = "normal"
        self.y = y

    def expected(self, mu, s2, grad=True, sig=None):
        m_u, v_u, c = sig
        with np.errstate(over="ignore"):
            tilt = np.exp(-2.0 * m_u + 2.0 * v_u)       # E exp(-2u)
        r = self.y - mu + 2.0 * c
        Q = tilt * (r * r + s2)                          # E[(y - eta)^2 exp(-2u)] per row
        n = self.y.size
        sumQ = float(Q.sum())
        value = -0.5 * sumQ - n * m_u - 0.5 * n * LOG_2PI
        if not grad:
            return RowTerms(value)
        return RowTerms(value, g_mu=tilt * r, a=-0.5 * tilt * np.ones_like(mu),
                        g_mu_u=sumQ - n, g_v_u=-sumQ, g_c=-2.0 * tilt * r)


class NegBinomialLog:
    """NB2 with log link (module docstring). `refine` multiplies the rule's points."""

    def __init__(self, y, offset, refine=1):
        self.name = "negative_binomial_log"
        self.y, self.offset = y, offset
        self.const = -float(np.sum(special.gammaln(y + 1)))
        self.refine = refine

    def expected(self, mu, s2, grad=True, sig=None):
        m_u, v_u, c = sig
        y = self.y[:, None, None]
        s = np.sqrt(np.maximum(s2, 0.0))
        # eta's rule: 48 points to sd 1 (log(1 + e^x)'s poles at +-i pi), 128 beyond; u's: 32.
        n1 = (48 if s.max() <= 1.0 else 128) * self.refine
        n2 = 32 * self.refine
        z1, w1 = np.polynomial.hermite_e.hermegauss(n1)
        z2, w2 = np.polynomial.hermite_e.hermegauss(n2)
        w1, w2 = w1 / w1.sum(), w2 / w2.sum()
        W = np.outer(w1, w2)[None, :, :]
        lam = mu + self.offset
        eta = lam[:, None, None] + s[:, None, None] * z1[None, :, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(s2 > 0, c / s2, 0.0)
        cond = np.sqrt(np.maximum(v_u - slope * c, 0.0))
        u = (m_u + slope[:, None, None] * (s[:, None, None] * z1[None, :, None])
             + cond[:, None, None] * z2[None, None, :])
        phi = np.exp(u)
        d = eta - u
        S = np.logaddexp(0.0, d)                    # log(1 + mu / phi)
        s1 = special.expit(d)
        s2_ = s1 * special.expit(-d)
        yp = y + phi
        ylogr = np.where(y > 0, y * (d - S), 0.0)   # y log(mu / (phi + mu))
        f = special.gammaln(yp) - special.gammaln(phi) - phi * S + ylogr
        value = float(np.sum(W * f)) + self.const
        if not grad:
            return RowTerms(value)
        dpsi = special.digamma(yp) - special.digamma(phi)
        dpsi1 = special.polygamma(1, yp) - special.polygamma(1, phi)
        f_e = y - yp * s1
        f_ee = -yp * s2_
        f_eu = -phi * s1 + yp * s2_
        f_u = phi * dpsi - y + yp * s1 - phi * S
        f_uu = phi * dpsi + phi * phi * dpsi1 - phi * S + 2.0 * phi * s1 - yp * s2_
        E = lambda g: np.sum(W * g, axis=(1, 2))
        return RowTerms(value, g_mu=E(f_e), a=0.5 * E(f_ee), g_mu_u=float(np.sum(E(f_u))),
                        g_v_u=0.5 * float(np.sum(E(f_uu))), g_c=E(f_eu))


class LogNormalLikelihood(NormalLikelihood):
    """The normal likelihood on log y, plus the Jacobian -sum log y (a constant under q)."""

    def __init__(self, y):
        super().__init__(np.log(y))
        self.name = "lognormal"
        self.jacobian = -float(np.sum(np.log(y)))

    def expected(self, mu, s2, grad=True, sig=None):
        t = super().expected(mu, s2, grad, sig)
        t.value += self.jacobian
        return t


class GammaLog:
    """Gamma with mean e^eta and shape e^u (module docstring). `refine` multiplies the rule's points."""

    def __init__(self, y, refine=1):
        self.name = "gamma_log"
        self.y, self.ly = y, np.log(y)
        self.refine = refine

    def expected(self, mu, s2, grad=True, sig=None):
        m_u, v_u, c = sig
        y, ly = self.y[:, None, None], self.ly[:, None, None]
        s = np.sqrt(np.maximum(s2, 0.0))
        n1 = (48 if s.max() <= 1.0 else 128) * self.refine
        n2 = 32 * self.refine
        z1, w1 = np.polynomial.hermite_e.hermegauss(n1)
        z2, w2 = np.polynomial.hermite_e.hermegauss(n2)
        w1, w2 = w1 / w1.sum(), w2 / w2.sum()
        W = np.outer(w1, w2)[None, :, :]
        eta = mu[:, None, None] + s[:, None, None] * z1[None, :, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(s2 > 0, c / s2, 0.0)
        cond = np.sqrt(np.maximum(v_u - slope * c, 0.0))
        u = (m_u + slope[:, None, None] * (s[:, None, None] * z1[None, :, None])
             + cond[:, None, None] * z2[None, None, :])
        k = np.exp(u)
        with np.errstate(over="ignore"):
            r = y * np.exp(-eta)
        f = k * u - special.gammaln(k) + (k - 1.0) * ly - k * eta - k * r
        value = float(np.sum(W * f))
        if not grad:
            return RowTerms(value)
        f_e = k * (r - 1.0)
        f_ee = -k * r
        f_u = k * (u + 1.0 - special.digamma(k) + ly - eta - r)
        f_uu = f_u + k - k * k * special.polygamma(1, k)
        E = lambda g: np.sum(W * g, axis=(1, 2))
        return RowTerms(value, g_mu=E(f_e), a=0.5 * E(f_ee), g_mu_u=float(np.sum(E(f_u))),
                        g_v_u=0.5 * float(np.sum(E(f_uu))), g_c=E(f_e))


class BetaLogit:
    """Beta with mean expit(eta) and precision e^u (module docstring)."""

    def __init__(self, y, refine=1):
        self.name = "beta_logit"
        self.ly, self.l1y = np.log(y), np.log1p(-y)
        self.refine = refine

    def expected(self, mu, s2, grad=True, sig=None):
        m_u, v_u, c = sig
        ly, l1y = self.ly[:, None, None], self.l1y[:, None, None]
        s = np.sqrt(np.maximum(s2, 0.0))
        n1 = (48 if s.max() <= 1.0 else 128) * self.refine
        n2 = 32 * self.refine
        z1, w1 = np.polynomial.hermite_e.hermegauss(n1)
        z2, w2 = np.polynomial.hermite_e.hermegauss(n2)
        w1, w2 = w1 / w1.sum(), w2 / w2.sum()
        W = np.outer(w1, w2)[None, :, :]
        eta = mu[:, None, None] + s[:, None, None] * z1[None, :, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(s2 > 0, c / s2, 0.0)
        cond = np.sqrt(np.maximum(v_u - slope * c, 0.0))
        u = (m_u + slope[:, None, None] * (s[:, None, None] * z1[None, :, None])
             + cond[:, None, None] * z2[None, None, :])
        phi = np.exp(u)
        s1, s0 = special.expit(eta), special.expit(-eta)
        a, b = phi * s1, phi * s0
        f = special.gammaln(phi) - special.gammaln(a) - special.gammaln(b) + (a - 1) * ly + (b - 1) * l1y
        value = float(np.sum(W * f))
        if not grad:
            return RowTerms(value)
        pa, pb = special.digamma(a), special.digamma(b)
        p1a, p1b = special.polygamma(1, a), special.polygamma(1, b)
        q = phi * s1 * s0
        g = pb - pa + ly - l1y
        f_e = q * g
        f_ee = q * (s0 - s1) * g - q * q * (p1a + p1b)
        f_eu = q * g + q * (b * p1b - a * p1a)
        f_u = phi * special.digamma(phi) - a * pa - b * pb + a * ly + b * l1y
        f_uu = f_u + phi * phi * special.polygamma(1, phi) - a * a * p1a - b * b * p1b
        E = lambda h: np.sum(W * h, axis=(1, 2))
        return RowTerms(value, g_mu=E(f_e), a=0.5 * E(f_ee), g_mu_u=float(np.sum(E(f_u))),
                        g_v_u=0.5 * float(np.sum(E(f_uu))), g_c=E(f_eu))


def make_likelihood(model, logistic, probit):
    d = model.data
    if model.likelihood == "bernoulli_logit":
        return BinaryLikelihood("bernoulli_logit", d["y"], logistic)
    if model.likelihood == "bernoulli_probit":
        return BinaryLikelihood("bernoulli_probit", d["y"], probit)
    if model.likelihood == "binomial_logit":
        return BinomialLogit(d["y"], d["trials"], logistic)
    if model.likelihood == "poisson_log":
        return PoissonLog(d["y"], d["offset"])
    if model.likelihood == "negative_binomial_log":
        return NegBinomialLog(d["y"], d["offset"], refine=logistic.refine)
    if model.likelihood == "lognormal":
        return LogNormalLikelihood(d["y"])
    if model.likelihood == "gamma_log":
        return GammaLog(d["y"], refine=logistic.refine)
    if model.likelihood == "beta_logit":
        return BetaLogit(d["y"], refine=logistic.refine)
    return NormalLikelihood(d["y"])
