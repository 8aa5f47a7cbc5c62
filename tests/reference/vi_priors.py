"""Prior families, parameter transforms and their expectations under a Gaussian q, for the
reference optimum (vi_optimum.py).

A parameter coordinate lives on the unconstrained scale: zeta ~ N(m, v) under q, x = T(zeta) on
the constrained scale (Stan's transforms, as bayes-vi's inference/ad/ops/constrain.cpp):

    none       x = zeta                               log|T'| = 0
    lower      x = lo + exp(zeta)                     log|T'| = zeta
    upper      x = up - exp(zeta)                     log|T'| = zeta
    interval   x = lo + (up - lo) expit(zeta)         log|T'| = log(up - lo) + log expit(zeta) + log expit(-zeta)

("constraint": "positive" is `lower` with lo = 0, "unit_interval" is `interval` on (0, 1).)
The ELBO's prior part for the coordinate is E[log p(T(zeta))] + E[log|T'(zeta)|].

Log densities (every constant, as scipy.stats logpdf; z = (x - loc)/scale), README "Priors":

    normal(loc, scale)          -z^2/2 - log scale - log(2 pi)/2
    student_t(df, loc, scale)   lgamma((df+1)/2) - lgamma(df/2) - log(df pi)/2 - log scale - (df+1)/2 log(1 + z^2/df)
    cauchy(loc, scale)          -log pi - log scale - log(1 + z^2)
    laplace(loc, scale)         -log 2 - log scale - |z|
    logistic(loc, scale)        log expit(z) + log expit(-z) - log scale
    half_normal(scale)          log 2 + normal(x | 0, scale)
    half_cauchy(scale)          log 2 + cauchy(x | 0, scale)
    half_student_t(df, scale)   log 2 + student_t(x | df, 0, scale)
    exponential(rate)           log rate - rate x
    gamma(shape, rate)          shape log rate - lgamma(shape) + (shape - 1) log x - rate x
    lognormal(loc, scale)       -log x - log scale - log(2 pi)/2 - ((log x - loc)/scale)^2/2

Closed forms of E[log p(T(zeta))] (with E e^(k zeta) = exp(k m + k^2 v / 2)):

    normal, none                 -log(2 pi)/2 - log scale - ((m - loc)^2 + v) / (2 scale^2)
    normal / half_normal,        x - loc = A + B e^zeta  (lower: A = lo - loc, B = 1; upper: A = up - loc,
      lower or upper             B = -1; loc = 0 for half_normal): E (x - loc)^2 = A^2 + 2AB E e^zeta + E e^(2 zeta)
    laplace, none                E|zeta - loc| = 2 s phi(d/s) + d (1 - 2 Phi(-d/s)),  d = m - loc
    logistic, none               F(d/scale, s/scale) + F(-d/scale, s/scale) - log scale,  F(mu, s) = E log expit(mu + s z)
    exponential, lower           log rate - rate (lo + E e^zeta)
    gamma, lower lo = 0          shape log rate - lgamma(shape) + (shape - 1) m - rate E e^zeta
    lognormal, lower lo = 0      -m - log scale - log(2 pi)/2 - ((m - loc)^2 + v) / (2 scale^2)
    half_cauchy, lower lo = 0    log(1 + e^(2 zeta)/scale^2) = -log expit(-y), y = 2 (zeta - log scale):
                                 E = -F(-2 (m - log scale), 2 s)
    half_student_t, lower lo = 0 log(1 + e^(2 zeta)/(df scale^2)): the same with y = 2 zeta - log(df scale^2)

Every other (family, transform) pair goes through vi_quadrature.PanelRule, told where the log
density has kinks (laplace at loc) and complex singularities (student_t and cauchy at
loc +- i scale sqrt(df), logistic at loc +- i pi scale, log x at 0), mapped to the unconstrained
scale through the complex inverse transform, plus expit's poles at +-i pi for `interval`.
"""

import cmath
import math

import numpy as np
from scipy import special

from vi_quadrature import LOG_2PI, INV_SQRT_2PI, log_expit

LOG_2 = math.log(2.0)
LOG_PI = math.log(math.pi)


class ConfigError(Exception):
    pass


# --------------------------------------------------------------------------------------------
# Transforms
# --------------------------------------------------------------------------------------------

