#!/usr/bin/python3
"""NUTS reference for ordinal_logit (rstan 2.21, Stan's ordered_logistic): simulated data, as no
public ordered-category dataset of 10^3 rows ships in a Debian package. 1000 rows, three
features x ~ N(0, 1) rounded to 4 decimals, y = 1 + #{k : c_k < x . (0.8, -0.5, 0.3) + e}, e
standard logistic, cutpoints (-1.5, -0.3, 0.6, 1.9) (K = 5), from a fixed seed; written to
tests/reference/data/sim_ordinal.csv with its config tests/reference/sim_ordinal.json (the
example config's priors: beta ~ normal(0, 2.5), cutpoints ~ student_t(3, 0, 2.5)). NUTS: 4
chains x (1000 warmup + 5000 draws), adapt_delta 0.95; posterior means and sds to
tests/reference/fixtures/sim_ordinal.nuts.json, which tests/e2e/test_ordinal.py compares with.

    /usr/bin/python3 tests/reference/ordinal_nuts.py
"""
import json
import os
import subprocess
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
N, BETA, CUT = 1000, np.array([0.8, -0.5, 0.3]), np.array([-1.5, -0.3, 0.6, 1.9])

STAN = """
data { int<lower=1> N; int<lower=1> D; int<lower=2> K; matrix[N, D] x; int<lower=1, upper=K> y[N]; }
parameters { vector[D] beta; ordered[K - 1] cutpoints; }
model {
  beta ~ normal(0, 2.5);
  cutpoints ~ student_t(3, 0, 2.5);
  y ~ ordered_logistic(x * beta, cutpoints);
}
"""

R = r"""
suppressPackageStartupMessages(library(rstan))
a <- commandArgs(trailingOnly = TRUE)
# Debian's Boost headers are in /usr/include, where rstan does not look (as rstan_runner.py).
if (!file.exists(rstan_options("boost_lib")) && dir.exists("/usr/include/boost"))
  rstan_options(boost_lib = "/usr/include")
d <- read.csv(a[1])
x <- as.matrix(d[, c("x1", "x2", "x3")])
data <- list(N = nrow(d), D = 3L, K = as.integer(max(d$y)), x = x, y = as.integer(d$y))
m <- stan_model(file = a[2])
fit <- sampling(m, data = data, chains = 4, warmup = 1000, iter = 6000, seed = 20261205, cores = 1,
                control = list(adapt_delta = 0.95), refresh = 0)
s <- summary(fit, pars = c("beta", "cutpoints"))$summary
write.csv(s, a[3])
"""


def main():
    rng = np.random.default_rng(20261205)
    x = np.round(rng.standard_normal((N, 3)), 4)
    y = 1 + ((x @ BETA + rng.logistic(size=N))[:, None] > CUT[None, :]).sum(axis=1)
    csv = os.path.join(HERE, "data", "sim_ordinal.csv")
    with open(csv, "w") as f:
        f.write("x1,x2,x3,y\n")
        for row, v in zip(x, y):
            f.write("%r,%r,%r,%d\n" % (float(row[0]), float(row[1]), float(row[2]), v))
    cfg = {"data": {"csv": "data/sim_ordinal.csv", "response": "y"},
           "model": {"likelihood": "ordinal_logit",
                     "priors": {"beta": {"normal": {"loc": 0, "scale": 2.5}},
                                "cutpoints": {"student_t": {"df": 3, "loc": 0, "scale": 2.5}}}}}
    with open(os.path.join(HERE, "sim_ordinal.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    with tempfile.TemporaryDirectory() as tmp:
        stan, rs, out = (os.path.join(tmp, n) for n in ("m.stan", "run.R", "summary.csv"))
        open(stan, "w").write(STAN)
        open(rs, "w").write(R)
        t0 = time.time()
        subprocess.run(["Rscript", rs, csv, stan, out], check=True)
        wall = time.time() - t0
        rows = [l.strip().split(",") for l in open(out)][1:]
    header = ["mean", "se_mean", "sd", "q2.5", "q25", "q50", "q75", "q97.5", "n_eff", "Rhat"]
    params = []
    for r in rows:
        name = r[0].strip('"').replace("[", ".").replace("]", "")
        v = dict(zip(header, map(float, r[1:])))
        params.append({"name": name, "mean": v["mean"], "sd": v["sd"], "n_eff": v["n_eff"], "rhat": v["Rhat"]})
    doc = {"config": "tests/reference/sim_ordinal.json",
           "method": "rstan 2.21 NUTS, 4 chains x (1000 warmup + 5000 draws), adapt_delta 0.95, seed 20261205",
           "command": "/usr/bin/python3 tests/reference/ordinal_nuts.py", "wall_seconds": round(wall, 1),
           "stan_program": STAN.strip(), "parameters": params}
    with open(os.path.join(HERE, "fixtures", "sim_ordinal.nuts.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for p in params:
        print(p)


if __name__ == "__main__":
    main()
