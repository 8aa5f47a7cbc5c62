#!/usr/bin/python3
"""Reference log densities of the prior families and their gradients, printed as C++ table rows
for tests/unit/models/test_prior_families.cpp (and digamma values for
tests/unit/ad/test_special_functions.cpp). The C++ tests embed this script's output verbatim;
rerun it and paste when a point is added.

    /usr/bin/python3 tests/reference/prior_logpdf_table.py            # all tables
    /usr/bin/python3 tests/reference/prior_logpdf_table.py scipy      # one of: scipy, mpmath, digamma, half_step

Table `scipy`: scipy.stats logpdf at 3-5 points per family, tails included where scipy's own
double formula is still accurate (each such row is checked here against mpmath at 50 digits,
to 1e-13 relative, so a scipy quirk cannot become the reference; edges of the support,
points outside it and invalid hyperparameters are conventions and are taken from scipy as they are). The mapping to scipy:

    normal(loc, scale)          norm.logpdf(x, loc, scale)
    student_t(df, loc, scale)   t.logpdf(x, df, loc, scale)
    cauchy(loc, scale)          cauchy.logpdf(x, loc, scale)
    laplace(loc, scale)         laplace.logpdf(x, loc, scale)
    logistic(loc, scale)        logistic.logpdf(x, loc, scale)
    half_normal(scale)          halfnorm.logpdf(x, scale=scale)
    half_cauchy(scale)          halfcauchy.logpdf(x, scale=scale)
    half_student_t(df, scale)   log(2) + t.logpdf(x, df, 0, scale) for x >= 0, -inf below
    exponential(rate)           expon.logpdf(x, scale=1/rate)
    gamma(shape, rate)          gamma.logpdf(x, a=shape, scale=1/rate)
    lognormal(loc, scale)       lognorm.logpdf(x, s=scale, scale=exp(loc))

Table `mpmath`: points where scipy's double formula fails (x**2 overflows in the far tail and
gives -inf; laplace takes the log of an underflowed pdf; the lgamma difference of a huge df
cancels), from the same closed forms in mpmath
at 50 digits.

Every row where the density is differentiable also carries its gradient {d/dx, d/dh1, ...}, from
mpmath.diff of the 50-digit closed form (steps scaled to each input's magnitude), so d/d df and
d/d shape (digamma) and the hyperparameter gradients a hierarchical prior needs are checked too.

Table `digamma`: scipy.special.digamma, each checked against mpmath.digamma to 1e-15 relative.

Table `half_step`: the Student t constants log Gamma(a + 1/2) - log Gamma(a) and
psi(a + 1/2) - psi(a) - 1/(2a), from mpmath (for tests/unit/ad/test_special_functions.cpp).

Run with Debian's interpreter (numpy 1.24, scipy 1.10, mpmath 1.2).
"""
import math
import sys

import mpmath as mp
import numpy as np
from scipy import special, stats

mp.mp.dps = 50
INF = math.inf


def cxx(v):
    if math.isnan(v):
        return "qnan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return "%.17g" % v


def half_t(x, df, scale):
    return math.log(2) + stats.t.logpdf(x, df, 0, scale) if x >= 0 else -INF


SCIPY = {
    "normal": lambda x, loc, scale: stats.norm.logpdf(x, loc, scale),
    "student_t": lambda x, df, loc, scale: stats.t.logpdf(x, df, loc, scale),
    "cauchy": lambda x, loc, scale: stats.cauchy.logpdf(x, loc, scale),
    "laplace": lambda x, loc, scale: stats.laplace.logpdf(x, loc, scale),
    "logistic": lambda x, loc, scale: stats.logistic.logpdf(x, loc, scale),
    "half_normal": lambda x, scale: stats.halfnorm.logpdf(x, scale=scale),
    "half_cauchy": lambda x, scale: stats.halfcauchy.logpdf(x, scale=scale),
    "half_student_t": half_t,
    "exponential": lambda x, rate: stats.expon.logpdf(x, scale=1 / rate),
    "gamma": lambda x, shape, rate: stats.gamma.logpdf(x, a=shape, scale=1 / rate),
    "lognormal": lambda x, loc, scale: stats.lognorm.logpdf(x, s=scale, scale=np.exp(loc)),
}


def _t(x, df, loc, scale):
    z = (x - loc) / scale
    return (mp.loggamma((df + 1) / 2) - mp.loggamma(df / 2) - mp.log(df * mp.pi) / 2 - mp.log(scale)
            - (df + 1) / 2 * mp.log1p(z * z / df))


