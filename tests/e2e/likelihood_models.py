"""Shared pieces of the likelihood end-to-end tests: simulated datasets for each likelihood, their
configs, and an independent numpy/scipy log joint (every normalizing constant, as scipy.stats
writes it) with its closed-form gradient."""
import json

import numpy as np
from scipy import special, stats

FAMILIES = ["bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "normal"]
BETA_SCALE, ALPHA_SCALE, SIGMA_SCALE = 2.5, 5.0, 3.0


def simulate(family, rows, alpha, beta, seed, sigma=0.8):
    """Columns (dict name -> array) drawn from `family` at eta = alpha + x . beta (+ offset and
    log exposure for poisson_log, both present)."""
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
    if family == "poisson_log":
        data["offset"], data["exposure"] = "offset", "exposure"
    priors = {"beta": {"normal": {"loc": 0, "scale": BETA_SCALE}}}
    if intercept:
        priors["alpha"] = {"normal": {"loc": 0, "scale": ALPHA_SCALE}}
    if family == "normal":
        priors["sigma"] = {"half_normal": {"scale": SIGMA_SCALE}}
    cfg = {"data": data, "model": {"likelihood": family, "intercept": intercept, "priors": priors}}
    if inference is not None:
        cfg["inference"] = inference
    return cfg


def log_joint(family, cols, features, alpha, beta, sigma=None):
    """log p(y, theta) and its gradient (alpha, beta..., sigma) from scipy.stats densities, the
    priors as the config writes them (sigma ~ half_normal: scipy.stats.halfnorm)."""
    x = np.column_stack([cols[f] for f in features])
    y = cols["y"]
    eta = alpha + x @ beta
    if family == "poisson_log":
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
    else:
        lp = stats.norm.logpdf(y, eta, sigma)
        g = (y - eta) / sigma**2
    total = lp.sum() + stats.norm.logpdf(beta, 0, BETA_SCALE).sum() + stats.norm.logpdf(alpha, 0, ALPHA_SCALE)
    grad = [g.sum() - alpha / ALPHA_SCALE**2] + list(x.T @ g - beta / BETA_SCALE**2)
    if family == "normal":
        total += stats.halfnorm.logpdf(sigma, 0, SIGMA_SCALE)
        grad.append(np.sum((y - eta) ** 2 / sigma**3 - 1 / sigma) - sigma / SIGMA_SCALE**2)
    return total, np.array(grad)


def param_names(family, d):
    return ["alpha"] + ["beta.%d" % (j + 1) for j in range(d)] + (["sigma"] if family == "normal" else [])


def dump(cfg):
    return json.dumps(cfg, indent=1)