class Transform:
    """x = T(zeta) for one block of coordinates: kind in none/lower/upper/interval."""

    def __init__(self, kind="none", lo=0.0, up=0.0):
        self.kind, self.lo, self.up = kind, float(lo), float(up)

    @property
    def name(self):
        return {"none": "identity", "lower": "log", "upper": "log", "interval": "logit"}[self.kind]

    def describe(self):
        return {"none": "x = zeta",
                "lower": "x = %r + exp(zeta)" % self.lo,
                "upper": "x = %r - exp(zeta)" % self.up,
                "interval": "x = %r + %r expit(zeta)" % (self.lo, self.up - self.lo)}[self.kind]

    def forward(self, z):
        if self.kind == "none":
            return z
        if self.kind == "lower":
            return self.lo + np.exp(z)
        if self.kind == "upper":
            return self.up - np.exp(z)
        return self.lo + (self.up - self.lo) * special.expit(z)

    def derivative(self, z):
        """dx/dzeta."""
        if self.kind == "none":
            return np.ones_like(z)
        if self.kind == "lower":
            return np.exp(z)
        if self.kind == "upper":
            return -np.exp(z)
        p = special.expit(z)
        return (self.up - self.lo) * p * (1.0 - p)

    def inverse_complex(self, x):
        """T^-1 on the complex plane (principal branches): where a singularity of log p(x) at a
        complex x sits on the unconstrained scale. None when it is at infinity."""
        try:
            if self.kind == "none":
                return complex(x)
            if self.kind == "lower":
                return cmath.log(x - self.lo)
            if self.kind == "upper":
                return cmath.log(self.up - x)
            p = (x - self.lo) / (self.up - self.lo)
            return cmath.log(p) - cmath.log(1.0 - p)
        except (ValueError, ZeroDivisionError):
            return None

    def inverse(self, x):
        """T^-1 for a real x strictly inside the range (None otherwise)."""
        if self.kind == "none":
            return float(x)
        if self.kind == "lower":
            return math.log(x - self.lo) if x > self.lo else None
        if self.kind == "upper":
            return math.log(self.up - x) if x < self.up else None
        if not self.lo < x < self.up:
            return None
        p = (x - self.lo) / (self.up - self.lo)
        return math.log(p) - math.log1p(-p)

    def growth(self, family_growth):
        """g(zeta) = log p(T(zeta)) grows like exp(growth * zeta) as zeta -> +inf."""
        return float(family_growth) if self.kind in ("lower", "upper") else 0.0

    def own_singularities(self):
        """expit(zeta) has poles at zeta = +-i pi."""
        return [(0.0, math.pi)] if self.kind == "interval" else []

    def expected_log_jacobian(self, m, v, logistic):
        """E log|T'(zeta)| and its derivatives in m and v (arrays over coordinates)."""
        if self.kind == "none":
            return np.zeros_like(m), np.zeros_like(m), np.zeros_like(m)
        if self.kind in ("lower", "upper"):
            return m.copy(), np.ones_like(m), np.zeros_like(m)
        s = np.sqrt(v)
        Fp, Fmp, Fsp = logistic(m, s)
        Fn, Fmn, Fsn = logistic(-m, s)
        return (math.log(self.up - self.lo) + Fp + Fn, Fmp - Fmn, (Fsp + Fsn) / (2.0 * s))

    def constrained_moments(self, m, v, rule):
        """Mean and sd of x = T(zeta) (closed form for exp, PanelRule for expit)."""
        if self.kind == "none":
            return m, math.sqrt(v)
        if self.kind in ("lower", "upper"):
            mean_e = math.exp(m + 0.5 * v)
            sd = math.sqrt(math.expm1(v)) * mean_e
            return (self.lo + mean_e, sd) if self.kind == "lower" else (self.up - mean_e, sd)
        s = math.sqrt(v)
        x, w = rule.nodes_weights(m, s, singular=[(0.0, math.pi)])
        p = special.expit(x)
        ep = float(w @ p)
        var_p = float(w @ (p - ep) ** 2)
        return self.lo + (self.up - self.lo) * ep, (self.up - self.lo) * math.sqrt(var_p)