# The same densities in mpmath, written from the textbook formulas (inputs are the exact doubles).
MPMATH = {
    "normal": lambda x, loc, scale: -((x - loc) / scale) ** 2 / 2 - mp.log(scale) - mp.log(2 * mp.pi) / 2,
    "student_t": _t,
    "cauchy": lambda x, loc, scale: -mp.log(mp.pi * scale) - mp.log1p(((x - loc) / scale) ** 2),
    "laplace": lambda x, loc, scale: -mp.log(2 * scale) - abs(x - loc) / scale,
    "logistic": lambda x, loc, scale: (-(x - loc) / scale - 2 * mp.log1p(mp.exp(-(x - loc) / scale))
                                       - mp.log(scale)),
    "half_normal": lambda x, scale: mp.log(2 / mp.pi) / 2 - mp.log(scale) - (x / scale) ** 2 / 2,
    "half_cauchy": lambda x, scale: mp.log(2 / mp.pi) - mp.log(scale) - mp.log1p((x / scale) ** 2),
    "half_student_t": lambda x, df, scale: mp.log(2) + _t(x, df, 0, scale),
    "exponential": lambda x, rate: mp.log(rate) - rate * x,
    "gamma": lambda x, shape, rate: (shape * mp.log(rate) - mp.loggamma(shape) + (shape - 1) * mp.log(x)
                                     - rate * x),
    "lognormal": lambda x, loc, scale: (-mp.log(x) - mp.log(scale) - mp.log(2 * mp.pi) / 2
                                        - ((mp.log(x) - loc) / scale) ** 2 / 2),
}

# (family, x, hyperparameters in the family's order). Tails are marked in the comment column.
SCIPY_POINTS = [
    ("normal", 1.5, (0.5, 2.0), ""),
    ("normal", -30.0, (1.0, 0.5), "tail"),
    ("student_t", 0.3, (3.0, 0.0, 1.0), ""),
    ("student_t", -2.5, (0.7, 1.0, 2.0), "df < 1"),
    ("student_t", 1e6, (4.0, 0.0, 1.0), "tail"),
    ("student_t", 12.0, (30.0, 2.0, 0.5), ""),
    ("student_t", 1.0, (100.0, 0.0, 1.0), "large df"),
    ("cauchy", 0.5, (0.0, 1.0), ""),
    ("cauchy", -3.0, (1.0, 2.0), ""),
    ("cauchy", 1e8, (0.0, 1.0), "tail"),
    ("cauchy", 1e-3, (0.0, 1e-6), "tail, tiny scale"),
    ("laplace", 0.5, (0.0, 1.0), ""),
    ("laplace", -3.0, (1.0, 0.5), ""),
    ("laplace", 600.0, (0.0, 1.0), "tail (scipy's exp underflows from 745)"),
    ("laplace", 2.0, (2.0, 3.0), "at loc"),
    ("logistic", 0.5, (0.0, 1.0), ""),
    ("logistic", -3.0, (1.0, 2.0), ""),
    ("logistic", 800.0, (0.0, 1.0), "tail: exp(800) overflows"),
    ("logistic", -50.0, (0.0, 1.0), "tail"),
    ("half_normal", 0.5, (1.0,), ""),
    ("half_normal", 3.0, (0.2,), ""),
    ("half_normal", 0.0, (2.0,), "edge of the support"),
    ("half_normal", 40.0, (1.0,), "tail"),
    ("half_normal", -1.0, (1.0,), "outside the support"),
    ("half_cauchy", 0.5, (1.0,), ""),
    ("half_cauchy", 1e7, (2.0,), "tail"),
    ("half_cauchy", 0.0, (3.0,), "edge of the support"),
    ("half_cauchy", 2.0, (0.01,), ""),
    ("half_student_t", 0.5, (3.0, 1.0), ""),
    ("half_student_t", 1e5, (1.5, 2.0), "tail"),
    ("half_student_t", 0.0, (4.0, 1.0), "edge of the support"),
    ("half_student_t", 7.0, (50.0, 2.0), "large df"),
    ("exponential", 0.5, (2.0,), ""),
    ("exponential", 0.0, (3.0,), "edge of the support"),
    ("exponential", 1e3, (0.5,), "tail"),
    ("exponential", 1e-10, (1e-3,), ""),
    ("exponential", -0.5, (2.0,), "outside the support"),
    ("gamma", 0.5, (2.0, 3.0), ""),
    ("gamma", 1e-8, (0.5, 1.0), "near 0, shape < 1"),
    ("gamma", 50.0, (2.0, 0.1), ""),
    ("gamma", 0.0, (1.0, 2.0), "edge of the support, shape 1"),
    ("gamma", 3.0, (120.0, 40.0), "large shape"),
    ("lognormal", 0.5, (0.0, 1.0), ""),
    ("lognormal", 1e-6, (0.0, 1.0), "tail near 0"),
    ("lognormal", 1e6, (1.0, 2.0), "tail"),
    ("lognormal", 2.0, (-1.0, 0.1), ""),
    ("lognormal", 0.0, (0.0, 1.0), "x = 0: outside scipy's open support"),
    ("gamma", 1.0, (-1.0, 1.0), "invalid shape"),
    ("student_t", 1.0, (0.0, 0.0, 1.0), "invalid df"),
    ("half_cauchy", 1.0, (-2.0,), "invalid scale"),
]

