#!/usr/bin/python3
"""The multilevel reference problems: simulated data and bayes-vi configs.

    /usr/bin/python3 tests/reference/multilevel/make_problems.py [OUTDIR] [--check]

writes, for each problem NAME below, OUTDIR/data/NAME.csv and OUTDIR/NAME.json (default OUTDIR:
this script's folder). Deterministic: numpy's PCG64 from a fixed seed per problem, values written
with fixed decimals, so the same numpy gives the same bytes (`--check` regenerates into a
temporary folder and compares with the files in OUTDIR, exit 1 on any difference).

Every config is in the structured form (no formula), `standardize: false`, an intercept with an
explicit, *uncentred* alpha prior (the prior is on alpha itself), and an explicit prior for every
parameter, so the Stan programs in stan/ state exactly the same model. No inference block: the
comparison adds one per run.

a_varying_intercept   normal, y ~ x1 + x2 + (1 | g): 10000 rows, 40 groups with mixed-case string
                      labels (byte order differs from case-insensitive order), 12 groups of 5-20
                      rows and 28 of 60-1000; x2 partly a group-level covariate.
                      Truth: alpha 1.5, beta (0.8, -0.5), sd_g 0.7, sigma 1.2.
b_correlated_slopes   normal, y ~ x + (1 + x | subj): 10000 rows, 30 subjects with numeric IDs
                      (1 to 4 digits, so numeric order differs from string order) declared
                      categorical, 200-470 rows each. Truth: alpha 2, beta 0.8, sd_subj (0.8, 0.4),
                      cor 0.4 (the subjects' effects recoloured to exactly this sample covariance),
                      sigma 1.
c_crossed_logistic    bernoulli_logit, y ~ x1 + cat + (1 | a) + (1 | b) + (1 | c): 10000 rows,
                      cat in {low, mid, high} (reference level: "high", the first in byte order),
                      a: 50 numeric codes, b: 25 string labels, c: 5 string labels of unequal size.
                      Truth: alpha -0.3, beta x1 0.6, cat[low] -0.5, cat[mid] -0.2,
                      sd (a, b, c) = (0.5, 0.4, 0.3).
d_weak_logistic       bernoulli_logit, y ~ x + (1 | g): 200 groups "grp1" ... "grp200" (byte order:
                      grp1, grp10, grp100, ...) of 3-10 rows each. Truth: alpha -0.2, beta 0.5,
                      sd_g 0.5. The regime where Gaussian approximations shrink the group sd.
e_negbin_varying_intercept
                      negative_binomial_log, y ~ x1 + x2 + (1 | g): 3000 rows, 30 groups "s01" ...
                      "s30" drawn uniformly. Truth: alpha 0.8, beta (0.4, -0.3), phi 1.5, sd_g 0.5;
                      phi ~ gamma(0.01, 0.01), brms's default.
f_gamma_varying_intercept
                      gamma_log, y ~ x1 + x2 + (1 | g): 3000 rows, 30 groups "s01" ... "s30" drawn
                      uniformly. Truth: alpha 0.5, beta (0.4, -0.3), shape 2, sd_g 0.4; shape ~
                      gamma(0.01, 0.01), brms's default. Responses to 6 significant digits.
g_lognormal_varying_intercept
                      lognormal, y ~ x1 + x2 + (1 | g): 3000 rows, 30 groups "s01" ... "s30".
                      Truth: alpha 1.0, beta (0.4, -0.3), sigma 0.8, sd_g 0.4; sigma ~
                      half_normal(2). Responses to 6 significant digits.
h_many_groups_correlated
                      normal, y ~ x + (1 + x | g): about 12,500 rows, 400 groups with string labels
                      (two or three syllables, some capitalized) of very unequal sizes (log-normal:
                      median 16 rows, 1 to 459; four singletons forced and three of 300-500 rows).
                      x a count 0..4 (min(4, Poisson) with a group-varying rate: skewed, about 40 %
                      zeros and 4 % fours). Truth: alpha 1, beta 0.5, sd_g (0.6, 0.3), cor -0.5
                      (drawn, not recoloured), sigma 1. The many-unequal-groups reference.
i_many_groups_uncorrelated
                      the same shape of data (its own draw), y ~ x + (1 + x || g): independent
                      intercepts and slopes, sd_g (0.6, 0.3).
j_student_t_varying_intercept
                      student_t, y ~ x1 + x2 + (1 | g): 2000 rows, 30 groups "t01" ... "t30" of
                      unequal sizes (log-normal weights, 10 rows at least). Truth: alpha 0.5,
                      beta (0.6, -0.4), sigma 0.8, nu 4, sd_g 0.5; sigma ~ half_normal(2),
                      nu ~ gamma(2, 0.1), brms's default.
k_ordinal_varying_intercept
                      ordinal_logit, y ~ x1 + x2 + (1 | g), no intercept: 2000 rows, 30 groups
                      "o01" ... "o30" of unequal sizes, K = 4, cutpoints (-1.2, 0.2, 1.5), logistic
                      noise. Truth: beta (0.8, -0.5), sd_g 0.6; cutpoints ~ student_t(3, 0, 2.5),
                      bayes-vi's (and brms's) default.
l_beta_varying_intercept
                      beta_logit, y ~ x1 + x2 + (1 | g): 2000 rows, 30 groups "b01" ... "b30" of
                      unequal sizes. Truth: alpha -0.3, beta (0.5, -0.4), phi 8, sd_g 0.4;
                      phi ~ gamma(0.01, 0.01), brms's default. Responses to 6 significant digits,
                      clipped to [1e-5, 1 - 1e-5] (none are at the clip with this seed).
m_ordinal_probit_varying_intercept
                      ordinal_probit, y ~ x1 + x2 + (1 | g), no intercept: 2000 rows, 30 groups
                      "p01" ... "p30" of unequal sizes, K = 4, cutpoints (-0.8, 0.1, 0.9), normal
                      noise. Truth: beta (0.5, -0.3), sd_g 0.4; priors as k's.
"""