# --------------------------------------------------------------------------------------------
# Families: log density, its x-derivative, where it is not analytic
# --------------------------------------------------------------------------------------------

def _t_const(df):
    return special.gammaln(0.5 * (df + 1.0)) - special.gammaln(0.5 * df) - 0.5 * np.log(df * math.pi)


class Family:
    """A prior family. h is a dict of hyperparameter values (scalars for one coordinate)."""

    def __init__(self, name, hypers, support, logpdf, dlogpdf, kinks, singular, growth, typical):
        self.name, self.hypers, self.support = name, hypers, support
        self.logpdf, self.dlogpdf = logpdf, dlogpdf
        self.kinks = kinks          # h -> real points of x where log p has a kink
        self.singular = singular    # h -> [(c, w)]: log p singular at x = c +- i w (w = 0: at c)
        self.growth = growth        # log p(x) ~ -|x|^growth as |x| -> inf
        self.typical = typical      # h -> a central value of x (the optimizer's start)


def _normal(x, h):
    z = (x - h["loc"]) / h["scale"]
    return -0.5 * z * z - math.log(h["scale"]) - 0.5 * LOG_2PI


def _student_t(x, h):
    z = (x - h["loc"]) / h["scale"]
    return _t_const(h["df"]) - math.log(h["scale"]) - 0.5 * (h["df"] + 1.0) * np.log1p(z * z / h["df"])


def _d_student_t(x, h):
    z = (x - h["loc"]) / h["scale"]
    return -(h["df"] + 1.0) * z / (h["df"] + z * z) / h["scale"]


def _cauchy(x, h):
    z = (x - h["loc"]) / h["scale"]
    return -LOG_PI - math.log(h["scale"]) - np.log1p(z * z)


def _logistic(x, h):
    z = (x - h["loc"]) / h["scale"]
    return log_expit(z) + log_expit(-z) - math.log(h["scale"])


def _half(f, **fixed):
    return lambda x, h: LOG_2 + f(x, dict(h, **fixed))


def _half_dt(x, h):
    return _d_student_t(x, dict(h, loc=0.0))


def _gamma(x, h):
    return (h["shape"] * math.log(h["rate"]) - special.gammaln(h["shape"])
            + (h["shape"] - 1.0) * np.log(x) - h["rate"] * x)


def _lognormal(x, h):
    lx = np.log(x)
    z = (lx - h["loc"]) / h["scale"]
    return -lx - math.log(h["scale"]) - 0.5 * LOG_2PI - 0.5 * z * z


FAMILIES = {f.name: f for f in [
    Family("normal", ("loc", "scale"), "real", _normal,
           lambda x, h: -(x - h["loc"]) / h["scale"] ** 2,
           lambda h: [], lambda h: [], 2, lambda h: h["loc"]),
    Family("student_t", ("df", "loc", "scale"), "real", _student_t, _d_student_t,
           lambda h: [], lambda h: [(h["loc"], h["scale"] * math.sqrt(h["df"]))], 0,
           lambda h: h["loc"]),
    Family("cauchy", ("loc", "scale"), "real", _cauchy,
           lambda x, h: _d_student_t(x, dict(h, df=1.0)),
           lambda h: [], lambda h: [(h["loc"], h["scale"])], 0, lambda h: h["loc"]),
    Family("laplace", ("loc", "scale"), "real",
           lambda x, h: -LOG_2 - math.log(h["scale"]) - np.abs(x - h["loc"]) / h["scale"],
           lambda x, h: -np.sign(x - h["loc"]) / h["scale"],
           lambda h: [h["loc"]], lambda h: [], 1, lambda h: h["loc"]),
    Family("logistic", ("loc", "scale"), "real", _logistic,
           lambda x, h: -np.tanh(0.5 * (x - h["loc"]) / h["scale"]) / h["scale"],
           lambda h: [], lambda h: [(h["loc"], math.pi * h["scale"])], 1, lambda h: h["loc"]),
    Family("half_normal", ("scale",), "positive", _half(_normal, loc=0.0),
           lambda x, h: -x / h["scale"] ** 2,
           lambda h: [], lambda h: [], 2, lambda h: h["scale"]),
    Family("half_cauchy", ("scale",), "positive", _half(_cauchy, loc=0.0),
           lambda x, h: _d_student_t(x, dict(h, df=1.0, loc=0.0)),
           lambda h: [], lambda h: [(0.0, h["scale"])], 0, lambda h: h["scale"]),
    Family("half_student_t", ("df", "scale"), "positive", _half(_student_t, loc=0.0), _half_dt,
           lambda h: [], lambda h: [(0.0, h["scale"] * math.sqrt(h["df"]))], 0,
           lambda h: h["scale"]),
    Family("exponential", ("rate",), "positive",
           lambda x, h: math.log(h["rate"]) - h["rate"] * x,
           lambda x, h: -h["rate"] * np.ones_like(x),
           lambda h: [], lambda h: [], 1, lambda h: 1.0 / h["rate"]),
    Family("gamma", ("shape", "rate"), "positive", _gamma,
           lambda x, h: (h["shape"] - 1.0) / x - h["rate"],
           lambda h: [], lambda h: [(0.0, 0.0)] if h["shape"] != 1.0 else [], 1,
           lambda h: h["shape"] / h["rate"]),
    Family("lognormal", ("loc", "scale"), "positive", _lognormal,
           lambda x, h: -(1.0 + (np.log(x) - h["loc"]) / h["scale"] ** 2) / x,
           lambda h: [], lambda h: [(0.0, 0.0)], 0, lambda h: math.exp(h["loc"])),
]}

