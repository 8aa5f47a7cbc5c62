#!/usr/bin/python3
"""The small example datasets of configs/likelihoods/ (one per likelihood), deterministic:

    /usr/bin/python3 data/make_likelihood_data.py     # rewrites data/lik_*.csv

Each has 200 rows, features x1, x2, x3 ~ N(0, 1) rounded to 4 decimals, and a response drawn
from its likelihood at eta = 0.5 + x . (1.0, -0.5, 0.25) (binomial: trials 1..20; poisson:
exposure in [0.5, 2], rate exposure * exp(eta); normal: sigma = 0.8; negative_binomial_log:
exposure in [0.5, 2], mean exposure * exp(eta), shape phi = 2.5, so Var y = mu + mu^2 / 2.5;
lognormal: log y ~ N(eta, 0.6); gamma_log: mean exp(eta), shape 2, so Var y = mu^2 / 2; both
rounded to 4 decimals and at least 1e-4; beta_logit: mean expit(eta), precision phi = 5, rounded
to 4 decimals and kept in [1e-4, 1 - 1e-4]; student_t: eta + 0.8 t_4, every tenth row shifted
by +8 (outliers), rounded to 4 decimals; ordinal_logit, ordinal_probit: no intercept,
eta = x . (1.0, -0.5, 0.25), y = 1 + the number of cutpoints (-1.0, 0.0, 1.2) below eta + e with e
standard logistic or standard normal, so K = 4; categorical_logit: K = 3 unordered categories,
category 1 the reference, eta_2 = 0.5 + x . (1.0, -0.5, 0.25), eta_3 = -0.3 + x . (-0.75, 0.5, 0.0),
y drawn from softmax(0, eta_2, eta_3)).
"""
import os

import numpy as np
from scipy import special

ROWS = 200
ALPHA, BETA = 0.5, np.array([1.0, -0.5, 0.25])
CUTPOINTS = (-1.0, 0.0, 1.2)
CAT_ALPHA = np.array([0.5, -0.3])
CAT_BETA = np.array([[1.0, -0.5, 0.25], [-0.75, 0.5, 0.0]])  # categories 2 and 3
HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, columns, integers):
    """Columns named in `integers` as integers, the others with repr() (the file holds them exactly)."""
    header = list(columns)
    with open(os.path.join(HERE, name), "w") as f:
        f.write(",".join(header) + "\n")
        for i in range(ROWS):
            f.write(",".join(str(int(columns[c][i])) if c in integers else repr(float(columns[c][i]))
                             for c in header) + "\n")


def main():
    rng = np.random.default_rng(20261202)
    # New likelihoods go last: the earlier files keep their random numbers.
    for name in ("bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "normal",
                 "negative_binomial_log", "lognormal", "gamma_log", "beta_logit", "student_t",
                 "ordinal_logit", "ordinal_probit", "categorical_logit"):
        x = np.round(rng.standard_normal((ROWS, 3)), 4)
        eta = ALPHA + x @ BETA
        cols = {"x1": x[:, 0], "x2": x[:, 1], "x3": x[:, 2]}
        if name == "bernoulli_logit":
            cols["y"] = rng.random(ROWS) < special.expit(eta)
        elif name == "bernoulli_probit":
            cols["y"] = rng.random(ROWS) < special.ndtr(eta)
        elif name == "binomial_logit":
            cols["trials"] = rng.integers(1, 21, ROWS)
            cols["y"] = rng.binomial(cols["trials"], special.expit(eta))
        elif name == "poisson_log":
            cols["exposure"] = np.round(rng.uniform(0.5, 2.0, ROWS), 3)
            cols["y"] = rng.poisson(cols["exposure"] * np.exp(eta))
        elif name == "negative_binomial_log":
            cols["exposure"] = np.round(rng.uniform(0.5, 2.0, ROWS), 3)
            mu, phi = cols["exposure"] * np.exp(eta), 2.5
            cols["y"] = rng.negative_binomial(phi, phi / (phi + mu))
        elif name == "lognormal":
            cols["y"] = np.maximum(np.round(np.exp(eta + 0.6 * rng.standard_normal(ROWS)), 4), 1e-4)
        elif name == "gamma_log":
            cols["y"] = np.maximum(np.round(rng.gamma(2.0, np.exp(eta) / 2.0), 4), 1e-4)
        elif name == "beta_logit":
            mu = special.expit(eta)
            cols["y"] = np.clip(np.round(rng.beta(5.0 * mu, 5.0 * (1 - mu)), 4), 1e-4, 1 - 1e-4)
        elif name == "student_t":
            outlier = np.arange(ROWS) % 10 == 9
            cols["y"] = np.round(eta + 0.8 * rng.standard_t(4.0, ROWS) + 8.0 * outlier, 4)
        elif name.startswith("ordinal"):
            noise = rng.logistic(size=ROWS) if name == "ordinal_logit" else rng.standard_normal(ROWS)
            latent = eta - ALPHA + noise  # no intercept: the cutpoints take its place
            cols["y"] = 1 + (latent[:, None] > np.array(CUTPOINTS)[None, :]).sum(axis=1)
        elif name == "categorical_logit":
            logits = np.column_stack([np.zeros(ROWS), CAT_ALPHA[None, :] + x @ CAT_BETA.T])
            p = special.softmax(logits, axis=1)
            u = rng.random(ROWS)
            cols["y"] = 1 + (u[:, None] > np.cumsum(p, axis=1)[:, :-1]).sum(axis=1)
        else:
            cols["y"] = np.round(eta + 0.8 * rng.standard_normal(ROWS), 4)
        integer = name not in ("normal", "lognormal", "gamma_log", "beta_logit", "student_t")
        write("lik_%s.csv" % name, cols, ("y", "trials") if integer else ())


if __name__ == "__main__":
    main()
