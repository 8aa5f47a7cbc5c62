"""ordinal_logit / ordinal_probit data and their pointwise log likelihood recomputed from a fit's
draws.csv with numpy and scipy, independently of bayes-vi's code: shared by test_ordinal_loo.py and
test_ordinal_kfold.py.

log p(y_i | theta_s) = log(F(c_{y_i} - eta) - F(c_{y_i - 1} - eta)), c_0 = -inf, c_K = +inf, with
eta = sum_j x_ij beta.j + r_g.[level of row i].1 (no intercept: the cutpoints take its place) and
F the logistic or normal CDF. The difference is taken on the log scale from scipy's log CDFs
(log_expit, log_ndtr), reflected to the upper tail's survival functions when the lower bound is
above 0, so that rows far in a tail keep their digits."""
import json
import os

import numpy as np
from scipy import special

from categorical_models import read_draws  # noqa: F401  (draws.csv without q's mean row)

K = 4
BETA = (1.3, -0.3)                 # x1 strongly predictive, x2 weakly
CUTPOINTS = (-1.2, 0.1, 1.4)
SD = 0.5                           # the varying intercept's sd
LABELS = ["poor", "fair", "good", "great"]
LOG_CDF = {"ordinal_logit": special.log_expit, "ordinal_probit": special.log_ndtr}


def simulate(rows, groups, seed, link="ordinal_logit"):
    """x1, x2 ~ N(0, 1), group labels g01 ..., y from the cumulative model."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, 2))
    g = rng.integers(0, groups, rows)
    eta = x @ np.array(BETA) + SD * rng.standard_normal(groups)[g]
    noise = rng.logistic(size=rows) if link == "ordinal_logit" else rng.standard_normal(rows)
    y = 1 + (eta[:, None] + noise[:, None] > np.array(CUTPOINTS)[None, :]).sum(axis=1)
    return {"x1": x[:, 0], "x2": x[:, 1], "g": ["g%02d" % (v + 1) for v in g], "y": y}


def write_csv(path, data, rows=None, labels=False):
    rows = range(len(data["y"])) if rows is None else rows
    with open(path, "w") as f:
        f.write("x1,x2,g,y\n")
        for i in rows:
            y = LABELS[data["y"][i] - 1] if labels else "%d" % data["y"][i]
            f.write("%r,%r,%s,%s\n" % (data["x1"][i], data["x2"][i], data["g"][i], y))
    return path


def config(csv_path, formula, link, labels=False, **inference):
    data = {"csv": csv_path}
    if labels:
        data["levels"] = LABELS
    return {"data": data, "model": {"likelihood": link, "formula": formula},
            "inference": dict({"seed": 7}, **inference)}


def log_diff_cdf(link, a, b):
    """log(F(b) - F(a)) for a < b elementwise (a may be -inf, b +inf)."""
    a, b = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    upper = a > 0  # F(b) - F(a) = F(-a) - F(-b): both in the lower tail
    hi = np.where(upper, -a, b)
    lo = np.where(upper, -b, a)
    lhi, llo = LOG_CDF[link](hi), LOG_CDF[link](lo)
    d = llo - lhi  # <= 0
    with np.errstate(divide="ignore"):
        log1mexp = np.where(d > -np.log(2), np.log(-np.expm1(d)), np.log1p(-np.exp(d)))
    return lhi + log1mexp


def log_lik(fit_dir, data, features, link, rows=None, draws=None):
    """S x n log p(y_i | theta_s) for the data's `rows` (default all) under the fit in `fit_dir`
    (or the given `draws` columns): the features by name, the group effects r_g.l.1 where the fit
    has them, l found by its label in summary.json."""
    d = read_draws(fit_dir) if draws is None else draws
    rows = np.arange(len(data["y"])) if rows is None else np.asarray(rows)
    with open(os.path.join(fit_dir, "summary.json")) as f:
        params = json.load(f)["parameters"]
    level = {}
    for q in params:
        if q["name"].startswith("r_g.") and q["name"].endswith(".1"):
            level[q["label"].split("[")[1].split("]")[0].split(",")[0]] = q["name"]
    S = len(next(iter(d.values())))
    eta = np.zeros((S, len(rows)))
    for j, name in enumerate(features):
        eta += d["beta.%d" % (j + 1)][:, None] * data[name][rows][None, :]
    if level:
        eta += np.column_stack([d[level[data["g"][i]]] for i in rows])
    cut = np.column_stack([np.full(S, -np.inf)] + [d["cutpoints.%d" % k] for k in range(1, K)] +
                          [np.full(S, np.inf)])
    y = data["y"][rows]
    return log_diff_cdf(link, cut[:, y - 1] - eta, cut[:, y] - eta)


def lpd(ll):
    """log mean_s p(y_i | theta_s) per row of an S x n matrix of log likelihoods."""
    return special.logsumexp(ll, axis=0) - np.log(ll.shape[0])