POSITIVE_RANGE = {"scale", "df", "rate", "shape"}   # hyperparameters that must be > 0


# --------------------------------------------------------------------------------------------
# Expectations
# --------------------------------------------------------------------------------------------

def _exp_moment(k, m, v):
    """E e^(k zeta) and its derivatives in m and v."""
    e = np.exp(k * m + 0.5 * k * k * v)
    return e, k * e, 0.5 * k * k * e


def _closed_form(fam, tr, h, m, v, logistic):
    """E log p(T(zeta)) with d/dm, d/dv in closed form, or None when there is none here.
    h: dict of arrays (one entry per coordinate)."""
    name, kind = fam.name, tr.kind
    s = np.sqrt(v)
    log0 = kind == "lower" and tr.lo == 0.0
    if name == "normal" and kind == "none":
        sc2 = h["scale"] ** 2
        d = m - h["loc"]
        return (-0.5 * LOG_2PI - np.log(h["scale"]) - (d * d + v) / (2.0 * sc2), -d / sc2,
                -0.5 / sc2 * np.ones_like(m))
    if name in ("normal", "half_normal") and kind in ("lower", "upper"):
        loc = h["loc"] if name == "normal" else 0.0
        A = (tr.lo if kind == "lower" else tr.up) - loc
        B = 1.0 if kind == "lower" else -1.0
        e1, e1m, e1v = _exp_moment(1.0, m, v)
        e2, e2m, e2v = _exp_moment(2.0, m, v)
        sq = A * A + 2.0 * A * B * e1 + e2
        c = -0.5 / h["scale"] ** 2
        const = -0.5 * LOG_2PI - np.log(h["scale"]) + (LOG_2 if name == "half_normal" else 0.0)
        return const + c * sq, c * (2.0 * A * B * e1m + e2m), c * (2.0 * A * B * e1v + e2v)
    if name == "laplace" and kind == "none":
        d = m - h["loc"]
        u = d / s
        phi = INV_SQRT_2PI * np.exp(-0.5 * u * u)
        ea = 2.0 * s * phi + d * (1.0 - 2.0 * special.ndtr(-u))
        sc = h["scale"]
        return (-LOG_2 - np.log(sc) - ea / sc, -(1.0 - 2.0 * special.ndtr(-u)) / sc, -phi / s / sc)
    if name == "logistic" and kind == "none":
        sc = h["scale"]
        mu, sz = (m - h["loc"]) / sc, s / sc
        Fp, Fmp, Fsp = logistic(mu, sz)
        Fn, Fmn, Fsn = logistic(-mu, sz)
        return Fp + Fn - np.log(sc), (Fmp - Fmn) / sc, (Fsp + Fsn) / (2.0 * s * sc)
    if name == "exponential" and kind == "lower":
        e1, e1m, e1v = _exp_moment(1.0, m, v)
        r = h["rate"]
        return np.log(r) - r * (tr.lo + e1), -r * e1m, -r * e1v
    if name == "gamma" and log0:
        e1, e1m, e1v = _exp_moment(1.0, m, v)
        a, r = h["shape"], h["rate"]
        return (a * np.log(r) - special.gammaln(a) + (a - 1.0) * m - r * e1, (a - 1.0) - r * e1m,
                -r * e1v)
    if name == "lognormal" and log0:
        sc2 = h["scale"] ** 2
        d = m - h["loc"]
        return (-m - np.log(h["scale"]) - 0.5 * LOG_2PI - (d * d + v) / (2.0 * sc2),
                -1.0 - d / sc2, -0.5 / sc2 * np.ones_like(m))
    if name in ("half_cauchy", "half_student_t") and log0:
        df = h["df"] if name == "half_student_t" else np.ones_like(m)
        const = LOG_2 + _t_const(df) - np.log(h["scale"])
        # log(1 + e^(2 zeta) / (df scale^2)) = -log expit(-y), y = 2 zeta - log(df scale^2)
        shift = np.log(df * h["scale"] ** 2)
        F, Fm, Fs = logistic(-(2.0 * m - shift), 2.0 * s)
        k = 0.5 * (df + 1.0)
        return const + k * F, -2.0 * k * Fm, k * Fs / s
    return None


