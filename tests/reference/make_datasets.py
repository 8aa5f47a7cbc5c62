#!/usr/bin/python3
"""Synthetic validation suite for bayes-vi (every likelihood, several prior families), with
reference optima.

    make_datasets.py OUTDIR [--only NAME[,NAME...]] [--group G] [--list] [--seed S]
                            [--no-optimum] [--families meanfield,fullrank]
                            [--fullrank-max-p P] [--force]

For every dataset NAME it writes into OUTDIR:

    NAME.csv                      header x1..xD[,trials|offset,exposure],y; features rounded to 4
                                  decimals and written with repr() (so the file holds the data
                                  exactly); y in {0,1}, counts, or reals (normal, 4 decimals)
    NAME.json                     bayes-vi config: standardize, intercept, the dataset's likelihood
                                  and priors (default alpha ~ Normal(0, 10), beta ~ Normal(0, 2.5),
                                  sigma ~ half_normal(5)), no inference block
    NAME.optimum.meanfield.json   vi_optimum.py output for each family (skipped by --no-optimum)
    NAME.optimum.fullrank.json
    suite.json                    manifest: sizes, likelihood, priors, response summary,
                                  generating coefficients, sha256 of each CSV, numpy version, seed

Everything is deterministic given --seed (default 20240601) and the numpy version (numpy's
Generator streams are stable across releases for the distributions used here, but the
manifest records the version in case they are not). The logistic datasets are byte-identical to
those of the logistic-only version of this script.
"""

import argparse
import hashlib
import json
import math
import os
import sys
import time
import zlib

import numpy as np
from scipy import optimize, special

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

DEFAULT_SEED = 20240601
PRIORS = {"alpha": {"normal": {"loc": 0, "scale": 10}},
          "beta": {"normal": {"loc": 0, "scale": 2.5}}}
DECIMALS = 4


# --------------------------------------------------------------------------------------------
# Feature correlation structures
# --------------------------------------------------------------------------------------------

def ar1_block(rng, n, d, rho):
    """Rows of a stationary AR(1) sequence: corr(x_i, x_j) = rho^|i-j|."""
    z = rng.standard_normal((n, d))
    x = np.empty_like(z)
    x[:, 0] = z[:, 0]
    c = np.sqrt(1.0 - rho * rho)
    for j in range(1, d):
        x[:, j] = rho * x[:, j - 1] + c * z[:, j]
    return x


def equicorr_block(rng, n, d, rho):
    """corr(x_i, x_j) = rho for i != j: a shared factor plus independent noise."""
    f = rng.standard_normal((n, 1))
    return np.sqrt(rho) * f + np.sqrt(1.0 - rho) * rng.standard_normal((n, d))


def indep_block(rng, n, d):
    return rng.standard_normal((n, d))


def build_features(rng, n, blocks):
    parts = []
    for kind, d, *arg in blocks:
        if kind == "indep":
            parts.append(indep_block(rng, n, d))
        elif kind == "ar1":
            parts.append(ar1_block(rng, n, d, arg[0]))
        elif kind == "equi":
            parts.append(equicorr_block(rng, n, d, arg[0]))
        else:
            raise ValueError(kind)
    return np.hstack(parts)


# --------------------------------------------------------------------------------------------
# The suite
# --------------------------------------------------------------------------------------------
# beta: ("normal", sd) draws N(0, sd^2) coefficients; ("fixed", [..]) repeats the list.
# balance: target mean success probability (the intercept is solved for it; None: alpha = 0)
#   for bernoulli_logit, bernoulli_probit and binomial_logit.
# raw: whether features get arbitrary offsets/scales (bayes-vi standardizes them back).
# likelihood (default bernoulli_logit) and its settings: trials_max (binomial: trials uniform on
#   0..trials_max, zeros included); mean_count, offset, exposure (poisson: the intercept is solved
#   for the mean count; offset ~ N(0, 0.3^2), exposure ~ U(0.5, 2), 3 decimals); alpha, sigma
#   (normal).
# priors: overrides of the default priors (alpha ~ N(0, 10), beta ~ N(0, 2.5), sigma ~ half_normal(5)).
# group: "logistic" (the original suite), "likelihoods", "priors" (--group picks one).

