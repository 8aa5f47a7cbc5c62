#!/usr/bin/python3
"""Simulated data for the NUTS references of lognormal and gamma_log (no public dataset of
positive responses with 10^3 rows ships in a Debian package: statsmodels' scotland, engel,
grunfeld and strikes have 32 to 235 rows). 2000 rows, four features (x1, x2 correlated 0.5, x3
skewed, x4 binary), from a fixed seed:

    data/sim_lognormal.csv  log y ~ N(0.8 + x . (0.6, -0.4, 0.3, 0.5), 0.7)
    data/sim_gamma.csv      y ~ Gamma(shape 1.8, mean exp(0.3 + x . (0.6, -0.4, 0.3, 0.5)))
    data/sim_beta.csv       y ~ Beta(mean expit(-0.2 + x . (0.6, -0.4, 0.3, 0.5)), precision 7)
                            (beta_logit's; written last, so the others keep their numbers)

responses rounded to 6 significant digits. Regenerate with /usr/bin/python3 tests/reference/make_positive_sim.py.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
N = 2000
BETA = np.array([0.6, -0.4, 0.3, 0.5])


def features(rng):
    z = rng.standard_normal((N, 2))
    x1 = z[:, 0]
    x2 = 0.5 * z[:, 0] + np.sqrt(0.75) * z[:, 1]
    x3 = rng.exponential(1.0, N) - 1.0
    x4 = (rng.random(N) < 0.4).astype(float)
    return np.round(np.column_stack([x1, x2, x3, x4]), 4)


def write(name, X, y):
    with open(os.path.join(HERE, "data", name), "w") as f:
        f.write("x1,x2,x3,x4,y\n")
        for row, v in zip(X, y):
            f.write(",".join("%.4f" % a for a in row[:3]) + ",%d,%.6g\n" % (row[3], v))


def main():
    rng = np.random.default_rng(20261205)
    X = features(rng)
    write("sim_lognormal.csv", X, np.exp(0.8 + X @ BETA + 0.7 * rng.standard_normal(N)))
    X = features(rng)
    write("sim_gamma.csv", X, rng.gamma(1.8, np.exp(0.3 + X @ BETA) / 1.8))
    X = features(rng)
    m = 1.0 / (1.0 + np.exp(-(-0.2 + X @ BETA)))
    write("sim_beta.csv", X, np.clip(rng.beta(7.0 * m, 7.0 * (1 - m)), 1e-6, 1 - 1e-6))


if __name__ == "__main__":
    main()
