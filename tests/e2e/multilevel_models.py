"""Shared pieces of the multilevel end-to-end tests: simulated data with categorical columns
(strings and numeric IDs) and grouping factors, and an independent numpy/scipy log joint of a
multilevel model, every constant included: the design matrix built by hand for each formula
used, the group effects' priors from scipy.stats (norm, multivariate_normal) and the LKJ density
of the correlations' Cholesky factor from the Beta law of its canonical partial correlations
(Lewandowski, Kurowicka & Joe 2009: z_ij ~ Beta(b_j, b_j) on (-1, 1), b_j = eta + (K - 2 - j)/2),
an independent route to Stan's lkj_corr_cholesky_lpdf. Gradients by central differences of
that reference."""
import json

import numpy as np
from scipy import special, stats

FAMILIES = ["bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "normal",
            "negative_binomial_log", "lognormal", "gamma_log", "beta_logit"]
PHI_SHAPE, PHI_RATE = 2.0, 0.5  # the negative binomial's phi and gamma_log's shape ~ gamma(shape, rate)
# The likelihood's own positive parameter.
OWN = {"normal": "sigma", "negative_binomial_log": "phi", "lognormal": "sigma", "gamma_log": "shape",
       "beta_logit": "phi"}
COUNTIES = ["Albany", "Boston", "Cairo", "denver", "Erie", "Fargo"]  # byte order: A B C E F d


def simulate(family, rows, seed):
    """Columns: y, x (numeric), z (numeric), sex (female/male), county (strings), school (numeric
    IDs 1..7, written as integers), plus trials / offset / exposure for the families that read them."""
    rng = np.random.default_rng(seed)
    cols = {
        "x": np.round(rng.standard_normal(rows), 4),
        "z": np.round(rng.uniform(-1, 1, rows), 4),
        "sex": rng.choice(["female", "male"], rows),
        "county": rng.choice(COUNTIES, rows),
        "school": rng.integers(1, 8, rows),
    }
    c_eff = {c: 0.4 * rng.standard_normal() for c in COUNTIES}
    s_eff = {s: 0.3 * rng.standard_normal() for s in range(1, 8)}
    eta = (0.3 + 0.5 * cols["x"] - 0.4 * (cols["sex"] == "male") + np.array([c_eff[c] for c in cols["county"]])
           + np.array([s_eff[s] for s in cols["school"]]))
    if family == "bernoulli_logit":
        cols["y"] = (rng.random(rows) < special.expit(eta)).astype(int)
    elif family == "bernoulli_probit":
        cols["y"] = (rng.random(rows) < special.ndtr(eta)).astype(int)
    elif family == "binomial_logit":
        cols["trials"] = rng.integers(0, 9, rows)
        cols["y"] = rng.binomial(cols["trials"], special.expit(eta))
    elif family == "poisson_log":
        cols["offset"] = np.round(0.2 * rng.standard_normal(rows), 4)
        cols["exposure"] = np.round(rng.uniform(0.5, 2.0, rows), 3)
        cols["y"] = rng.poisson(cols["exposure"] * np.exp(eta + cols["offset"]))
    elif family == "negative_binomial_log":
        cols["offset"] = np.round(0.2 * rng.standard_normal(rows), 4)
        cols["exposure"] = np.round(rng.uniform(0.5, 2.0, rows), 3)
        mu = cols["exposure"] * np.exp(eta + cols["offset"])
        cols["y"] = rng.negative_binomial(3.0, 3.0 / (3.0 + mu))
    elif family == "lognormal":
        cols["y"] = np.round(np.exp(eta + 0.7 * rng.standard_normal(rows)), 5)
    elif family == "gamma_log":  # shape 3; rounded, but never to 0
        cols["y"] = np.maximum(np.round(rng.gamma(3.0, np.exp(eta) / 3.0), 5), 1e-5)
    elif family == "beta_logit":  # precision 6; rounded, but never to 0 or 1
        mu = special.expit(eta)
        cols["y"] = np.clip(np.round(rng.beta(6.0 * mu, 6.0 * (1 - mu)), 5), 1e-5, 1 - 1e-5)
    else:
        cols["y"] = np.round(eta + 0.7 * rng.standard_normal(rows), 4)
    return cols


def write_csv(path, cols, order=None):
    names = order or list(cols)
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for i in range(len(cols[names[0]])):
            f.write(",".join(str(cols[n][i]) for n in names) + "\n")


def data_section(family, csv_path):
    data = {"csv": csv_path}
    if family == "binomial_logit":
        data["trials"] = "trials"
    if family in ("poisson_log", "negative_binomial_log"):
        data["offset"], data["exposure"] = "offset", "exposure"
    return data