SUITE = [
    dict(name="indep_n300_d3", n=300, blocks=[("indep", 3)], beta=("fixed", [1.0, -0.5, 0.25]),
         balance=0.5, raw=True, note="smallest: N=300, D=3, independent, balanced"),
    dict(name="indep_n1000_d10", n=1000, blocks=[("indep", 10)], beta=("normal", 1.0),
         balance=0.5, raw=True, note="independent features, balanced"),
    dict(name="ar09_n2000_d20", n=2000, blocks=[("ar1", 20, 0.9)], beta=("normal", 0.7),
         balance=0.5, raw=True, note="AR(1) correlation 0.9 between neighbouring features"),
    dict(name="equicorr_n1000_d10", n=1000, blocks=[("equi", 5, 0.95), ("indep", 5)],
         beta=("normal", 1.0), balance=0.5, raw=True,
         note="equicorrelated block of 5 features (0.95) + 5 independent"),
    dict(name="imbalanced_n5000_d10", n=5000, blocks=[("indep", 10)], beta=("normal", 0.7),
         balance=0.1, raw=True, note="~10% positives"),
    dict(name="imbalanced_n300_d20", n=300, blocks=[("ar1", 20, 0.5)], beta=("normal", 0.5),
         balance=0.1, raw=True, note="~10% positives with only ~30 events for 21 parameters"),
    dict(name="nearsep_n500_d5", n=500, blocks=[("indep", 5)],
         beta=("fixed", [6.0, -5.0, 4.0, 3.0, -4.0]), balance=0.5, raw=True,
         note="near-separable: large coefficients, logits of |eta| ~ 10"),
    dict(name="tall_n100000_d3", n=100000, blocks=[("indep", 3)], beta=("fixed", [0.8, -0.4, 0.2]),
         balance=0.3, raw=True, note="large N, tiny posterior sds"),
    dict(name="mixed_n20000_d50", n=20000,
         blocks=[("ar1", 20, 0.9), ("equi", 10, 0.95), ("indep", 20)],
         beta=("normal", 0.3), balance=0.5, raw=True, note="AR(1) 0.9 + equicorrelated 0.95 + independent"),
    dict(name="ar09_n10000_d100", n=10000, blocks=[("ar1", 100, 0.9)], beta=("normal", 0.2),
         balance=0.5, raw=True, note="D=100 with AR(1) 0.9"),
    dict(name="large_n100000_d100", n=100000,
         blocks=[("ar1", 25, 0.9), ("equi", 10, 0.95), ("indep", 65)], beta=("normal", 0.2),
         balance=0.4, raw=True, note="largest: N=100000, D=100, mixed correlation"),
    # ---- the other likelihoods: small, correlated, larger N
    dict(name="probit_n300_d3", likelihood="bernoulli_probit", n=300, blocks=[("indep", 3)],
         beta=("fixed", [1.0, -0.5, 0.25]), balance=0.5, raw=True, note="probit, smallest"),
    dict(name="probit_ar09_n2000_d20", likelihood="bernoulli_probit", n=2000,
         blocks=[("ar1", 20, 0.9)], beta=("normal", 0.4), balance=0.4, raw=True,
         note="probit, AR(1) 0.9"),
    dict(name="probit_nearsep_n500_d5", likelihood="bernoulli_probit", n=500, blocks=[("indep", 5)],
         beta=("fixed", [4.0, -3.0, 2.5, 2.0, -2.5]), balance=0.5, raw=True,
         note="probit, near-separable: linear predictor sds above 1 (the wide-sd rule)"),
    dict(name="probit_n50000_d10", likelihood="bernoulli_probit", n=50000, blocks=[("indep", 10)],
         beta=("normal", 0.5), balance=0.3, raw=True, note="probit, larger N"),
    dict(name="binomial_n300_d3", likelihood="binomial_logit", n=300, blocks=[("indep", 3)],
         beta=("fixed", [1.0, -0.5, 0.25]), balance=0.5, trials_max=20, raw=True,
         note="binomial, trials 0..20 (zeros included)"),
    dict(name="binomial_equicorr_n1000_d10", likelihood="binomial_logit", n=1000,
         blocks=[("equi", 5, 0.95), ("indep", 5)], beta=("normal", 0.7), balance=0.3,
         trials_max=10, raw=True, note="binomial, equicorrelated block (0.95) + independent"),
    dict(name="binomial_n20000_d20", likelihood="binomial_logit", n=20000,
         blocks=[("ar1", 10, 0.9), ("indep", 10)], beta=("normal", 0.3), balance=0.2,
         trials_max=50, raw=True, note="binomial, larger N, trials 0..50"),
    dict(name="poisson_n300_d3", likelihood="poisson_log", n=300, blocks=[("indep", 3)],
         beta=("fixed", [0.5, -0.3, 0.2]), mean_count=3.0, exposure=True, raw=True,
         note="poisson with exposure, smallest"),
    dict(name="poisson_ar09_n2000_d20", likelihood="poisson_log", n=2000,
         blocks=[("ar1", 20, 0.9)], beta=("normal", 0.15), mean_count=5.0, offset=True,
         exposure=True, raw=True, note="poisson with offset and exposure, AR(1) 0.9"),
    dict(name="poisson_n50000_d10", likelihood="poisson_log", n=50000, blocks=[("indep", 10)],
         beta=("normal", 0.2), mean_count=2.0, exposure=True, raw=True,
         note="poisson with exposure, larger N"),
    dict(name="poisson_bigcount_n2000_d5", likelihood="poisson_log", n=2000, blocks=[("indep", 5)],
         beta=("fixed", [0.5, -0.3, 0.2, 0.4, -0.6]), mean_count=1e8, raw=True,
         note="poisson with counts near 10^8: the ELBO's rounding (terms near y log y, 2e9 a row) "
              "outgrows the line search's slack, so the exact optimizer must not leave steps to it"),
    dict(name="normal_n300_d3", likelihood="normal", n=300, blocks=[("indep", 3)],
         beta=("fixed", [1.0, -0.5, 0.25]), alpha=0.5, sigma=0.8, raw=True,
         note="normal, smallest; sigma ~ half_normal(5)"),
    dict(name="normal_ar09_n2000_d20", likelihood="normal", n=2000, blocks=[("ar1", 20, 0.9)],
         beta=("normal", 0.5), alpha=-1.0, sigma=1.5, raw=True, note="normal, AR(1) 0.9"),
    dict(name="normal_n50000_d20", likelihood="normal", n=50000,
         blocks=[("equi", 10, 0.95), ("indep", 10)], beta=("normal", 0.3), alpha=2.0, sigma=2.0,
         raw=True, note="normal, larger N, equicorrelated block"),
    dict(name="negbin_n300_d3", likelihood="negative_binomial_log", n=300, blocks=[("indep", 3)],
         beta=("fixed", [0.5, -0.3, 0.2]), mean_count=3.0, phi=2.0, exposure=True, raw=True,
         note="negative binomial (phi 2) with exposure, smallest; phi ~ gamma(0.01, 0.01)"),
    dict(name="negbin_ar09_n2000_d10", likelihood="negative_binomial_log", n=2000,
         blocks=[("ar1", 10, 0.9)], beta=("normal", 0.2), mean_count=6.0, phi=0.7, offset=True,
         exposure=True, raw=True, note="negative binomial (phi 0.7) with offset and exposure, AR(1) 0.9"),
    dict(name="negbin_bigcount_n300_d3", likelihood="negative_binomial_log", n=300, blocks=[("indep", 3)],
         beta=("fixed", [0.5, -0.3, 0.2]), mean_count=1e6, phi=2.0, raw=True,
         note="negative binomial (phi 2) with counts near 10^6: each row's log mass a difference of "
              "terms near y log y, so the ELBO's rounding must not outgrow the line search's slack"),
    dict(name="lognormal_n300_d3", likelihood="lognormal", n=300, blocks=[("indep", 3)],
         beta=("fixed", [0.5, -0.3, 0.2]), alpha=1.0, sigma=0.6, raw=True,
         note="lognormal (sigma 0.6), positive responses; sigma ~ half_normal(5)"),
    dict(name="gamma_n300_d3", likelihood="gamma_log", n=300, blocks=[("indep", 3)],
         beta=("fixed", [0.5, -0.3, 0.2]), alpha=1.0, shape=2.5, raw=True,
         note="gamma with log link (shape 2.5); shape ~ gamma(0.01, 0.01), brms's default"),
    dict(name="beta_n300_d3", likelihood="beta_logit", n=300, blocks=[("indep", 3)],
         beta=("fixed", [0.5, -0.3, 0.2]), alpha=0.3, phi=6.0, raw=True,
         note="beta regression (precision 6); phi ~ gamma(0.01, 0.01), brms's default"),
    # ---- other priors
    dict(name="prior_student_t_n500_d10", n=500, blocks=[("ar1", 10, 0.5)], beta=("normal", 1.0),
         balance=0.5, raw=True, priors={"beta": {"student_t": {"df": 3, "loc": 0, "scale": 2.5}}},
         note="beta ~ student_t(3, 0, 2.5)"),
    dict(name="prior_laplace_n500_d20", n=500, blocks=[("indep", 20)],
         beta=("fixed", [1.5, -1.0, 0.8, -0.5] + [0.0] * 16), balance=0.5, raw=True,
         priors={"beta": {"laplace": {"loc": 0, "scale": 0.5}}},
         note="beta ~ laplace(0, 0.5), 4 of 20 coefficients non-zero"),
    dict(name="prior_cauchy_n300_d10", n=300, blocks=[("indep", 10)], beta=("normal", 1.0),
         balance=0.2, raw=True,
         priors={"alpha": {"student_t": {"df": 3, "loc": 0, "scale": 10}},
                 "beta": {"cauchy": {"loc": 0, "scale": 2.5}}},
         note="beta ~ cauchy(0, 2.5), alpha ~ student_t(3, 0, 10), ~20% positives"),
    dict(name="prior_hier_tau_n300_d20", n=300, blocks=[("indep", 20)],
         beta=("fixed", [1.0, -0.8, 0.6] + [0.0] * 17), balance=0.5, raw=True,
         priors={"beta": {"normal": {"loc": 0, "scale": "tau"}}, "tau": {"half_cauchy": {"scale": 1}}},
         parameters={"tau": {"constraint": "positive"}},
         note="beta ~ normal(0, tau), tau ~ half_cauchy(1) (hierarchical)"),
] + [
    dict(name="sigma_%s_n50_d5" % fam, likelihood="normal", n=50, blocks=[("indep", 5)],
         beta=("normal", 0.5), alpha=0.3, sigma=1.0, raw=True,
         priors={"sigma": {fam: hyper}}, note="normal, N=50: sigma ~ %s(%s)"
         % (fam, ", ".join("%s %g" % kv for kv in hyper.items())))
    for fam, hyper in (("half_normal", {"scale": 1}), ("half_cauchy", {"scale": 1}),
                       ("exponential", {"rate": 1}), ("gamma", {"shape": 2, "rate": 2}),
                       ("lognormal", {"loc": 0, "scale": 0.5}))
]
for _s in SUITE:
    _s.setdefault("likelihood", "bernoulli_logit")
    _s.setdefault("group", "logistic" if _s["likelihood"] == "bernoulli_logit" and "priors" not in _s
                  else ("likelihoods" if "priors" not in _s else "priors"))