import argparse
import filecmp
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

TREES = ["Ash", "aspen", "Birch", "beech", "Cedar", "cypress", "Douglas", "dogwood", "Elm",
         "elder", "Fir", "fig", "Ginkgo", "gum", "Hazel", "hemlock", "Ironwood", "juniper",
         "Larch", "linden", "Maple", "magnolia", "Oak", "olive", "Pine", "poplar", "Redwood",
         "rowan", "Spruce", "sycamore", "Teak", "tulip", "Walnut", "willow", "Yew", "yucca",
         "Alder_2", "alder_10", "Zelkova", "zebrawood"]
BIRDS = ["wren", "Robin", "finch", "Heron", "owl", "Crane", "lark", "Swift", "dove", "Eagle",
         "kite", "Raven", "tern", "Stork", "jay", "Falcon", "rook", "Egret", "teal", "Ibis",
         "snipe", "Plover", "gull", "Kestrel", "crow"]
REGIONS = ["north", "South", "east", "West", "central"]


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(r) + "\n")


def write_config(path, cfg):
    with open(path, "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")


def fmt(x, d=4):
    s = "%.*f" % (d, x)
    return "0." + "0" * d if s == "-0." + "0" * d else s


# ------------------------------------------------------------------------------------------
# a. varying intercept, normal likelihood
# ------------------------------------------------------------------------------------------

def a_varying_intercept(rng):
    G = len(TREES)
    assert G == 40
    small = 12
    sizes = np.zeros(G, dtype=int)
    sizes[:small] = rng.integers(5, 21, size=small)
    w = np.exp(rng.normal(0.0, 0.8, size=G - small))
    rest = 10000 - sizes[:small].sum()
    big = np.maximum(60, np.floor(w / w.sum() * rest)).astype(int)
    big[np.argmax(big)] += rest - big.sum()          # exactly 10000 rows
    assert big.min() >= 60 and big.max() <= 1000, (big.min(), big.max())
    sizes[small:] = big
    perm = rng.permutation(G)                           # small groups scattered over the labels
    labels = [TREES[i] for i in perm]
    u = rng.normal(0.0, 0.7, size=G)
    xbar = rng.normal(0.0, 0.8, size=G)                 # group mean of x2 (contextual)
    g = np.repeat(np.arange(G), sizes)
    g = g[rng.permutation(len(g))]
    N = len(g)
    x1 = rng.normal(0.0, 1.0, size=N)
    x2 = xbar[g] + rng.normal(0.0, 1.0, size=N)
    x1 = np.round(x1, 4)
    x2 = np.round(x2, 4)
    y = 1.5 + 0.8 * x1 - 0.5 * x2 + u[g] + rng.normal(0.0, 1.2, size=N)
    rows = [[fmt(y[i]), fmt(x1[i]), fmt(x2[i]), labels[g[i]]] for i in range(N)]
    truth = {"alpha": 1.5, "beta": [0.8, -0.5], "sigma": 1.2, "sd_g": [0.7],
             "group_sizes": {labels[k]: int(sizes[k]) for k in range(G)},
             "r_g": {labels[k]: float(u[k]) for k in range(G)}}
    cfg = {
        "data": {"csv": "data/a_varying_intercept.csv", "response": "y",
                 "features": ["x1", "x2"], "standardize": False},
        "model": {
            "likelihood": "normal",
            "intercept": True,
            "groups": [{"by": ["g"], "intercept": True, "terms": [], "correlated": True}],
            "priors": {
                "alpha": {"normal": {"loc": 0, "scale": 5}},
                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                "sigma": {"half_normal": {"scale": 2}},
                "sd_g": {"half_normal": {"scale": 1}},
            },
        },
    }
    return ["y", "x1", "x2", "g"], rows, cfg, truth