# --- The reference density -------------------------------------------------------------------

def lkj_cholesky_logpdf(L, eta):
    """log p(L) of the Cholesky factor of Omega ~ LKJ(eta), by the partial correlations' Beta law:
    p(L) = prod_ij Beta((z_ij + 1)/2; b_j, b_j) / 2 * |dz/dL|, dz_ij/dL_ij = 1/sqrt(1 - sum_{m<j} L_im^2)."""
    K = L.shape[0]
    lp = 0.0
    for i in range(1, K):
        rest = 1.0
        for j in range(i):
            z = L[i, j] / np.sqrt(rest)
            b = eta + (K - 2 - j) / 2
            lp += stats.beta.logpdf((z + 1) / 2, b, b) - np.log(2) - 0.5 * np.log(rest)
            rest -= L[i, j] ** 2
    return lp


def lkj_closed_form(L, eta):
    """The same from Lewandowski et al.'s normalizing constant, as a cross-check."""
    K = L.shape[0]
    logc = sum((2 * eta - 2 + K - k) * (K - k) * np.log(2) + (K - k) * special.betaln(eta + (K - k - 1) / 2,
                                                                                        eta + (K - k - 1) / 2)
               for k in range(1, K))
    return sum((K - i + 2 * eta - 2) * np.log(L[i - 1, i - 1]) for i in range(2, K + 1)) - logc


def row_log_lik(family, y, eta, cols, sigma):
    if family == "bernoulli_logit":
        return stats.bernoulli.logpmf(y, special.expit(eta))
    if family == "bernoulli_probit":
        return special.log_ndtr(np.where(y > 0.5, eta, -eta))
    if family == "binomial_logit":
        return stats.binom.logpmf(y, cols["trials"], special.expit(eta))
    if family == "poisson_log":
        return stats.poisson.logpmf(y, np.exp(eta + cols["offset"] + np.log(cols["exposure"])))
    if family == "negative_binomial_log":  # sigma is phi
        mu = np.exp(eta + cols["offset"] + np.log(cols["exposure"]))
        return stats.nbinom.logpmf(y, sigma, sigma / (sigma + mu))
    if family == "lognormal":
        return stats.lognorm.logpdf(y, s=sigma, scale=np.exp(eta))
    if family == "gamma_log":  # sigma is the shape
        return stats.gamma.logpdf(y, sigma, scale=np.exp(eta) / sigma)
    if family == "beta_logit":  # sigma is phi
        mu = special.expit(eta)
        return stats.beta.logpdf(y, mu * sigma, (1 - mu) * sigma)
    return stats.norm.logpdf(y, eta, sigma)


class Group:
    """A group term for the reference: level index per row (0-based, levels in the tool's order),
    its per-row effect values Z (rows x K, the intercept column of ones first), correlated or not."""

    def __init__(self, ident, level, Z, correlated, eta=1.0):
        self.ident, self.level, self.Z, self.correlated, self.eta = ident, level, Z, correlated, eta
        self.G = int(level.max()) + 1
        self.K = Z.shape[1]

    def names(self):
        out = ["sd_%s.%d" % (self.ident, k + 1) for k in range(self.K)]
        if self.correlated and self.K >= 2:
            out += ["cor_%s.%d.%d" % (self.ident, i + 1, j + 1) for i in range(1, self.K) for j in range(i)]
        return out

    def r_names(self):
        return ["r_%s.%d.%d" % (self.ident, g + 1, k + 1) for g in range(self.G) for k in range(self.K)]


