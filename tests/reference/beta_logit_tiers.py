#!/usr/bin/python3
"""How many Gauss-Hermite points per axis beta_logit's exact expectation needs at small sds.

E log Beta(y | phi expit(eta), phi expit(-eta)) and its partials in eta's mean and variance and in
u = log phi's mean and variance (the five sums of models/likelihoods/beta_logit_expectation.cpp,
written here with scipy.special), over eta ~ N(m, sd^2) and u ~ N(log phi, s^2) independent,
by an n_u x n_eta tensor rule against a 40 x 60 one. Prints, for each (s, sd, n_u, n_eta), the
worst relative error (against max(1, |value|)) over phi in 0.5..1e4, m in -6..4, y in 0.001..0.999,
with the case where it occurs. In float64 the sweep's floor is about 1e-12 for phi up to 1000 and
1e-11 at phi = 1e4 (log Gamma(phi) near 8e4 there: its rounding, which a 20 x 30 rule shows as
well). beta_logit_expectation.cpp takes its tiers below sd 0.15 from this: on the eta axis 2 points
to sd 0.0005, 3 to 0.005, 4 to 0.01, 6 to 0.05, 8 to 0.15; on the u axis (eta and u independent)
2 to 0.001, 3 to 0.01, then the eta axis's: each at the floor (the last six cases).

    /usr/bin/python3 tests/reference/beta_logit_tiers.py   (about a minute)
"""
import numpy as np
from scipy.special import digamma, expit, gammaln, polygamma


def rule(n):
    x, w = np.polynomial.hermite_e.hermegauss(n)
    return x, w / np.sqrt(2 * np.pi)


def sums(y, m, sd, u_mean, s, n_u, n_eta):
    zu, wu = rule(n_u)
    ze, we = rule(n_eta)
    u = u_mean + s * zu[:, None]
    eta = m + sd * ze[None, :]
    phi, s1, s0 = np.exp(u), expit(eta), expit(-eta)
    a, b = phi * s1, phi * s0
    ly, l1y = np.log(y), np.log1p(-y)
    pa, pb, p1a, p1b = digamma(a), digamma(b), polygamma(1, a), polygamma(1, b)
    q, g = phi * s1 * s0, pb - pa + ly - l1y
    f = gammaln(phi) - gammaln(a) - gammaln(b) + (a - 1) * ly + (b - 1) * l1y
    fu = phi * digamma(phi) - a * pa - b * pb + a * ly + b * l1y
    terms = (f, q * g, q * (s0 - s1) * g - q * q * (p1a + p1b), fu, fu + phi**2 * polygamma(1, phi) - a * a * p1a - b * b * p1b)
    w = wu[:, None] * we[None, :]
    return np.array([(w * t).sum() for t in terms])


def main():
    cases = [(0.01, 0.01, 4, 4), (0.01, 0.05, 4, 6), (0.05, 0.05, 6, 6), (0.05, 0.15, 6, 8), (0.15, 0.15, 8, 8),
             (0.15, 0.01, 8, 4), (0.01, 0.05, 4, 4), (0.05, 0.15, 6, 6), (0.01, 0.05, 20, 30),
             (0.01, 0.01, 3, 4), (0.01, 0.15, 3, 8), (0.001, 0.15, 2, 8), (0.15, 0.005, 8, 3), (0.05, 0.0005, 6, 2),
             (0.001, 0.0005, 2, 2)]
    worst = {}
    for phi in [0.5, 1.0, 10.0, 100.0, 1000.0, 1e4]:
        for m in [-6.0, -4.0, -1.0, 0.0, 2.0, 4.0]:
            for y in [0.001, 0.02, 0.3, 0.7, 0.98, 0.999]:
                for s, sd, n_u, n_eta in cases:
                    ref = sums(y, m, sd, np.log(phi), s, 40, 60)
                    err = np.abs(sums(y, m, sd, np.log(phi), s, n_u, n_eta) - ref) / np.maximum(1.0, np.abs(ref))
                    key = (s, sd, n_u, n_eta)
                    if key not in worst or err.max() > worst[key][0]:
                        worst[key] = (err.max(), phi, m, y)
    for key in cases:
        e, phi, m, y = worst[key]
        print("s %.4f sd %.4f: %2d x %2d points, worst %.1e (phi %g, m %g, y %g)" % (key + (e, phi, m, y)))


if __name__ == "__main__":
    main()