# ------------------------------------------------------------------------------------------
# b. correlated varying intercept and slope, normal likelihood
# ------------------------------------------------------------------------------------------

def b_correlated_slopes(rng):
    S = 30
    ids = np.concatenate([rng.choice(np.arange(1, 10), 4, replace=False),
                          rng.choice(np.arange(10, 100), 9, replace=False),
                          rng.choice(np.arange(100, 1000), 9, replace=False),
                          rng.choice(np.arange(1000, 10000), 8, replace=False)])
    ids = ids[rng.permutation(S)]
    sizes = rng.integers(200, 471, size=S)
    sizes[-1] += 10000 - sizes.sum()
    assert 150 <= sizes[-1] <= 600, sizes[-1]
    sd = np.array([0.8, 0.4])
    rho = 0.4
    cov = np.array([[sd[0] ** 2, rho * sd[0] * sd[1]], [rho * sd[0] * sd[1], sd[1] ** 2]])
    u = rng.normal(0.0, 1.0, size=(S, 2))
    # recoloured so the 30 subjects' sample covariance (ddof 1) is exactly cov: the correlation
    # the data carry is 0.4, not 0.4 plus the sampling noise of 30 draws
    u -= u.mean(axis=0)
    u = u @ np.linalg.inv(np.linalg.cholesky(np.cov(u.T))).T @ np.linalg.cholesky(cov).T
    s = np.repeat(np.arange(S), sizes)
    s = s[rng.permutation(len(s))]
    N = len(s)
    x = np.round(rng.normal(0.5, 1.0, size=N), 4)
    y = 2.0 + 0.8 * x + u[s, 0] + u[s, 1] * x + rng.normal(0.0, 1.0, size=N)
    rows = [[fmt(y[i]), fmt(x[i]), str(int(ids[s[i]]))] for i in range(N)]
    truth = {"alpha": 2.0, "beta": [0.8], "sigma": 1.0, "sd_subj": sd.tolist(), "cor_subj": rho,
             "sample_cor": float(np.corrcoef(u.T)[0, 1]),
             "group_sizes": {str(int(ids[k])): int(sizes[k]) for k in range(S)},
             "r_subj": {str(int(ids[k])): u[k].tolist() for k in range(S)}}
    cfg = {
        "data": {"csv": "data/b_correlated_slopes.csv", "response": "y", "features": ["x"],
                 "categorical": ["subj"], "standardize": False},
        "model": {
            "likelihood": "normal",
            "intercept": True,
            "groups": [{"by": ["subj"], "intercept": True, "terms": ["x"], "correlated": True}],
            "priors": {
                "alpha": {"normal": {"loc": 0, "scale": 5}},
                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                "sigma": {"half_normal": {"scale": 2}},
                "sd_subj": {"half_normal": {"scale": [1, 1]}},
                "cor_subj": {"lkj": {"eta": 2}},
            },
        },
    }
    return ["y", "x", "subj"], rows, cfg, truth


# ------------------------------------------------------------------------------------------
# c. logistic, a categorical fixed effect and three crossed grouping factors
# ------------------------------------------------------------------------------------------