BY_NAME = {s["name"]: s for s in SUITE}
GROUPS = ("logistic", "likelihoods", "priors")


def dataset_rng(seed, name):
    return np.random.default_rng([seed, zlib.crc32(name.encode())])


def _solve_intercept(fun, target):
    return optimize.brentq(lambda a: fun(a) - target, -50, 50, xtol=1e-14)


def generate(spec, seed):
    """X (rounded features) and the response columns {name: (values, is_integer)}, plus the
    truth. The logistic path draws in the original order (features, beta, y, raw offsets and
    scales) so its files are unchanged; the others draw features, beta, extra columns, y, raw."""
    rng = dataset_rng(seed, spec["name"])
    n = spec["n"]
    Z = build_features(rng, n, spec["blocks"])
    d = Z.shape[1]
    kind, arg = spec["beta"]
    beta = rng.normal(0.0, arg, d) if kind == "normal" else np.array(arg, dtype=float)
    lin = Z @ beta
    lik = spec["likelihood"]
    cols = {}
    truth = {"beta_latent": beta.tolist()}
    if lik in ("bernoulli_logit", "bernoulli_probit", "binomial_logit"):
        link = special.ndtr if lik == "bernoulli_probit" else special.expit
        alpha = 0.0 if spec["balance"] is None else _solve_intercept(
            lambda a: link(a + lin).mean(), spec["balance"])
        if lik == "binomial_logit":
            trials = rng.integers(0, spec["trials_max"] + 1, n)
            cols["trials"] = (trials, True)
            cols["y"] = (rng.binomial(trials, link(alpha + lin)), True)
        else:
            cols["y"] = ((rng.random(n) < link(alpha + lin)).astype(np.int64), True)
    elif lik in ("poisson_log", "negative_binomial_log"):
        off = np.round(rng.normal(0.0, 0.3, n), 3) if spec.get("offset") else np.zeros(n)
        expo = np.round(rng.uniform(0.5, 2.0, n), 3) if spec.get("exposure") else np.ones(n)
        shift = off + np.log(expo)
        alpha = math.log(spec["mean_count"] / np.mean(np.exp(shift + lin)))
        if spec.get("offset"):
            cols["offset"] = (off, False)
        if spec.get("exposure"):
            cols["exposure"] = (expo, False)
        mu = np.exp(alpha + shift + lin)
        if lik == "poisson_log":
            cols["y"] = (rng.poisson(mu), True)
        else:
            cols["y"] = (rng.negative_binomial(spec["phi"], spec["phi"] / (spec["phi"] + mu)), True)
            truth["phi"] = spec["phi"]
    elif lik == "lognormal":
        alpha = spec["alpha"]
        y = np.exp(alpha + lin + spec["sigma"] * rng.standard_normal(n))
        cols["y"] = (np.maximum(np.round(y, 5), 1e-5), False)
        truth["sigma"] = spec["sigma"]
    elif lik == "gamma_log":
        alpha = spec["alpha"]
        y = rng.gamma(spec["shape"], np.exp(alpha + lin) / spec["shape"])
        cols["y"] = (np.maximum(np.round(y, 5), 1e-5), False)
        truth["shape"] = spec["shape"]
    elif lik == "beta_logit":
        alpha = spec["alpha"]
        m = special.expit(alpha + lin)
        y = rng.beta(spec["phi"] * m, spec["phi"] * (1 - m))
        cols["y"] = (np.clip(np.round(y, 6), 1e-6, 1 - 1e-6), False)
        truth["phi"] = spec["phi"]
    else:
        alpha = spec["alpha"]
        cols["y"] = (np.round(alpha + lin + spec["sigma"] * rng.standard_normal(n), 4), False)
        truth["sigma"] = spec["sigma"]
    truth["alpha_latent"] = float(alpha)
    if spec["raw"]:
        offset = np.round(rng.normal(0.0, 5.0, d), 2)
        scale = np.round(np.exp(rng.normal(0.0, 1.0, d)), 3)
    else:
        offset, scale = np.zeros(d), np.ones(d)
    X = np.round(offset + scale * Z, DECIMALS)
    truth.update({"offset": offset.tolist(), "scale": scale.tolist()})
    return X, cols, {"alpha_latent": truth.pop("alpha_latent"), **truth}