class Reference:
    """log p(y, theta) of a model: eta = alpha + X beta + sum_F Z_F r_F[level]; priors: beta ~
    normal(0, beta_scale) (per coefficient), alpha ~ normal(0, alpha_scale), sigma ~
    half_normal(sigma_scale), sd_F ~ half_normal(sd_scale), cor_F ~ lkj(eta), r_F as the model
    says. Parameters as a dict name -> value (the CSV names of eval)."""

    def __init__(self, family, cols, X, groups, intercept=True, beta_scale=2.0, alpha_scale=5.0, sigma_scale=3.0,
                 sd_scale=2.0):
        self.family, self.cols, self.X, self.groups, self.intercept = family, cols, X, groups, intercept
        self.beta_scale, self.alpha_scale, self.sigma_scale, self.sd_scale = beta_scale, alpha_scale, sigma_scale, sd_scale

    def names(self):
        out = (["alpha"] if self.intercept else []) + ["beta.%d" % (j + 1) for j in range(self.X.shape[1])]
        if self.family in OWN:
            out.append(OWN[self.family])
        for g in self.groups:
            out += g.names()
        for g in self.groups:
            out += g.r_names()
        return out

    def log_joint(self, p):
        beta = np.array([p["beta.%d" % (j + 1)] for j in range(self.X.shape[1])])
        eta = self.X @ beta
        lp = stats.norm.logpdf(beta, 0, self.beta_scale).sum()
        if self.intercept:
            eta = eta + p["alpha"]
            lp += stats.norm.logpdf(p["alpha"], 0, self.alpha_scale)
        sigma = p.get("sigma")
        if self.family in ("normal", "lognormal"):
            lp += stats.halfnorm.logpdf(sigma, 0, self.sigma_scale)
        if self.family in ("negative_binomial_log", "gamma_log", "beta_logit"):
            sigma = p[OWN[self.family]]
            lp += stats.gamma.logpdf(sigma, PHI_SHAPE, scale=1 / PHI_RATE)
        for g in self.groups:
            sd = np.array([p["sd_%s.%d" % (g.ident, k + 1)] for k in range(g.K)])
            r = np.array([[p["r_%s.%d.%d" % (g.ident, l + 1, k + 1)] for k in range(g.K)] for l in range(g.G)])
            lp += stats.halfnorm.logpdf(sd, 0, self.sd_scale).sum()
            if g.correlated and g.K >= 2:
                omega = np.eye(g.K)
                for i in range(1, g.K):
                    for j in range(i):
                        omega[i, j] = omega[j, i] = p["cor_%s.%d.%d" % (g.ident, i + 1, j + 1)]
                L = np.linalg.cholesky(omega)
                lp += lkj_cholesky_logpdf(L, g.eta)
                cov = np.diag(sd) @ omega @ np.diag(sd)
                lp += stats.multivariate_normal(np.zeros(g.K), cov).logpdf(r).sum()
            else:
                lp += stats.norm.logpdf(r, 0, sd[None, :]).sum()
            eta = eta + (g.Z * r[g.level]).sum(axis=1)
        return lp + row_log_lik(self.family, self.cols["y"], eta, self.cols, sigma).sum()

    def gradient(self, p, h=1e-6):
        g = {}
        for n in self.names():
            up, dn = dict(p), dict(p)
            step = h * max(1.0, abs(p[n]))
            up[n] += step
            dn[n] -= step
            g[n] = (self.log_joint(up) - self.log_joint(dn)) / (2 * step)
        return g

    def random_point(self, rng):
        p = {n: 0.4 * rng.standard_normal() for n in self.names()}
        if self.family in ("normal", "lognormal"):
            p["sigma"] = 0.6 + abs(0.3 * rng.standard_normal())
        if self.family in ("negative_binomial_log", "gamma_log", "beta_logit"):
            p[OWN[self.family]] = 1.0 + abs(rng.standard_normal())
        for g in self.groups:
            for k in range(g.K):
                p["sd_%s.%d" % (g.ident, k + 1)] = 0.3 + abs(0.5 * rng.standard_normal())
            if g.correlated and g.K >= 2:
                # A random correlation matrix: normalized Gram matrix of random vectors.
                A = rng.standard_normal((g.K, g.K + 2))
                S = A @ A.T
                d = np.sqrt(np.diag(S))
                omega = S / np.outer(d, d)
                for i in range(1, g.K):
                    for j in range(i):
                        p["cor_%s.%d.%d" % (g.ident, i + 1, j + 1)] = omega[i, j]
        return p


def explicit_priors(ref, groups_by_ident):
    """The config priors the Reference assumes."""
    pr = {"beta": {"normal": {"loc": 0, "scale": ref.beta_scale}}}
    if ref.intercept:
        pr["alpha"] = {"normal": {"loc": 0, "scale": ref.alpha_scale}}
    if ref.family in ("normal", "lognormal"):
        pr["sigma"] = {"half_normal": {"scale": ref.sigma_scale}}
    if ref.family in ("negative_binomial_log", "gamma_log", "beta_logit"):
        pr[OWN[ref.family]] = {"gamma": {"shape": PHI_SHAPE, "rate": PHI_RATE}}
    for g in ref.groups:
        pr["sd_" + g.ident] = {"half_normal": {"scale": ref.sd_scale}}
        if g.correlated and g.K >= 2:
            pr["cor_" + g.ident] = {"lkj": {"eta": g.eta}}
    return pr


def params_csv(names, points):
    return ",".join(names) + "\n" + "".join(",".join(repr(float(pt[n])) for n in names) + "\n" for pt in points)


def dump(cfg):
    return json.dumps(cfg, indent=1)