def c_crossed_logistic(rng):
    N = 10000
    A, Bn, C = 50, 25, 5
    a_codes = np.sort(rng.choice(np.arange(2, 800), A, replace=False))[rng.permutation(A)]
    b_labels = BIRDS[:Bn]
    c_labels = REGIONS
    sd = {"a": 0.5, "b": 0.4, "c": 0.3}
    ua = rng.normal(0.0, sd["a"], A)
    ub = rng.normal(0.0, sd["b"], Bn)
    uc = rng.normal(0.0, sd["c"], C)
    cat_effect = {"high": 0.0, "low": -0.5, "mid": -0.2}
    cats = ["low", "mid", "high"]
    pa = rng.dirichlet(np.full(A, 5.0))
    pc = np.array([0.35, 0.25, 0.2, 0.12, 0.08])
    ai = rng.choice(A, size=N, p=pa)
    bi = rng.integers(0, Bn, size=N)
    ci = rng.choice(C, size=N, p=pc)
    ki = rng.choice(3, size=N, p=[0.3, 0.45, 0.25])
    x1 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    eta = (-0.3 + 0.6 * x1 + np.array([cat_effect[cats[k]] for k in ki])
           + ua[ai] + ub[bi] + uc[ci])
    y = (rng.random(N) < 1.0 / (1.0 + np.exp(-eta))).astype(int)
    rows = [[str(y[i]), fmt(x1[i]), cats[ki[i]], str(int(a_codes[ai[i]])), b_labels[bi[i]],
             c_labels[ci[i]]] for i in range(N)]
    truth = {"alpha": -0.3, "beta": {"x1": 0.6, "cat[low]": -0.5, "cat[mid]": -0.2},
             "sd_a": [sd["a"]], "sd_b": [sd["b"]], "sd_c": [sd["c"]],
             "r_a": {str(int(a_codes[k])): float(ua[k]) for k in range(A)},
             "r_b": {b_labels[k]: float(ub[k]) for k in range(Bn)},
             "r_c": {c_labels[k]: float(uc[k]) for k in range(C)}}
    cfg = {
        "data": {"csv": "data/c_crossed_logistic.csv", "response": "y",
                 "features": ["x1", "cat"], "standardize": False},
        "model": {
            "likelihood": "bernoulli_logit",
            "intercept": True,
            "groups": [{"by": ["a"], "intercept": True, "terms": [], "correlated": True},
                       {"by": ["b"], "intercept": True, "terms": [], "correlated": True},
                       {"by": ["c"], "intercept": True, "terms": [], "correlated": True}],
            "priors": {
                "alpha": {"normal": {"loc": 0, "scale": 2.5}},
                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                "sd_a": {"half_normal": {"scale": 1}},
                "sd_b": {"half_normal": {"scale": 1}},
                "sd_c": {"half_normal": {"scale": 1}},
            },
        },
    }
    return ["y", "x1", "cat", "a", "b", "c"], rows, cfg, truth


# ------------------------------------------------------------------------------------------
# d. logistic varying intercept with little data per group
# ------------------------------------------------------------------------------------------

def d_weak_logistic(rng):
    G = 200
    sizes = rng.integers(3, 11, size=G)
    u = rng.normal(0.0, 0.5, G)
    g = np.repeat(np.arange(G), sizes)
    g = g[rng.permutation(len(g))]
    N = len(g)
    x = np.round(rng.normal(0.0, 1.0, size=N), 4)
    eta = -0.2 + 0.5 * x + u[g]
    y = (rng.random(N) < 1.0 / (1.0 + np.exp(-eta))).astype(int)
    labels = ["grp%d" % (k + 1) for k in range(G)]
    rows = [[str(y[i]), fmt(x[i]), labels[g[i]]] for i in range(N)]
    truth = {"alpha": -0.2, "beta": [0.5], "sd_g": [0.5],
             "group_sizes": {labels[k]: int(sizes[k]) for k in range(G)},
             "r_g": {labels[k]: float(u[k]) for k in range(G)}}
    cfg = {
        "data": {"csv": "data/d_weak_logistic.csv", "response": "y", "features": ["x"],
                 "standardize": False},
        "model": {
            "likelihood": "bernoulli_logit",
            "intercept": True,
            "groups": [{"by": ["g"], "intercept": True, "terms": [], "correlated": True}],
            "priors": {
                "alpha": {"normal": {"loc": 0, "scale": 2.5}},
                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                "sd_g": {"half_normal": {"scale": 1}},
            },
        },
    }
    return ["y", "x", "g"], rows, cfg, truth


# ------------------------------------------------------------------------------------------
# e. varying intercept, negative binomial likelihood
# ------------------------------------------------------------------------------------------