def _text(v, is_int):
    return "%d" % v if is_int else repr(float(v))


def write_csv(path, X, cols):
    """x1..xD, then the extra columns, then y (integers as such, reals with repr())."""
    d = X.shape[1]
    names = [k for k in cols if k != "y"] + ["y"]
    header = ",".join(["x%d" % (j + 1) for j in range(d)] + names)
    tmp = path + ".tmp%d" % os.getpid()
    h = hashlib.sha256()
    with open(tmp, "w", newline="\n") as f:
        f.write(header + "\n")
        h.update((header + "\n").encode())
        step = 5000
        for k in range(0, X.shape[0], step):
            rows = X[k:k + step].tolist()
            extra = [[_text(v, cols[c][1]) for v in cols[c][0][k:k + step].tolist()] for c in names]
            text = "".join(",".join(map(repr, r)) + "," + ",".join(e[i] for e in extra) + "\n"
                           for i, r in enumerate(rows))
            f.write(text)
            h.update(text.encode())
    os.replace(tmp, path)
    return h.hexdigest()


def write_json(path, obj):
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def priors_for(spec):
    priors = {k: v for k, v in PRIORS.items()}
    if spec["likelihood"] == "normal":
        priors["sigma"] = {"half_normal": {"scale": 5}}
    if spec["likelihood"] == "negative_binomial_log":
        priors["phi"] = {"gamma": {"shape": 0.01, "rate": 0.01}}  # brms's default
    if spec["likelihood"] == "lognormal":
        priors["sigma"] = {"half_normal": {"scale": 5}}
    if spec["likelihood"] == "gamma_log":
        priors["shape"] = {"gamma": {"shape": 0.01, "rate": 0.01}}  # brms's default
    if spec["likelihood"] == "beta_logit":
        priors["phi"] = {"gamma": {"shape": 0.01, "rate": 0.01}}  # brms's default
    priors.update(spec.get("priors", {}))
    return priors


