"""Shared pieces of the likelihood end-to-end tests: simulated datasets for each likelihood, their
configs, and an independent numpy/scipy log joint (every normalizing constant, as scipy.stats
writes it) with its closed-form gradient."""
import json

import numpy as np
from scipy import special, stats

FAMILIES = ["bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "normal",
            "negative_binomial_log", "lognormal", "gamma_log", "beta_logit", "student_t"]
BETA_SCALE, ALPHA_SCALE, SIGMA_SCALE = 2.5, 5.0, 3.0
PHI_SHAPE, PHI_RATE = 0.01, 0.01  # brms's default prior for the negative binomial's and the gamma's shape
# The likelihood's own positive parameter, and where a config's prior for it comes from.
OWN = {"normal": "sigma", "negative_binomial_log": "phi", "lognormal": "sigma", "gamma_log": "shape",
       "beta_logit": "phi", "student_t": "sigma"}
# A second positive parameter (student_t's degrees of freedom), its prior (brms's default
# gamma(2, 0.1)) and the true value simulate() draws with.
SECOND = {"student_t": "nu"}
NU_SHAPE, NU_RATE, NU_TRUE = 2.0, 0.1, 5.0


def simulate(family, rows, alpha, beta, seed, sigma=0.8):
    """Columns (dict name -> array) drawn from `family` at eta = alpha + x . beta (+ offset and
    log exposure for poisson_log and negative_binomial_log, both present; `sigma` is the negative
    binomial's phi, gamma_log's shape and beta_logit's precision phi)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, len(beta)))
    cols = {"x%d" % (j + 1): x[:, j] for j in range(len(beta))}
    eta = alpha + x @ np.asarray(beta)
    if family == "bernoulli_logit":
        cols["y"] = (rng.random(rows) < special.expit(eta)).astype(float)
    elif family == "bernoulli_probit":
        cols["y"] = (rng.random(rows) < special.ndtr(eta)).astype(float)
    elif family == "binomial_logit":
        cols["trials"] = rng.integers(0, 15, rows).astype(float)  # zero trials included
        cols["y"] = rng.binomial(cols["trials"].astype(int), special.expit(eta)).astype(float)
    elif family == "poisson_log":
        cols["offset"] = 0.2 * rng.standard_normal(rows)
        cols["exposure"] = rng.uniform(0.5, 3.0, rows)
        cols["y"] = rng.poisson(cols["exposure"] * np.exp(eta + cols["offset"])).astype(float)
    elif family == "negative_binomial_log":
        cols["offset"] = 0.2 * rng.standard_normal(rows)
        cols["exposure"] = rng.uniform(0.5, 3.0, rows)
        mu, phi = cols["exposure"] * np.exp(eta + cols["offset"]), sigma
        cols["y"] = rng.negative_binomial(phi, phi / (phi + mu)).astype(float)
    elif family == "lognormal":
        cols["y"] = np.exp(eta + sigma * rng.standard_normal(rows))
    elif family == "gamma_log":
        cols["y"] = rng.gamma(sigma, np.exp(eta) / sigma)
    elif family == "beta_logit":  # kept inside (0, 1) as doubles: a small phi puts mass at the edges
        mu = special.expit(eta)
        cols["y"] = np.clip(rng.beta(mu * sigma, (1 - mu) * sigma), 1e-10, 1 - 1e-10)
    elif family == "student_t":  # scale sigma, NU_TRUE degrees of freedom
        cols["y"] = eta + sigma * rng.standard_t(NU_TRUE, rows)
    else:
        cols["y"] = eta + sigma * rng.standard_normal(rows)
    return cols


def write_csv(path, cols):
    names = list(cols)
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for i in range(len(cols[names[0]])):
            f.write(",".join(repr(float(cols[n][i])) for n in names) + "\n")


def config(family, csv_path, features, intercept=True, inference=None, **data_extra):
    data = {"csv": csv_path, "response": "y", "features": features, **data_extra}
    if family == "binomial_logit":
        data["trials"] = "trials"
    if family in ("poisson_log", "negative_binomial_log"):
        data["offset"], data["exposure"] = "offset", "exposure"
    priors = {"beta": {"normal": {"loc": 0, "scale": BETA_SCALE}}}
    if intercept:
        priors["alpha"] = {"normal": {"loc": 0, "scale": ALPHA_SCALE}}
    if family in ("normal", "lognormal", "student_t"):
        priors["sigma"] = {"half_normal": {"scale": SIGMA_SCALE}}
    if family == "student_t":
        priors["nu"] = {"gamma": {"shape": NU_SHAPE, "rate": NU_RATE}}
    if family == "negative_binomial_log":
        priors["phi"] = {"gamma": {"shape": PHI_SHAPE, "rate": PHI_RATE}}
    if family == "gamma_log":
        priors["shape"] = {"gamma": {"shape": PHI_SHAPE, "rate": PHI_RATE}}
    if family == "beta_logit":
        priors["phi"] = {"gamma": {"shape": PHI_SHAPE, "rate": PHI_RATE}}
    cfg = {"data": data, "model": {"likelihood": family, "intercept": intercept, "priors": priors}}
    if inference is not None:
        cfg["inference"] = inference
    return cfg


def log_joint(family, cols, features, alpha, beta, sigma=None, nu=None):
    """log p(y, theta) and its gradient (alpha, beta..., sigma or phi[, nu]) from scipy.stats densities,
    the priors as the config writes them (sigma ~ half_normal: scipy.stats.halfnorm; phi ~ gamma:
    scipy.stats.gamma with scale 1/rate). `sigma` is the negative binomial's phi; `nu` student_t's."""
    x = np.column_stack([cols[f] for f in features])
    y = cols["y"]
    eta = alpha + x @ beta
    if family in ("poisson_log", "negative_binomial_log"):
        eta = eta + cols["offset"] + np.log(cols["exposure"])
    if family == "bernoulli_logit":
        lp = stats.bernoulli.logpmf(y, special.expit(eta))
        g = y - special.expit(eta)
    elif family == "bernoulli_probit":
        t = 2 * y - 1
        lp = special.log_ndtr(t * eta)
        g = t * np.exp(stats.norm.logpdf(eta) - special.log_ndtr(t * eta))
    elif family == "binomial_logit":
        lp = stats.binom.logpmf(y, cols["trials"], special.expit(eta))
        g = y - cols["trials"] * special.expit(eta)
    elif family == "poisson_log":
        lp = stats.poisson.logpmf(y, np.exp(eta))
        g = y - np.exp(eta)
    elif family == "negative_binomial_log":
        phi, mu = sigma, np.exp(eta)
        lp = stats.nbinom.logpmf(y, phi, phi / (phi + mu))
        g = phi * (y - mu) / (phi + mu)
    elif family == "lognormal":
        lp = stats.lognorm.logpdf(y, s=sigma, scale=np.exp(eta))
        g = (np.log(y) - eta) / sigma**2
    elif family == "gamma_log":
        a, mu = sigma, np.exp(eta)
        lp = stats.gamma.logpdf(y, a, scale=mu / a)
        g = a * (y / mu - 1)
    elif family == "beta_logit":
        phi, mu = sigma, special.expit(eta)
        a, b = mu * phi, (1 - mu) * phi
        lp = stats.beta.logpdf(y, a, b)
        g = phi * mu * (1 - mu) * (special.digamma(b) - special.digamma(a) + np.log(y) - np.log1p(-y))
    elif family == "student_t":
        z = (y - eta) / sigma
        lp = stats.t.logpdf(y, nu, eta, sigma)
        g = (nu + 1) * z / (sigma * (nu + z**2))
    else:
        lp = stats.norm.logpdf(y, eta, sigma)
        g = (y - eta) / sigma**2
    total = lp.sum() + stats.norm.logpdf(beta, 0, BETA_SCALE).sum() + stats.norm.logpdf(alpha, 0, ALPHA_SCALE)
    grad = [g.sum() - alpha / ALPHA_SCALE**2] + list(x.T @ g - beta / BETA_SCALE**2)
    if family in ("normal", "lognormal"):
        r = y - eta if family == "normal" else np.log(y) - eta
        total += stats.halfnorm.logpdf(sigma, 0, SIGMA_SCALE)
        grad.append(np.sum(r**2 / sigma**3 - 1 / sigma) - sigma / SIGMA_SCALE**2)
    if family == "student_t":
        z2 = ((y - eta) / sigma) ** 2
        total += stats.halfnorm.logpdf(sigma, 0, SIGMA_SCALE) + stats.gamma.logpdf(nu, NU_SHAPE, scale=1 / NU_RATE)
        grad.append(np.sum(((nu + 1) * z2 / (nu + z2) - 1) / sigma) - sigma / SIGMA_SCALE**2)
        # d/dnu log t = (psi((nu + 1)/2) - psi(nu/2) - 1/nu - log(1 + z^2/nu) + (nu + 1) z^2 / (nu (nu + z^2))) / 2
        dnu = 0.5 * (special.digamma((nu + 1) / 2) - special.digamma(nu / 2) - 1 / nu - np.log1p(z2 / nu)
                     + (nu + 1) * z2 / (nu * (nu + z2)))
        grad.append(dnu.sum() + (NU_SHAPE - 1) / nu - NU_RATE)
    if family == "gamma_log":
        a, mu = sigma, np.exp(eta)
        total += stats.gamma.logpdf(a, PHI_SHAPE, scale=1 / PHI_RATE)
        # d/da log Gamma(y | a, a / mu) = log a + 1 - psi(a) + log(y / mu) - y / mu
        da = np.log(a) + 1 - special.digamma(a) + np.log(y / mu) - y / mu
        grad.append(da.sum() + (PHI_SHAPE - 1) / a - PHI_RATE)
    if family == "beta_logit":
        phi, mu = sigma, special.expit(eta)
        a, b = mu * phi, (1 - mu) * phi
        total += stats.gamma.logpdf(phi, PHI_SHAPE, scale=1 / PHI_RATE)
        dphi = (special.digamma(phi) - mu * special.digamma(a) - (1 - mu) * special.digamma(b) + mu * np.log(y)
                + (1 - mu) * np.log1p(-y))
        grad.append(dphi.sum() + (PHI_SHAPE - 1) / phi - PHI_RATE)
    if family == "negative_binomial_log":
        phi, mu = sigma, np.exp(eta)
        total += stats.gamma.logpdf(phi, PHI_SHAPE, scale=1 / PHI_RATE)
        # d/dphi log NB2 = psi(y + phi) - psi(phi) + log(phi / (phi + mu)) + (mu - y) / (phi + mu)
        dphi = special.digamma(y + phi) - special.digamma(phi) + np.log(phi / (phi + mu)) + (mu - y) / (phi + mu)
        grad.append(dphi.sum() + (PHI_SHAPE - 1) / phi - PHI_RATE)
    return total, np.array(grad)


def param_names(family, d):
    return (["alpha"] + ["beta.%d" % (j + 1) for j in range(d)] + ([OWN[family]] if family in OWN else [])
            + ([SECOND[family]] if family in SECOND else []))


def dump(cfg):
    return json.dumps(cfg, indent=1)