def e_negbin_varying_intercept(rng):
    G, N = 30, 3000
    labels = ["s%02d" % (k + 1) for k in range(G)]
    u = rng.normal(0.0, 0.5, size=G)
    g = rng.integers(0, G, size=N)
    x1 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    x2 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    mu = np.exp(0.8 + 0.4 * x1 - 0.3 * x2 + u[g])
    phi = 1.5
    y = rng.negative_binomial(phi, phi / (phi + mu))
    rows = [["%d" % y[i], fmt(x1[i]), fmt(x2[i]), labels[g[i]]] for i in range(N)]
    truth = {"alpha": 0.8, "beta": [0.4, -0.3], "phi": phi, "sd_g": [0.5],
             "r_g": {labels[k]: float(u[k]) for k in range(G)}}
    cfg = {
        "data": {"csv": "data/e_negbin_varying_intercept.csv", "response": "y",
                 "features": ["x1", "x2"], "standardize": False},
        "model": {
            "likelihood": "negative_binomial_log",
            "intercept": True,
            "groups": [{"by": ["g"], "intercept": True, "terms": [], "correlated": True}],
            "priors": {
                "alpha": {"normal": {"loc": 0, "scale": 5}},
                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                "phi": {"gamma": {"shape": 0.01, "rate": 0.01}},
                "sd_g": {"half_normal": {"scale": 1}},
            },
        },
    }
    return ["y", "x1", "x2", "g"], rows, cfg, truth


# ------------------------------------------------------------------------------------------
# f. varying intercept, gamma likelihood with a log link
# ------------------------------------------------------------------------------------------

def f_gamma_varying_intercept(rng):
    G, N = 30, 3000
    labels = ["s%02d" % (k + 1) for k in range(G)]
    u = rng.normal(0.0, 0.4, size=G)
    g = rng.integers(0, G, size=N)
    x1 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    x2 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    mu = np.exp(0.5 + 0.4 * x1 - 0.3 * x2 + u[g])
    shape = 2.0
    y = rng.gamma(shape, mu / shape)
    rows = [["%.6g" % y[i], fmt(x1[i]), fmt(x2[i]), labels[g[i]]] for i in range(N)]
    truth = {"alpha": 0.5, "beta": [0.4, -0.3], "shape": shape, "sd_g": [0.4],
             "r_g": {labels[k]: float(u[k]) for k in range(G)}}
    cfg = {
        "data": {"csv": "data/f_gamma_varying_intercept.csv", "response": "y",
                 "features": ["x1", "x2"], "standardize": False},
        "model": {
            "likelihood": "gamma_log",
            "intercept": True,
            "groups": [{"by": ["g"], "intercept": True, "terms": [], "correlated": True}],
            "priors": {
                "alpha": {"normal": {"loc": 0, "scale": 5}},
                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                "shape": {"gamma": {"shape": 0.01, "rate": 0.01}},
                "sd_g": {"half_normal": {"scale": 1}},
            },
        },
    }
    return ["y", "x1", "x2", "g"], rows, cfg, truth


# ------------------------------------------------------------------------------------------
# g. varying intercept, lognormal likelihood
# ------------------------------------------------------------------------------------------

def g_lognormal_varying_intercept(rng):
    G, N = 30, 3000
    labels = ["s%02d" % (k + 1) for k in range(G)]
    u = rng.normal(0.0, 0.4, size=G)
    g = rng.integers(0, G, size=N)
    x1 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    x2 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    y = np.exp(1.0 + 0.4 * x1 - 0.3 * x2 + u[g] + 0.8 * rng.standard_normal(N))
    rows = [["%.6g" % y[i], fmt(x1[i]), fmt(x2[i]), labels[g[i]]] for i in range(N)]
    truth = {"alpha": 1.0, "beta": [0.4, -0.3], "sigma": 0.8, "sd_g": [0.4],
             "r_g": {labels[k]: float(u[k]) for k in range(G)}}
    cfg = {
        "data": {"csv": "data/g_lognormal_varying_intercept.csv", "response": "y",
                 "features": ["x1", "x2"], "standardize": False},
        "model": {
            "likelihood": "lognormal",
            "intercept": True,
            "groups": [{"by": ["g"], "intercept": True, "terms": [], "correlated": True}],
            "priors": {
                "alpha": {"normal": {"loc": 0, "scale": 5}},
                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                "sigma": {"half_normal": {"scale": 2}},
                "sd_g": {"half_normal": {"scale": 1}},
            },
        },
    }
    return ["y", "x1", "x2", "g"], rows, cfg, truth


