"""categorical_logit data and its pointwise log likelihood recomputed from a fit's draws.csv with
numpy and scipy, independently of bayes-vi's code: shared by test_categorical_loo.py and
test_categorical_kfold.py.

log p(y_i | theta_s) = eta_{s,i,y_i} - logsumexp_k eta_{s,i,k}, with eta of the reference category
0 and eta_k = alpha.k + sum_j x_ij beta.k.j + r_g.k.[level of row i].1 for the others."""
import csv
import json
import os

import numpy as np
from scipy import special

K = 3
# Category 2 and 3's intercepts and coefficients of x1, x2 (x1 strongly predictive), and the
# sd of their varying intercepts.
ALPHA = {2: 0.2, 3: -0.3}
BETA = {2: (1.2, -0.4), 3: (-1.0, 0.3)}
SD = {2: 0.6, 3: 0.4}


def simulate(rows, groups, seed):
    """x1, x2 ~ N(0, 1), group labels g01 ..., y ~ softmax(0, eta_2, eta_3)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, 2))
    g = rng.integers(0, groups, rows)
    eta = np.zeros((rows, K))
    for k in (2, 3):
        eta[:, k - 1] = ALPHA[k] + x @ np.array(BETA[k]) + SD[k] * rng.standard_normal(groups)[g]
    p = special.softmax(eta, axis=1)
    y = 1 + (rng.random(rows)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    return {"x1": x[:, 0], "x2": x[:, 1], "g": ["g%02d" % (v + 1) for v in g], "y": y}


def write_csv(path, data, rows=None):
    rows = range(len(data["y"])) if rows is None else rows
    with open(path, "w") as f:
        f.write("x1,x2,g,y\n")
        for i in rows:
            f.write("%r,%r,%s,%d\n" % (data["x1"][i], data["x2"][i], data["g"][i], data["y"][i]))
    return path


def config(csv_path, formula, reference=1, **inference):
    return {"data": {"csv": csv_path},
            "model": {"likelihood": "categorical_logit", "formula": formula, "reference_category": reference},
            "inference": dict({"seed": 7}, **inference)}


def read_draws(fit_dir):
    """{column: values over the draws} of draws.csv, q's mean row left out."""
    with open(os.path.join(fit_dir, "draws.csv")) as f:
        rows = list(csv.reader(l for l in f if not l.startswith("#")))
    body = np.array(rows[2:], dtype=float)
    return {h: body[:, j] for j, h in enumerate(rows[0])}


def log_lik(fit_dir, data, features, rows=None, draws=None, reference=1):
    """S x n log p(y_i | theta_s) for the data's `rows` (default all) under the fit in `fit_dir`
    (or the given `draws` columns): the features by name, the group effects r_g.k.l.1 where the
    fit has them, l found by its label in summary.json (g[LABEL]:...)."""
    d = read_draws(fit_dir) if draws is None else draws
    rows = np.arange(len(data["y"])) if rows is None else np.asarray(rows)
    with open(os.path.join(fit_dir, "summary.json")) as f:
        params = json.load(f)["parameters"]
    level = {}
    for q in params:
        if q["name"].startswith("r_g.") and q["name"].endswith(".1"):
            k, l = q["name"].split(".")[1:3]
            level[(int(k), q["label"].split("[")[1].split("]")[0])] = q["name"]
    S = len(next(iter(d.values())))
    eta = np.zeros((S, len(rows), K))
    for k in range(1, K + 1):
        if k == reference:
            continue
        e = np.tile(d.get("alpha.%d" % k, np.zeros(S))[:, None], (1, len(rows)))
        for j, name in enumerate(features):
            e += d["beta.%d.%d" % (k, j + 1)][:, None] * data[name][rows][None, :]
        if level:
            e += np.column_stack([d[level[(k, data["g"][i])]] for i in rows])
        eta[:, :, k - 1] = e
    y = data["y"][rows]
    return eta[:, np.arange(len(rows)), y - 1] - special.logsumexp(eta, axis=2)


def lpd(ll):
    """log mean_s p(y_i | theta_s) per row of an S x n matrix of log likelihoods."""
    return special.logsumexp(ll, axis=0) - np.log(ll.shape[0])
