#!/usr/bin/python3
"""How many Gauss-Hermite points the exact method needs for each width of the linear predictor.

For f = softplus (logistic and binomial likelihoods) and f = log Phi (probit), prints, for each sd
s of eta on a grid and each number of points n, the worst relative error over means a in
[-60, 60] of the n-point rule's E f(a + s z), E f'(a + s z), E f''(a + s z) against mpmath
quadrature (30 digits). models/likelihoods/expectation_kernels.cpp takes its tiers from this
table: the fewest points whose error is at the double-precision floor (about 1e-13 for softplus;
about 5e-12 for log Phi, the accuracy of scipy's log_ndtr used here for the rule's own values),
with the largest s of a tier at a grid point. Rows wider than the last tier are integrated
adaptively by bayes-vi, which tests/unit/quadrature/test_gaussian_expectation.cpp checks against
expectation_table.py.

    /usr/bin/python3 tests/reference/gauss_hermite_tiers.py softplus|log_ndtr   (a few minutes)
"""
import sys

import mpmath as mp
import numpy as np
import scipy.special as sp

mp.mp.dps = 30

MEANS = [-60, -30, -15, -8, -4, -2, -1, -0.5, 0, 0.5, 1, 2, 4, 8, 15, 30, 60]
SDS = [0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2, 3, 4, 6]
POINTS = [4, 6, 8, 12, 16, 20, 24, 32, 48, 64, 96, 128]


def mp_softplus(x):
    return mp.log1p(mp.exp(x)) if x < 0 else x + mp.log1p(mp.exp(-x))


def mp_sigmoid(x):
    return 1 / (1 + mp.exp(-x))


def mp_log_ndtr(x):
    return mp.log1p(-mp.ncdf(-x)) if x > 0 else mp.log(mp.ncdf(x))


def mp_inv_mills(x):
    return mp.npdf(x) / mp.ncdf(x)


MP_KERNELS = {
    "softplus": (mp_softplus, mp_sigmoid, lambda x: mp_sigmoid(x) * mp_sigmoid(-x)),
    "log_ndtr": (mp_log_ndtr, mp_inv_mills, lambda x: -mp_inv_mills(x) * (x + mp_inv_mills(x))),
}


def np_kernel(name, x):
    """f, f', f'' in double precision, stable in both tails."""
    if name == "softplus":
        return np.logaddexp(0, x), sp.expit(x), sp.expit(x) * sp.expit(-x)
    lp = sp.log_ndtr(x)
    r = np.exp(-0.5 * x * x - 0.5 * np.log(2 * np.pi) - lp)
    d2 = -r * (x + r)
    low = x < -20  # x + r cancels: x + r = x a/(1 + a), a = Mills' series less its leading 1
    if low.any():
        xl = x[low]
        q, term, a = 1 / (xl * xl), np.ones_like(xl), np.zeros_like(xl)
        for k in range(1, 40):
            term = -term * (2 * k - 1) * q
            a += term
        d2[low] = -r[low] * (xl * a / (1 + a))
    return lp, r, d2


def reference(name, a, s):
    out = []
    for g in MP_KERNELS[name]:
        z0 = -mp.mpf(a) / s
        pts = sorted({mp.mpf(k) / 4 for k in range(-160, 161)} |
                     {p for p in (z0, z0 - 1 / s, z0 + 1 / s) if -40 < p < 40})
        out.append(mp.quad(lambda z: g(a + s * z) * mp.npdf(z), pts))
    return [float(v) for v in out]


def rule(n):
    x, w = np.polynomial.hermite.hermgauss(n)
    return x * np.sqrt(2), w / np.sqrt(np.pi)


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "softplus"
    for s in SDS:
        worst = {n: 0.0 for n in POINTS}
        for a in MEANS:
            ref = reference(name, a, s)
            for n in POINTS:
                z, w = rule(n)
                vals = np_kernel(name, a + s * z)
                err = [abs(np.dot(w, vals[i]) - ref[i]) / (abs(ref[i]) + 1e-20) for i in range(3)]
                worst[n] = max(worst[n], max(err))
        print(name, "s=%g" % s, " ".join("%d:%.1e" % (n, worst[n]) for n in POINTS), flush=True)


if __name__ == "__main__":
    main()