def _features(fam, tr, hs):
    """Kinks and complex singularities of g(zeta) = log p(T(zeta)) on the unconstrained scale."""
    kinks, singular = [], list(tr.own_singularities())
    for c in fam.kinks(hs):
        z = tr.inverse(c)
        if z is not None:
            kinks.append(z)
    for c, w in fam.singular(hs):
        z = tr.inverse_complex(complex(c, w))
        if z is None or not (math.isfinite(z.real) and math.isfinite(z.imag)):
            continue
        if abs(z.imag) < 1e-12:
            kinks.append(z.real)    # a real point inside the range (w = 0 only)
        else:
            singular.append((z.real, abs(z.imag)))
    return kinks, singular


def expect_generic(fam, tr, hs, m, v, rule):
    """E log p(T(zeta)) for one coordinate by PanelRule; hs: dict of scalars."""
    kinks, singular = _features(fam, tr, hs)
    g = lambda z: fam.logpdf(tr.forward(z), hs)
    dg = lambda z: fam.dlogpdf(tr.forward(z), hs) * tr.derivative(z)
    return rule.expect(g, dg, m, math.sqrt(v), kinks, singular, tr.growth(fam.growth))


def expect_prior(fam, tr, h, m, v, logistic, rule, force_generic=False):
    """E[log p(T(zeta)) + log|T'(zeta)|] per coordinate, with d/dm and d/dv (arrays).
    h: dict of hyperparameter arrays, one entry per coordinate."""
    out = None if force_generic else _closed_form(fam, tr, h, m, v, logistic)
    if out is None:
        val, dm, dv = np.empty_like(m), np.empty_like(m), np.empty_like(m)
        for j in range(m.size):
            hs = {k: float(a[j]) for k, a in h.items()}
            val[j], dm[j], dv[j] = expect_generic(fam, tr, hs, float(m[j]), float(v[j]), rule)
        out = (val, dm, dv)
    jv, jm, jvv = tr.expected_log_jacobian(m, v, logistic)
    return out[0] + jv, out[1] + jm, out[2] + jvv


def is_closed_form(fam, tr):
    """Whether expect_prior has a closed form for this pair (else PanelRule)."""
    one = np.array([0.3])
    h = {k: np.array([1.5]) for k in fam.hypers}
    from vi_quadrature import LogisticExpectation
    return _closed_form(fam, tr, h, one, one, LogisticExpectation()) is not None


def start_value(fam, tr, h):
    """A central unconstrained value for the optimizer's start: T^-1 of the family's location
    (median-ish) when inside the transform's range, else 0."""
    out = np.zeros(len(next(iter(h.values()))))
    for j in range(out.size):
        hs = {k: float(a[j]) for k, a in h.items()}
        z = tr.inverse(fam.typical(hs))
        out[j] = z if z is not None and math.isfinite(z) else 0.0
    return out