# ------------------------------------------------------------------------------------------
# h, i. many groups of very unequal sizes, varying slopes on a skewed few-valued covariate
# ------------------------------------------------------------------------------------------

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "be", "da", "fu", "go", "ha", "jo",
             "pe", "zu"]


def many_groups_data(rng, cor):
    """About 12,000 rows in 400 groups of 1 to several hundred rows (a log-normal size
    distribution, with four singletons and three of 300-500 rows), string labels of two or three syllables, some capitalized
    (byte order differs from case-insensitive order). x: a count 0..4, min(4, Poisson(lambda_g))
    with a group-varying lambda_g (skewed: about half the rows 0; groups whose rows are all 0
    inform no slope). Truth: alpha 1.0, beta 0.5, sd_g (0.6, 0.3), cor `cor`, sigma 1.0."""
    G = 400
    sizes = np.clip(np.floor(np.exp(rng.normal(2.8, 1.05, size=G))), 1, 600).astype(int)
    pick = rng.choice(G, 7, replace=False)
    sizes[pick[:4]] = 1                                  # a few singletons
    sizes[pick[4:]] = rng.integers(300, 501, size=3)     # and a few of several hundred rows
    labels = set()
    while len(labels) < G:
        k = rng.integers(2, 4)
        w = "".join(SYLLABLES[j] for j in rng.integers(0, len(SYLLABLES), size=k))
        labels.add(w.capitalize() if rng.random() < 0.3 else w)
    labels = sorted(labels)
    labels = [labels[i] for i in rng.permutation(G)]
    sd = np.array([0.6, 0.3])
    cov = np.array([[sd[0] ** 2, cor * sd[0] * sd[1]], [cor * sd[0] * sd[1], sd[1] ** 2]])
    u = rng.normal(0.0, 1.0, size=(G, 2)) @ np.linalg.cholesky(cov).T
    lam = np.exp(rng.normal(np.log(0.8), 0.6, size=G))
    g = np.repeat(np.arange(G), sizes)
    g = g[rng.permutation(len(g))]
    N = len(g)
    x = np.minimum(4, rng.poisson(lam[g]))
    y = 1.0 + 0.5 * x + u[g, 0] + u[g, 1] * x + rng.normal(0.0, 1.0, size=N)
    rows = [[fmt(y[i]), "%d" % x[i], labels[g[i]]] for i in range(N)]
    truth = {"alpha": 1.0, "beta": [0.5], "sigma": 1.0, "sd_g": sd.tolist(),
             "sample_sd": np.std(u, axis=0, ddof=1).tolist(),
             "group_sizes": {labels[k]: int(sizes[k]) for k in range(G)},
             "x_counts": np.bincount(x, minlength=5).tolist(),
             "r_g": {labels[k]: u[k].tolist() for k in range(G)}}
    if cor != 0.0:
        truth["cor_g"] = cor
    truth["sample_cor"] = float(np.corrcoef(u.T)[0, 1])
    return rows, truth


def many_groups_config(name, correlated):
    priors = {
        "alpha": {"normal": {"loc": 0, "scale": 5}},
        "beta": {"normal": {"loc": 0, "scale": 2.5}},
        "sigma": {"half_normal": {"scale": 2}},
        "sd_g": {"half_normal": {"scale": [1, 1]}},
    }
    if correlated:
        priors["cor_g"] = {"lkj": {"eta": 2}}
    return {
        "data": {"csv": "data/%s.csv" % name, "response": "y", "features": ["x"],
                 "standardize": False},
        "model": {
            "likelihood": "normal",
            "intercept": True,
            "groups": [{"by": ["g"], "intercept": True, "terms": ["x"], "correlated": correlated}],
            "priors": priors,
        },
    }


def h_many_groups_correlated(rng):
    rows, truth = many_groups_data(rng, -0.5)
    return ["y", "x", "g"], rows, many_groups_config("h_many_groups_correlated", True), truth


def i_many_groups_uncorrelated(rng):
    rows, truth = many_groups_data(rng, 0.0)
    return ["y", "x", "g"], rows, many_groups_config("i_many_groups_uncorrelated", False), truth


