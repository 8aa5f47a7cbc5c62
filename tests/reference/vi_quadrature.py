"""One-dimensional Gaussian expectations for the reference optimum (vi_optimum.py).

Under a Gaussian q every term of the ELBO that is not closed form is E[f(mu + s z)], z ~ N(0, 1),
for a scalar function f. Three rules, each returning the expectation and its derivatives in mu
and s:

* LogisticExpectation: F(mu, s) = E log expit(mu + s z) (logistic and binomial likelihoods, the
  logistic prior, the interval transform's log-Jacobian, half-Cauchy / half-t priors on a log
  scale). Gauss-Hermite for s <= 1; for s > 1 the split
  log expit(eta) = min(eta, 0) - log1p(exp(-|eta|)): closed form for the first part, composite
  Gauss-Legendre in eta for the smooth, fast-decaying second part.
* ProbitExpectation: G(mu, s) = E log Phi(mu + s z) (probit likelihood). Gauss-Hermite for
  s <= 1; for s > 1 composite Gauss-Legendre in eta on a sinh-graded mesh (below).
* PanelRule: E g(zeta), zeta ~ N(m, s^2), for any prior log density g with known kinks and
  complex singularities, by composite Gauss-Legendre on panels that resolve both the Gaussian
  (one panel per sd) and every feature of g (sinh-graded panels around it, see `sinh_points`).

Why sinh grading: a function whose nearest complex singularity is at c +- i w (log(1 + z^2) at
+-i, log expit at +-i pi, log Phi near 1.9 +- 2.8i) is analytic, at a real point x, in a disc of
radius ~ sqrt((x - c)^2 + w^2). Points x_k = c + w sinh(k dt) give panels whose width is
~ dt sqrt((x - c)^2 + w^2), so every panel sees its nearest singularity at the same relative
distance (~2/dt half-widths) and Gauss-Legendre converges at one geometric rate on all of them.

Every rule is checked against scipy.integrate.quad to 1e-12 (relative to max(1, |value|)) in
test_vi_optimum.py. Standard library + numpy + scipy only.
"""

import functools
import math

import numpy as np
from scipy import special

LOG_2PI = math.log(2.0 * math.pi)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)

# Gauss-Hermite tiers (largest sd, nodes): log expit and log Phi are analytic in a strip of
# half-width ~3 around the real axis, i.e. 3/s in z, so few nodes suffice for small s. Each tier
# is at the double-precision floor (< 1e-13 relative, against 200 nodes and against quad) at its
# upper end, for both functions.
GH_TIERS = ((0.3, 16), (0.6, 24), (1.0, 48))


def gauss_hermite(n):
    """Nodes z and weights w with sum w f(z) ~ E f(z), z ~ N(0, 1)."""
    x, w = np.polynomial.hermite.hermgauss(n)
    return math.sqrt(2.0) * x, w / math.sqrt(math.pi)


@functools.lru_cache(maxsize=None)
def _legendre(n):
    return np.polynomial.legendre.leggauss(n)


def gauss_legendre_panels(edges, n):
    """Composite n-point Gauss-Legendre nodes and weights on the panels between sorted edges."""
    gx, gw = _legendre(n)
    a, b = edges[:-1], edges[1:]
    half = 0.5 * (b - a)
    x = (half[:, None] * gx[None, :] + (0.5 * (a + b))[:, None]).ravel()
    w = (half[:, None] * gw[None, :]).ravel()
    return x, w


# --------------------------------------------------------------------------------------------
# log expit
# --------------------------------------------------------------------------------------------

# Composite Gauss-Legendre panels on [0, 40] for the smooth remainder -log1p(exp(-|eta|)).
_PANEL_EDGES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0,
                         14.0, 17.0, 20.0, 24.0, 28.0, 33.0, 40.0])


def log_expit(x):
    """log expit(x) = min(x, 0) - log1p(exp(-|x|)), accurate everywhere."""
    return np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x)))