def config_for(spec):
    data = {"csv": spec["name"] + ".csv", "response": "y", "standardize": True}
    for key in ("trials", "offset", "exposure"):
        if key == "trials" and spec["likelihood"] == "binomial_logit" or spec.get(key):
            data[key] = key
    model = {"likelihood": spec["likelihood"], "intercept": True, "priors": priors_for(spec)}
    if spec.get("parameters"):
        model["parameters"] = spec["parameters"]
    return {"data": data, "model": model}


def response_summary(spec, cols):
    y = cols["y"][0]
    lik = spec["likelihood"]
    if lik in ("bernoulli_logit", "bernoulli_probit"):
        return {"positive_fraction": float(y.mean())}
    if lik == "binomial_logit":
        t = cols["trials"][0]
        return {"success_rate": float(y.sum() / t.sum()), "trials_total": int(t.sum()),
                "rows_with_zero_trials": int(np.sum(t == 0))}
    if lik in ("poisson_log", "negative_binomial_log"):
        return {"mean_count": float(y.mean()), "max_count": int(y.max()),
                "zeros": float(np.mean(y == 0))}
    if lik in ("lognormal", "gamma_log", "beta_logit"):
        return {"mean": float(y.mean()), "sd": float(y.std(ddof=1)), "min": float(y.min()),
                "mean_log": float(np.log(y).mean())}
    return {"mean": float(y.mean()), "sd": float(y.std(ddof=1))}


