#!/usr/bin/python3
"""NUTS reference for categorical_logit with a varying intercept per category (brms's
`y ~ x1 + x2 + (1 | g)` with family categorical; rstan 2.21, Stan's categorical_logit): simulated
data, 1000 rows, two features x ~ N(0, 1) rounded to 4 decimals, 20 groups g01 ... g20 (each row's
drawn uniformly), K = 3 with category 1 the reference, eta_k = alpha_k + x . beta_k + r_k[g],
alpha = (0.3, -0.4), beta_2 = (0.8, -0.5), beta_3 = (-0.6, 0.4), r_k[g] ~ N(0, sd_k), sd = (0.8,
0.5), from a fixed seed; written to tests/reference/data/sim_categorical_groups.csv with its config
tests/reference/sim_categorical_groups.json (alpha, beta ~ normal(0, 2.5), sd_g ~ half_normal(1)).
NUTS on the non-centred form (r = sd z, z ~ N(0, 1): the same posterior): 4 chains x (1000 warmup +
3000 draws), adapt_delta 0.95; posterior means and sds, named as bayes-vi names them (alpha.k,
beta.k.j, sd_g.k.1), to tests/reference/fixtures/sim_categorical_groups.nuts.json, which
tests/e2e/test_categorical_groups_nuts.py compares with.

    /usr/bin/python3 tests/reference/categorical_groups_nuts.py
"""
import csv as csv_module
import json
import os
import subprocess
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
N, G = 1000, 20
ALPHA = np.array([0.3, -0.4])
BETA = np.array([[0.8, -0.6], [-0.5, 0.4]])  # D x (K - 1)
SD = np.array([0.8, 0.5])

STAN = """
data {
  int<lower=1> N; int<lower=1> D; int<lower=2> K; int<lower=1> G;
  matrix[N, D] x; int<lower=1, upper=K> y[N]; int<lower=1, upper=G> g[N];
}
parameters { vector[K - 1] alpha; matrix[D, K - 1] beta; vector<lower=0>[K - 1] sd_g; matrix[G, K - 1] z; }
model {
  matrix[N, K - 1] eta = rep_matrix(alpha', N) + x * beta;
  alpha ~ normal(0, 2.5);
  to_vector(beta) ~ normal(0, 2.5);
  sd_g ~ normal(0, 1);
  to_vector(z) ~ std_normal();
  for (n in 1:N) {
    vector[K] e;
    e[1] = 0;
    for (c in 1:(K - 1)) e[c + 1] = eta[n, c] + sd_g[c] * z[g[n], c];
    y[n] ~ categorical_logit(e);
  }
}
"""

R = r"""
suppressPackageStartupMessages(library(rstan))
a <- commandArgs(trailingOnly = TRUE)
# Debian's Boost headers are in /usr/include, where rstan does not look (as rstan_runner.py).
if (!file.exists(rstan_options("boost_lib")) && dir.exists("/usr/include/boost"))
  rstan_options(boost_lib = "/usr/include")
d <- read.csv(a[1])
x <- as.matrix(d[, c("x1", "x2")])
g <- as.integer(factor(d$g, levels = sort(unique(d$g))))
data <- list(N = nrow(d), D = 2L, K = 3L, G = max(g), x = x, y = as.integer(d$y), g = g)
m <- stan_model(file = a[2])
fit <- sampling(m, data = data, chains = 4, warmup = 1000, iter = 4000, seed = 20261205, cores = 1,
                control = list(adapt_delta = 0.95), refresh = 0)
s <- summary(fit, pars = c("alpha", "beta", "sd_g"))$summary
write.csv(s, a[3])
"""


def bvi_name(stan):
    """alpha[c] -> alpha.k, beta[j,c] -> beta.k.j, sd_g[c] -> sd_g.k.1 (k = c + 1: category 1 the reference)."""
    base, idx = stan.rstrip("]").split("[")
    i = [int(v) for v in idx.split(",")]
    if base == "alpha":
        return "alpha.%d" % (i[0] + 1)
    if base == "beta":
        return "beta.%d.%d" % (i[1] + 1, i[0])
    return "sd_g.%d.1" % (i[0] + 1)


def main():
    rng = np.random.default_rng(20261205)
    x = np.round(rng.standard_normal((N, 2)), 4)
    g = rng.integers(0, G, N)
    r = rng.standard_normal((G, 2)) * SD[None, :]
    eta = np.column_stack([np.zeros(N), ALPHA[None, :] + x @ BETA + r[g]])
    p = np.exp(eta - eta.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = 1 + (rng.random(N)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    csv = os.path.join(HERE, "data", "sim_categorical_groups.csv")
    with open(csv, "w") as f:
        f.write("x1,x2,g,y\n")
        for row, gv, v in zip(x, g, y):
            f.write("%r,%r,g%02d,%d\n" % (float(row[0]), float(row[1]), gv + 1, v))
    cfg = {"data": {"csv": "data/sim_categorical_groups.csv"},
           "model": {"likelihood": "categorical_logit", "formula": "y ~ x1 + x2 + (1 | g)",
                     "priors": {"alpha": {"normal": {"loc": 0, "scale": 2.5}},
                                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                                "sd_g": {"half_normal": {"scale": 1}}}}}
    with open(os.path.join(HERE, "sim_categorical_groups.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    with tempfile.TemporaryDirectory() as tmp:
        stan, rs, out = (os.path.join(tmp, n) for n in ("m.stan", "run.R", "summary.csv"))
        open(stan, "w").write(STAN)
        open(rs, "w").write(R)
        t0 = time.time()
        subprocess.run(["Rscript", rs, csv, stan, out], check=True)
        wall = time.time() - t0
        with open(out) as f:
            rows = list(csv_module.reader(f))[1:]  # R quotes the names: "beta[1,2]"
    header = ["mean", "se_mean", "sd", "q2.5", "q25", "q50", "q75", "q97.5", "n_eff", "Rhat"]
    params = []
    for row in rows:
        v = dict(zip(header, map(float, row[1:])))
        params.append({"name": bvi_name(row[0]), "mean": v["mean"], "sd": v["sd"], "n_eff": v["n_eff"],
                       "rhat": v["Rhat"]})
    doc = {"config": "tests/reference/sim_categorical_groups.json",
           "method": "rstan 2.21 NUTS, 4 chains x (1000 warmup + 3000 draws), adapt_delta 0.95, seed 20261205",
           "command": "/usr/bin/python3 tests/reference/categorical_groups_nuts.py", "wall_seconds": round(wall, 1),
           "stan_program": STAN.strip(), "parameters": params}
    with open(os.path.join(HERE, "fixtures", "sim_categorical_groups.nuts.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for p in params:
        print(p)


if __name__ == "__main__":
    main()