class LogisticExpectation:
    """F(mu, s) = E log expit(mu + s z) with dF/dmu, dF/ds (exact derivatives of the discrete rule).

    s <= 1: Gauss-Hermite in z, node count by tier (GH_TIERS, times `refine`).
    s >  1: closed-form E[min(eta, 0)] = mu Phi(-mu/s) - s phi(mu/s) + composite Gauss-Legendre
            (leg_nodes per panel) of -log1p(exp(-|eta|)) N(eta; mu, s^2) over eta in [-40, 40]
            (beyond, the remainder is below 4e-18).
    refine=2 doubles every node count (used to check the error of the default rule).
    """

    def __init__(self, refine=1, leg_nodes=20, block=1 << 19):
        self.refine = refine
        self.tiers = [(smax, gauss_hermite(refine * n), refine * n) for smax, n in GH_TIERS]
        self.switch = GH_TIERS[-1][0]
        self.leg_nodes = refine * leg_nodes
        e, ew = gauss_legendre_panels(_PANEL_EDGES, self.leg_nodes)
        r = -np.log1p(np.exp(-e))
        self.eta = np.concatenate([-e[::-1], e])                # nodes in eta
        self.eta_wr = np.concatenate([(ew * r)[::-1], ew * r])  # weight * remainder
        self.block = block                                      # elements per work array

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
                F[i] = (np.minimum(x, 0.0) - np.log1p(e)) @ w
                if grad:
                    d1 = np.where(x > 0, e, 1.0) / (1.0 + e)   # expit(-x) = d/dx log expit(x)
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

    @staticmethod
    def second_derivative(x):
        """d^2/dx^2 log expit(x) = -expit(x) expit(-x) (for the s -> 0 limit of dF/d(s^2))."""
        p = special.expit(x)
        return -p * (1.0 - p)

    def describe(self):
        return {"gauss_hermite": "sd <= %s: %s nodes" % (
                    "/".join(str(t[0]) for t in self.tiers), "/".join(str(t[2]) for t in self.tiers)),
                "split_rule": "sd > %s: closed-form E[min(eta,0)] + Gauss-Legendre %d nodes "
                              "x %d panels on |eta|<=40"
                              % (self.switch, self.leg_nodes, len(_PANEL_EDGES) - 1)}


# --------------------------------------------------------------------------------------------
# log Phi
# --------------------------------------------------------------------------------------------

def inverse_mills(x):
    """d/dx log Phi(x) = phi(x) / Phi(x) = sqrt(2/pi) / erfcx(-x / sqrt 2).

    Through erfcx, so no cancellation for x << 0 (where phi/Phi ~ -x); for x > 37 erfcx
    overflows and the ratio is 0, its limit to double precision."""
    with np.errstate(over="ignore"):
        return SQRT_2_OVER_PI / special.erfcx(-x / math.sqrt(2.0))