def separable(X, y):
    """Whether some (alpha, beta) puts every point strictly on its side (an LP feasibility test)."""
    from scipy.optimize import linprog
    t = 2.0 * y - 1.0
    A = -(t[:, None] * np.hstack([np.ones((X.shape[0], 1)), X]))
    res = linprog(np.zeros(A.shape[1]), A_ub=A, b_ub=-np.ones(X.shape[0]),
                  bounds=[(None, None)] * A.shape[1], method="highs")
    return bool(res.status == 0)


def parameter_count(spec, d):
    """alpha + beta + sigma (normal, lognormal), phi (negative binomial, beta) or shape (gamma) + declared
    sizes (scalars here)."""
    return 1 + d + (spec["likelihood"] in ("normal", "negative_binomial_log", "lognormal", "gamma_log",
                                            "beta_logit")) + len(
        spec.get("parameters", {}))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Write the bayes-vi synthetic validation suite.")
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--list", action="store_true", help="list the datasets and exit")
    ap.add_argument("--only", help="comma-separated dataset names")
    ap.add_argument("--group", choices=GROUPS, help="only the datasets of one group")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--no-optimum", action="store_true", help="skip the reference optima")
    ap.add_argument("--families", default="meanfield,fullrank")
    ap.add_argument("--fullrank-max-p", type=int, default=None,
                    help="skip the fullrank optimum when the parameter count exceeds this")
    ap.add_argument("--force", action="store_true", help="recompute optima that already exist")
    args = ap.parse_args(argv)

    selected = [s for s in SUITE if args.group is None or s["group"] == args.group]
    if args.list:
        for s in selected:
            d = sum(b[1] for b in s["blocks"])
            print("%-28s %-12s %-16s N=%-7d D=%-4d %s"
                  % (s["name"], s["group"], s["likelihood"], s["n"], d, s["note"]))
        return 0
    if not args.outdir:
        ap.error("OUTDIR is required")
    names = [s["name"] for s in selected]
    if args.only:
        names = [x.strip() for x in args.only.split(",") if x.strip()]
        bad = [x for x in names if x not in BY_NAME]
        if bad:
            ap.error("unknown dataset(s): %s (see --list)" % ", ".join(bad))
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    for f in families:
        if f not in ("meanfield", "fullrank"):
            ap.error("unknown family %r" % f)
    os.makedirs(args.outdir, exist_ok=True)

    manifest_path = os.path.join(args.outdir, "suite.json")
    manifest = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    manifest.update({"seed": args.seed, "numpy": np.__version__,
                     "generator": "make_datasets.py", "default_priors": PRIORS})
    manifest.pop("priors", None)
    manifest.setdefault("datasets", {})
    import vi_optimum

    for name in names:
        spec = BY_NAME[name]
        t0 = time.time()
        X, cols, truth = generate(spec, args.seed)
        csv_path = os.path.join(args.outdir, name + ".csv")
        digest = write_csv(csv_path, X, cols)
        config = config_for(spec)
        write_json(os.path.join(args.outdir, name + ".json"), config)
        config_digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()
        entry = {"n": int(X.shape[0]), "d": int(X.shape[1]), "group": spec["group"],
                 "likelihood": spec["likelihood"], "priors": config["model"]["priors"],
                 "note": spec["note"], "response": response_summary(spec, cols),
                 "sha256": digest, "config_sha256": config_digest,
                 "bytes": os.path.getsize(csv_path), "truth": truth}
        y = cols["y"][0]
        if spec["likelihood"] in ("bernoulli_logit", "bernoulli_probit") \
                and X.shape[0] * X.shape[1] <= 100000:
            entry["linearly_separable"] = separable(X, y)
        print("%-28s %-16s N=%-7d D=%-4d %s  %.1f MB  (%.1fs)"
              % (name, spec["likelihood"], X.shape[0], X.shape[1],
                 " ".join("%s=%.3g" % kv for kv in entry["response"].items()),
                 entry["bytes"] / 1e6, time.time() - t0), file=sys.stderr)
        old = manifest["datasets"].get(name, {})
        entry["optimum"] = old.get("optimum", {}) if old.get("sha256") == digest else {}
        manifest["datasets"][name] = entry
        write_json(manifest_path, manifest)
        if args.no_optimum:
            continue
        for fam in families:
            P = parameter_count(spec, X.shape[1])
            if fam == "fullrank" and args.fullrank_max_p is not None and P > args.fullrank_max_p:
                print("  fullrank skipped (P=%d > %d)" % (P, args.fullrank_max_p), file=sys.stderr)
                continue
            out_path = os.path.join(args.outdir, "%s.optimum.%s.json" % (name, fam))
            rec = entry["optimum"].get(fam, {})
            if (os.path.exists(out_path) and not args.force and rec.get("sha256") == digest
                    and rec.get("config_sha256") == config_digest
                    and rec.get("reference_version") == vi_optimum.REFERENCE_VERSION):
                print("  %s: up to date" % fam, file=sys.stderr)
                continue
            t1 = time.time()
            res = vi_optimum.solve(os.path.join(args.outdir, name + ".json"), fam)
            write_json(out_path, res)
            dg = res["diagnostics"]
            entry["optimum"][fam] = {"sha256": digest, "config_sha256": config_digest,
                                     "reference_version": vi_optimum.REFERENCE_VERSION,
                                     "elbo": res["elbo"], "grad_norm": res["grad_norm"],
                                     "converged": dg["converged"], "method": dg["method"],
                                     "seconds": round(time.time() - t1, 2)}
            write_json(manifest_path, manifest)
            print("  %-9s elbo %.6f  |grad| %.2e  %s  max lin. pred. sd %.2f  quad check %.1e  %.1fs"
                  % (fam, res["elbo"], res["grad_norm"], dg["method"], dg["max_linear_predictor_sd"],
                     dg["quadrature_check"]["elbo_fine_minus_elbo"], time.time() - t1),
                  file=sys.stderr)
            if not dg["converged"]:
                print("  WARNING: %s %s did not converge" % (name, fam), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