# Where scipy's double formula is not the reference: the true value, from mpmath.
MPMATH_POINTS = [
    ("student_t", 1e200, (3.0, 0.0, 1.0), "z^2 overflows: scipy gives -inf"),
    ("student_t", -1e300, (0.5, 2.0, 1e-5), "z overflows the double range"),
    ("student_t", 0.5, (1e12, 0.3, 1.2), "huge df: the lgamma difference cancels"),
    ("student_t", 3.0, (1e17, 0.0, 1.0), "df + 1 == df in doubles"),
    ("cauchy", 1e200, (0.0, 1.0), "z^2 overflows"),
    ("cauchy", -3e160, (1.0, 0.5), "z^2 overflows"),
    ("laplace", 1e5, (0.0, 1.0), "scipy takes log of an underflowed pdf: -inf"),
    ("half_cauchy", 1e300, (1.0,), "z^2 overflows"),
    ("half_student_t", 1e250, (2.0, 1.0), "z^2 overflows"),
    ("half_student_t", 1.0, (1e15, 2.0), "huge df"),
]


def grad(fam, x, h):
    """Gradient of the mpmath closed form in (x, *h), each by a derivative in t of f(v + s t), s = max(|v|, 1)."""
    args = [mp.mpf(x)] + [mp.mpf(a) for a in h]
    out = []
    for k in range(len(args)):
        s = max(abs(args[k]), 1)

        def f(t, k=k):
            a = list(args)
            a[k] = a[k] + s * t
            return MPMATH[fam](*a)

        # 420 digits: a step in loc must still move x - loc at |x| = 1e300.
        with mp.workdps(420):
            out.append(float(mp.diff(f, 0) / s))
    return out


def fmt_grad(g):
    return "{" + ", ".join(cxx(v) for v in g) + "}"


NO_GRADIENT = ("edge", "outside", "invalid", "x = 0", "at loc")


def scipy_rows():
    print("// family, x, hyperparameters, scipy.stats logpdf, mpmath gradient (d/dx, d/dh...)")
    for fam, x, h, note in SCIPY_POINTS:
        with np.errstate(all="ignore"):
            v = float(SCIPY[fam](x, *h))
        # Edges, points outside the support and invalid hyperparameters are conventions, not
        # formulas; everything else must agree with mpmath (a non-finite scipy value would fail).
        if not any(w in note for w in ("edge", "outside", "invalid", "x = 0")):
            exact = float(MPMATH[fam](mp.mpf(x), *[mp.mpf(a) for a in h]))
            assert abs(v - exact) <= 1e-13 * abs(exact), (fam, x, h, v, exact)
        hs = ", ".join(cxx(a) for a in h)
        g = fmt_grad(grad(fam, x, h)) if not any(w in note for w in NO_GRADIENT) else "{}"
        print('{"%s", %s, {%s}, %s, %s},%s' % (fam, cxx(x), hs, cxx(v), g, "  // " + note if note else ""))


def mpmath_rows():
    print("// family, x, hyperparameters, mpmath at 50 digits (scipy's double formula fails here), gradient")
    for fam, x, h, note in MPMATH_POINTS:
        v = float(MPMATH[fam](mp.mpf(x), *[mp.mpf(a) for a in h]))
        hs = ", ".join(cxx(a) for a in h)
        print('{"%s", %s, {%s}, %s, %s},  // %s' % (fam, cxx(x), hs, cxx(v), fmt_grad(grad(fam, x, h)), note))


DIGAMMA_POINTS = [1e-300, 1e-8, 0.1, 0.5, 1.0, 1.2, 1.3, 1.4, 1.46, 1.4616321449683622, 1.4616321449683625,
                  1.5, 1.6, 1.65, 1.7, 2.0, 2.5, 3.0, 5.5, 9.99, 10.0, 10.5, 31.0, 100.0, 1e5, 1e15, 1e300,
                  -0.5, -1.5, -2.25, -10.3]


def digamma_rows():
    print("// x, scipy.special.digamma(x)")
    for x in DIGAMMA_POINTS:
        v = float(special.digamma(x))
        exact = float(mp.digamma(mp.mpf(x)))
        assert abs(v - exact) <= 1e-15 * abs(exact) + 1e-300, (x, v, exact)
        print("{%s, %s}," % (cxx(x), cxx(v)))


HALF_STEP_POINTS = [0.25, 0.5, 1.5, 7.9, 15.99, 16.0, 20.0, 50.0, 1e3, 5e5, 5e11, 5e16]


def half_step_rows():
    print("// a, loggamma(a + 1/2) - loggamma(a), digamma(a + 1/2) - digamma(a) - 1/(2a)  (mpmath)")
    for a in HALF_STEP_POINTS:
        A = mp.mpf(a)
        print("{%r, %s, %s}," % (a, cxx(float(mp.loggamma(A + 0.5) - mp.loggamma(A))),
                                 cxx(float(mp.digamma(A + 0.5) - mp.digamma(A) - 1 / (2 * A)))))


if __name__ == "__main__":
    which = sys.argv[1:] or ["scipy", "mpmath", "digamma", "half_step"]
    for w in which:
        {"scipy": scipy_rows, "mpmath": mpmath_rows, "digamma": digamma_rows, "half_step": half_step_rows}[w]()