class ProbitExpectation:
    """G(mu, s) = E log Phi(mu + s z) with dG/dmu = E[phi/Phi(eta)], dG/ds = E[z phi/Phi(eta)].

    s <= 1: Gauss-Hermite (GH_TIERS; exact derivatives of the discrete rule).
    s >  1: eta = c + w sinh(t), t uniform on [asinh((mu - 12 s - c)/w), asinh((mu + 12 s - c)/w)]
            in `panels` equal panels of `nodes` Gauss-Legendre points, integrand
            log Phi(eta) N(eta; mu, s^2) w cosh(t). log Phi's singularities (zeros of Phi) lie at
            eta ~ 1.9 +- 2.8i and then outwards along arg eta = +-pi/4, so c = 1, w = 2 grade the
            panels around them (module docstring). The Gaussian mass beyond 12 sd is 4e-33. Here
            the derivatives are the same rule applied to the derivative of the integrand (the
            nodes move with mu and s, so the discrete rule's own derivative would differ from it
            by the quadrature error, ~1e-14).
    """

    CENTRE, WIDTH, HALF_RANGE = 1.0, 2.0, 12.0

    def __init__(self, refine=1, panels=24, nodes=16, block=1 << 19):
        self.tiers = [(smax, gauss_hermite(refine * n), refine * n) for smax, n in GH_TIERS]
        self.switch = GH_TIERS[-1][0]
        self.panels = refine * panels
        self.nodes = nodes
        # the rule on [0, 1]: t = ta + (tb - ta) u
        edges = np.linspace(0.0, 1.0, self.panels + 1)
        self.u, self.uw = gauss_legendre_panels(edges, nodes)
        self.block = block

    def __call__(self, mu, s, grad=True):
        mu = np.asarray(mu, dtype=np.float64)
        s = np.asarray(s, dtype=np.float64)
        G = np.empty_like(mu)
        Gm = np.empty_like(mu)
        Gs = np.empty_like(mu)
        lower = -np.inf
        for smax, (z, w), n in self.tiers:
            idx = np.flatnonzero((s > lower) & (s <= smax))
            lower = smax
            step = max(1, self.block // n)
            for k in range(0, idx.size, step):
                i = idx[k:k + step]
                x = mu[i, None] + s[i, None] * z[None, :]
                G[i] = special.log_ndtr(x) @ w
                if grad:
                    lam = inverse_mills(x)
                    Gm[i] = lam @ w
                    Gs[i] = lam @ (w * z)
        idx = np.flatnonzero(s > self.switch)
        c, wd, Z = self.CENTRE, self.WIDTH, self.HALF_RANGE
        step = max(1, self.block // self.u.size)
        for k in range(0, idx.size, step):
            i = idx[k:k + step]
            m, sd = mu[i, None], s[i, None]
            ta = np.arcsinh((m - Z * sd - c) / wd)
            tb = np.arcsinh((m + Z * sd - c) / wd)
            t = ta + (tb - ta) * self.u[None, :]
            eta = c + wd * np.sinh(t)
            zz = (eta - m) / sd
            weight = (tb - ta) * self.uw[None, :] * wd * np.cosh(t) * np.exp(-0.5 * zz * zz) \
                * (INV_SQRT_2PI / sd)
            G[i] = (weight * special.log_ndtr(eta)).sum(axis=1)
            if grad:
                lam = weight * inverse_mills(eta)
                Gm[i] = lam.sum(axis=1)
                Gs[i] = (lam * zz).sum(axis=1)
        return G, Gm, Gs

    @staticmethod
    def second_derivative(x):
        """d^2/dx^2 log Phi(x) = -lambda (lambda + x), lambda = phi/Phi."""
        lam = inverse_mills(x)
        return -lam * (lam + x)

    def describe(self):
        return {"gauss_hermite": "sd <= %s: %s nodes" % (
                    "/".join(str(t[0]) for t in self.tiers), "/".join(str(t[2]) for t in self.tiers)),
                "sinh_rule": "sd > %s: eta = %g + %g sinh(t) over mu +- %g sd, %d panels x %d "
                             "Gauss-Legendre nodes" % (self.switch, self.CENTRE, self.WIDTH,
                                                       self.HALF_RANGE, self.panels, self.nodes)}


# --------------------------------------------------------------------------------------------
# Generic panel rule for prior terms
# --------------------------------------------------------------------------------------------

def sinh_points(c, w, lo, hi, dt):
    """c + w sinh(k dt) for the integers k that land in [lo, hi]."""
    kmax = math.asinh(max(abs(lo - c), abs(hi - c)) / w) / dt
    k = np.arange(-math.ceil(kmax), math.ceil(kmax) + 1)
    x = c + w * np.sinh(k * dt)
    return x[(x > lo) & (x < hi)]


class PanelRule:
    """E g(zeta) for zeta ~ N(m, s^2), where g is analytic except at known points.

    Panels: the range [m - Z s, m + (Z + growth s) s] (growth k when g grows like e^(k zeta) as
    zeta -> +inf: the integrand then peaks k s sd above m), cut at every sd (the Gaussian), at
    every kink of g, and at c + w sinh(k dt) around every complex singularity c +- i w of g;
    `nodes` Gauss-Legendre points per panel. Z = 12 leaves 4e-33 of the Gaussian mass outside.
    """

    def __init__(self, refine=1, nodes=12, dt=0.5, Z=12.0, sd_step=1.0):
        self.nodes = refine * nodes
        self.dt = dt / refine
        self.Z = Z
        self.sd_step = sd_step / refine

    def nodes_weights(self, m, s, kinks=(), singular=(), growth=0.0):
        """Nodes zeta and weights (Gaussian density included) of the rule for N(m, s^2)."""
        lo = m - self.Z * s
        hi = m + (self.Z + growth * s) * s
        k = np.arange(math.floor(-self.Z / self.sd_step), math.ceil((self.Z + growth * s) / self.sd_step) + 1)
        pts = [np.array([lo, hi]), m + s * self.sd_step * k]
        pts += [np.array([x for x in kinks if lo < x < hi])]
        for c, w in singular:
            pts.append(sinh_points(c, w, lo, hi, self.dt))
        edges = np.unique(np.clip(np.concatenate(pts), lo, hi))
        edges = edges[np.concatenate([[True], np.diff(edges) > 1e-13 * (hi - lo)])]
        if edges[-1] < hi:
            edges[-1] = hi
        x, w = gauss_legendre_panels(edges, self.nodes)
        z = (x - m) / s
        return x, w * np.exp(-0.5 * z * z) * (INV_SQRT_2PI / s)

    def expect(self, g, dg, m, s, kinks=(), singular=(), growth=0.0):
        """E g, dE/dm = E g', dE/dv = E[g' (zeta - m)] / (2 s^2) (v = s^2: d/ds E g(m + s z) =
        E[g' z], times ds/dv = 1/(2s)); no second derivative, so kinks are harmless."""
        x, w = self.nodes_weights(m, s, kinks, singular, growth)
        d = dg(x)
        return float(w @ g(x)), float(w @ d), float(w @ (d * (x - m))) / (2.0 * s * s)

    def describe(self):
        return ("composite Gauss-Legendre, %d nodes per panel; panels every %g sd over m -12 sd .. "
                "+(12 + growth s) sd, at kinks, and sinh-graded (dt %g) around complex singularities"
                % (self.nodes, self.sd_step, self.dt))