# ------------------------------------------------------------------------------------------
# j, k, l. varying intercepts for student_t, ordinal_logit and beta_logit: groups of unequal size
# ------------------------------------------------------------------------------------------

def unequal_groups(rng, G, N, prefix):
    """G groups of unequal sizes summing to N (log-normal weights, at least 10 rows each), labels
    PREFIX01 ... in a shuffled order of sizes; returns (labels, sizes, g per row)."""
    w = np.exp(rng.normal(0.0, 0.9, size=G))
    sizes = np.maximum(10, np.floor(w / w.sum() * N)).astype(int)
    sizes[np.argmax(sizes)] += N - sizes.sum()          # exactly N rows
    assert sizes.min() >= 10 and sizes.sum() == N, sizes
    labels = ["%s%02d" % (prefix, k + 1) for k in range(G)]
    g = np.repeat(np.arange(G), sizes)
    g = g[rng.permutation(N)]
    return labels, sizes, g


def j_student_t_varying_intercept(rng):
    G, N = 30, 2000
    labels, sizes, g = unequal_groups(rng, G, N, "t")
    u = rng.normal(0.0, 0.5, size=G)
    x1 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    x2 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    y = 0.5 + 0.6 * x1 - 0.4 * x2 + u[g] + 0.8 * rng.standard_t(4.0, size=N)
    rows = [[fmt(y[i]), fmt(x1[i]), fmt(x2[i]), labels[g[i]]] for i in range(N)]
    truth = {"alpha": 0.5, "beta": [0.6, -0.4], "sigma": 0.8, "nu": 4.0, "sd_g": [0.5],
             "group_sizes": {labels[k]: int(sizes[k]) for k in range(G)},
             "r_g": {labels[k]: float(u[k]) for k in range(G)}}
    cfg = {
        "data": {"csv": "data/j_student_t_varying_intercept.csv", "response": "y",
                 "features": ["x1", "x2"], "standardize": False},
        "model": {
            "likelihood": "student_t",
            "intercept": True,
            "groups": [{"by": ["g"], "intercept": True, "terms": [], "correlated": True}],
            "priors": {
                "alpha": {"normal": {"loc": 0, "scale": 5}},
                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                "sigma": {"half_normal": {"scale": 2}},
                "nu": {"gamma": {"shape": 2, "rate": 0.1}},
                "sd_g": {"half_normal": {"scale": 1}},
            },
        },
    }
    return ["y", "x1", "x2", "g"], rows, cfg, truth


def ordinal_varying_intercept(rng, name, likelihood, cut, beta, sd, prefix, noise):
    """An ordinal varying intercept (K = 4, no intercept): y ~ x1 + x2 + (1 | g) on the latent scale
    with `noise`'s errors (logistic or standard normal), cut at `cut`."""
    G, N = 30, 2000
    cut = np.array(cut)
    labels, sizes, g = unequal_groups(rng, G, N, prefix)
    u = rng.normal(0.0, sd, size=G)
    x1 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    x2 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    latent = beta[0] * x1 + beta[1] * x2 + u[g] + noise(N)
    y = 1 + (latent[:, None] > cut[None, :]).sum(axis=1)
    rows = [["%d" % y[i], fmt(x1[i]), fmt(x2[i]), labels[g[i]]] for i in range(N)]
    truth = {"beta": list(beta), "cutpoints": cut.tolist(), "sd_g": [sd],
             "category_counts": np.bincount(y, minlength=5)[1:].tolist(),
             "group_sizes": {labels[k]: int(sizes[k]) for k in range(G)},
             "r_g": {labels[k]: float(u[k]) for k in range(G)}}
    cfg = {
        "data": {"csv": "data/%s.csv" % name, "response": "y",
                 "features": ["x1", "x2"], "standardize": False},
        "model": {
            "likelihood": likelihood,
            "intercept": False,
            "groups": [{"by": ["g"], "intercept": True, "terms": [], "correlated": True}],
            "priors": {
                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                "cutpoints": {"student_t": {"df": 3, "loc": 0, "scale": 2.5}},
                "sd_g": {"half_normal": {"scale": 1}},
            },
        },
    }
    return ["y", "x1", "x2", "g"], rows, cfg, truth


def k_ordinal_varying_intercept(rng):
    return ordinal_varying_intercept(rng, "k_ordinal_varying_intercept", "ordinal_logit", [-1.2, 0.2, 1.5],
                                     (0.8, -0.5), 0.6, "o", lambda n: rng.logistic(size=n))


def m_ordinal_probit_varying_intercept(rng):
    return ordinal_varying_intercept(rng, "m_ordinal_probit_varying_intercept", "ordinal_probit",
                                     [-0.8, 0.1, 0.9], (0.5, -0.3), 0.4, "p", rng.standard_normal)


def l_beta_varying_intercept(rng):
    G, N = 30, 2000
    labels, sizes, g = unequal_groups(rng, G, N, "b")
    u = rng.normal(0.0, 0.4, size=G)
    x1 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    x2 = np.round(rng.normal(0.0, 1.0, size=N), 4)
    mu = 1.0 / (1.0 + np.exp(-(-0.3 + 0.5 * x1 - 0.4 * x2 + u[g])))
    phi = 8.0
    y = np.clip(rng.beta(mu * phi, (1.0 - mu) * phi), 1e-5, 1.0 - 1e-5)
    rows = [["%.6g" % y[i], fmt(x1[i]), fmt(x2[i]), labels[g[i]]] for i in range(N)]
    truth = {"alpha": -0.3, "beta": [0.5, -0.4], "phi": phi, "sd_g": [0.4],
             "group_sizes": {labels[k]: int(sizes[k]) for k in range(G)},
             "r_g": {labels[k]: float(u[k]) for k in range(G)}}
    cfg = {
        "data": {"csv": "data/l_beta_varying_intercept.csv", "response": "y",
                 "features": ["x1", "x2"], "standardize": False},
        "model": {
            "likelihood": "beta_logit",
            "intercept": True,
            "groups": [{"by": ["g"], "intercept": True, "terms": [], "correlated": True}],
            "priors": {
                "alpha": {"normal": {"loc": 0, "scale": 5}},
                "beta": {"normal": {"loc": 0, "scale": 2.5}},
                "phi": {"gamma": {"shape": 0.01, "rate": 0.01}},
                "sd_g": {"half_normal": {"scale": 1}},
            },
        },
    }
    return ["y", "x1", "x2", "g"], rows, cfg, truth


PROBLEMS = [  # name, generator, seed
    ("a_varying_intercept", a_varying_intercept, 1201),
    ("b_correlated_slopes", b_correlated_slopes, 1202),
    ("c_crossed_logistic", c_crossed_logistic, 1203),
    ("d_weak_logistic", d_weak_logistic, 1204),
    ("e_negbin_varying_intercept", e_negbin_varying_intercept, 1205),
    ("f_gamma_varying_intercept", f_gamma_varying_intercept, 1206),
    ("g_lognormal_varying_intercept", g_lognormal_varying_intercept, 1207),
    ("h_many_groups_correlated", h_many_groups_correlated, 1208),
    ("i_many_groups_uncorrelated", i_many_groups_uncorrelated, 1209),
    ("j_student_t_varying_intercept", j_student_t_varying_intercept, 1210),
    ("k_ordinal_varying_intercept", k_ordinal_varying_intercept, 1211),
    ("l_beta_varying_intercept", l_beta_varying_intercept, 1212),
    ("m_ordinal_probit_varying_intercept", m_ordinal_probit_varying_intercept, 1213),
]


def generate(outdir, only=None):
    os.makedirs(os.path.join(outdir, "data"), exist_ok=True)
    written = []
    for name, fn, seed in PROBLEMS:
        if only and name not in only:
            continue
        header, rows, cfg, truth = fn(np.random.default_rng(seed))
        write_csv(os.path.join(outdir, "data", name + ".csv"), header, rows)
        write_config(os.path.join(outdir, name + ".json"), cfg)
        write_config(os.path.join(outdir, "data", name + ".truth.json"),
                     {"seed": seed, "rows": len(rows), "truth": truth})
        written += [os.path.join("data", name + ".csv"), name + ".json",
                    os.path.join("data", name + ".truth.json")]
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", nargs="?", default=HERE)
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary folder and compare with OUTDIR's files")
    args = ap.parse_args(argv)
    if not args.check:
        for p in generate(args.outdir):
            print(os.path.join(args.outdir, p))
        return 0
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for p in generate(tmp):
            same = os.path.exists(os.path.join(args.outdir, p)) and \
                filecmp.cmp(os.path.join(tmp, p), os.path.join(args.outdir, p), shallow=False)
            print("%s %s" % ("same" if same else "DIFFERS", p))
            bad += not same
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
