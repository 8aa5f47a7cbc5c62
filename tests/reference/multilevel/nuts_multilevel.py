#!/usr/bin/python3
"""NUTS reference posteriors (rstan) for the multilevel reference problems.

    nuts_multilevel.py CONFIG.json [--stan PROGRAM.stan] [--out REF.json] [--chains 4]
        [--warmup 1000] [--samples 2500] [--seed 20261212] [--adapt-delta 0.95]
        [--max-treedepth 12] [--cores 1] [--max-rounds 3] [--rhat 1.01] [--min-ess 400]
        [--workdir DIR]

Defaults: PROGRAM is stan/NAME.stan and REF fixtures/NAME.nuts.json for CONFIG NAME.json.

Independent of bayes-vi's code: the config (structured form only) and its CSV are read here again,
from README.md's rules: numeric features as they are (`standardize` must be false); a categorical
feature (listed in /data/categorical, or whose first non-missing value is not a number) treatment-
coded with one indicator per level but the first; grouping columns always categorical; levels
trimmed, sorted by number when every level is a number (`01` and `1` one level) else byte by byte;
group g of factor F is the g-th level in that order (1-based). The Stan program (hand-written,
non-centred) fixes the prior families; their numbers come from the config, whose families are
checked against the program's: alpha normal (uncentred: `"centered": true` is refused), beta
normal, sigma half_normal (normal, lognormal, student_t), nu gamma (student_t), phi gamma
(negative_binomial_log, beta_logit), shape gamma (gamma_log), cutpoints student_t (ordinal_logit,
ordinal_probit: no intercept, `/model/intercept` must be false, the response an integer 1..K with
K its largest value and K - 1 cutpoints cutpoints.1 ...), sd_F half_normal, cor_F lkj.
Anything else in the config is refused. A program may compute the same log density in another way
(h_ and i_many_groups: the normal likelihood summed group by group from sufficient statistics,
which its transformed data block computes from the rows it is given).

Rscript runs rstan's NUTS: `--chains` chains of `--warmup` + `--samples` iterations from `--seed`.
If any reported parameter has rank-normalized split R-hat above `--rhat` or bulk ESS below
`--min-ess` (rstan's Rhat / ess_bulk), the sampling iterations double and the run repeats (same
compiled model, seed + round), up to `--max-rounds`; exit 1 if still missed.

The output keeps summaries only: per parameter (bayes-vi's names alpha, beta.d, sigma, sd_F.k,
cor_F.i.j, r_F.g.k, with bayes-vi-style labels) mean, sd, q05, q50, q95 (pooled post-warmup draws,
R's type-7 quantiles = numpy's default), R-hat, bulk and tail ESS, MCSE of the mean (sd / sqrt(bulk
ESS)); divergences, tree depth, step sizes; the sampler's time (rstan's warmup + sampling, per
chain and summed) and the wall time of the sampling call; the levels of every factor; sha256 of
the CSV, the config and the Stan program; rstan's version and the command.
"""

import argparse
import csv
import hashlib
import json
import math
import os
import shlex
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from rstan_runner import (add_sampler_arguments, chain_rows, read_table,  # noqa: E402
                          sample_until_converged, write_json)
from rstan_runner import write_rdump as _write_rdump  # noqa: E402

MISSING = {"", "na", "nan", "-nan", "+nan"}


class ConfigError(Exception):
    pass


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def is_number(s):
    try:
        v = float(s)
    except ValueError:
        return False
    return math.isfinite(v)


def sorted_levels(values):
    """bayes-vi's level order: numeric when every level is a number (by value; '01' == '1'),
    else byte by byte (UTF-8 = code point order). Returns (levels, key function)."""
    distinct = set(values)
    if all(is_number(v) for v in distinct):
        by_value = {}
        for v in distinct:
            by_value.setdefault(float(v), v)
        keys = sorted(by_value)
        labels = [by_value[k] for k in keys]
        # bayes-vi names a numeric level by its number (e.g. '1' for '01')
        labels = ["%d" % k if float(k).is_integer() and abs(k) < 2 ** 53 else repr(k) for k in keys]
        index = {k: i for i, k in enumerate(keys)}
        return labels, (lambda v: index[float(v)]), "numeric"
    labels = sorted(distinct, key=lambda s: s.encode("utf-8"))
    index = {v: i for i, v in enumerate(labels)}
    return labels, (lambda v: index[v]), "byte"


def hyper(prior, family, key, size, where):
    if list(prior) != [family] and not (family == "normal" and set(prior) == {"normal", "centered"}):
        raise ConfigError("%s: the Stan program states a %s prior, the config %s"
                          % (where, family, sorted(prior)))
    if prior.get("centered", False):
        raise ConfigError("%s: centered alpha priors are not supported (give an uncentred one)"
                          % where)
    v = prior[family][key]
    if isinstance(v, str):
        raise ConfigError("%s/%s/%s: hierarchical hyperparameters are not supported"
                          % (where, family, key))
    a = np.asarray(v, dtype=float).ravel()
    if a.size == 1:
        a = np.full(size, a[0])
    if a.size != size:
        raise ConfigError("%s/%s/%s: %d entries for %d coefficients" % (where, family, key,
                                                                         a.size, size))
    return a


def load_problem(config_path):
    """Config + CSV -> (Stan data dict, parameter table, description)."""
    with open(config_path) as f:
        cfg = json.load(f)
    allowed = {"data": {"csv", "response", "features", "categorical", "standardize", "missing"},
               "model": {"likelihood", "intercept", "groups", "priors"}}
    for sec, keys in allowed.items():
        extra = set(cfg.get(sec, {})) - keys
        if extra:
            raise ConfigError("/%s: not supported here: %s" % (sec, sorted(extra)))
    extra = set(cfg) - {"data", "model", "inference"}
    if extra:
        raise ConfigError("unknown keys %s" % sorted(extra))
    data_cfg, model_cfg = cfg["data"], cfg["model"]
    if data_cfg.get("standardize", False):
        raise ConfigError("/data/standardize: must be false here")
    if data_cfg.get("missing", "error") != "error":
        raise ConfigError("/data/missing: must be 'error' here")
    lik = model_cfg["likelihood"]
    if lik not in ("normal", "bernoulli_logit", "negative_binomial_log", "gamma_log", "lognormal",
                   "student_t", "beta_logit", "ordinal_logit", "ordinal_probit"):
        raise ConfigError("/model/likelihood: %s not supported here" % lik)
    ordinal = lik.startswith("ordinal_")
    if ordinal and model_cfg.get("intercept", True) is not False:
        raise ConfigError("/model/intercept: must be false for an ordinal likelihood here")
    if not ordinal and not model_cfg.get("intercept", False):
        raise ConfigError("/model/intercept: the programs have an intercept")
    csv_path = os.path.join(os.path.dirname(os.path.abspath(config_path)), data_cfg["csv"])
    with open(csv_path, newline="") as f:
        reader = csv.reader(f)
        header = [h.strip() for h in next(reader)]
        rows = [[c.strip() for c in r] for r in reader]
    cols = {h: [r[j] for r in rows] for j, h in enumerate(header)}
    for h, vals in cols.items():
        if any(v.lower() in MISSING for v in vals):
            raise ConfigError("%s: column %s has missing values (not supported here)"
                              % (csv_path, h))
    N = len(rows)
    resp = data_cfg["response"]
    y = np.array([float(v) for v in cols[resp]])
    if lik == "bernoulli_logit" and not np.all((y == 0) | (y == 1)):
        raise ConfigError("response not 0/1")
    if lik == "negative_binomial_log" and not np.all((y >= 0) & (y == np.round(y))):
        raise ConfigError("response not a non-negative integer count")
    if lik in ("gamma_log", "lognormal") and not np.all(y > 0):
        raise ConfigError("response not positive")
    if lik == "beta_logit" and not np.all((y > 0) & (y < 1)):
        raise ConfigError("response not in (0, 1)")
    if ordinal and not np.all((y >= 1) & (y == np.round(y))):
        raise ConfigError("response not an integer category 1..K")
    declared_cat = set(data_cfg.get("categorical", []))
    groups = model_cfg.get("groups", [])
    group_cols = {c for g in groups for c in g["by"]}

    def categorical(col):
        return col in declared_cat or col in group_cols or not is_number(cols[col][0])

    features = data_cfg.get("features")
    if features is None:
        raise ConfigError("/data/features: give them explicitly here")
    Xcols, xnames = [], []
    levels_out = {}
    for feat in features:
        if ":" in feat:
            raise ConfigError("/data/features: interactions are not supported here")
        if categorical(feat):
            labels, index, order = sorted_levels(cols[feat])
            idx = np.array([index(v) for v in cols[feat]])
            levels_out[feat] = {"levels": labels, "order": order, "reference": labels[0]}
            for j in range(1, len(labels)):
                Xcols.append((idx == j).astype(float))
                xnames.append("%s[%s]" % (feat, labels[j]))
        else:
            Xcols.append(np.array([float(v) for v in cols[feat]]))
            xnames.append(feat)
    D = len(Xcols)
    X = np.column_stack(Xcols)
    data = {"N": N, "D": D, "X": X,
            "y": y.astype(int) if lik in ("bernoulli_logit", "negative_binomial_log") or ordinal
            else y}

    priors = dict(model_cfg.get("priors", {}))
    params = []   # (name, label, block, extra)

    def take(name):
        if name not in priors:
            raise ConfigError("/model/priors/%s: the reference needs an explicit prior" % name)
        return priors.pop(name)

    if not ordinal:
        p = take("alpha")
        data["alpha_loc"] = float(hyper(p, "normal", "loc", 1, "/model/priors/alpha")[0])
        data["alpha_scale"] = float(hyper(p, "normal", "scale", 1, "/model/priors/alpha")[0])
        params.append({"name": "alpha", "stan": "alpha", "label": "(Intercept)", "kind": "alpha"})
    p = take("beta")
    data["beta_loc"] = hyper(p, "normal", "loc", D, "/model/priors/beta")
    data["beta_scale"] = hyper(p, "normal", "scale", D, "/model/priors/beta")
    for d in range(D):
        params.append({"name": "beta.%d" % (d + 1), "stan": "beta[%d]" % (d + 1),
                       "label": xnames[d], "kind": "beta"})
    if lik in ("normal", "lognormal", "student_t"):
        p = take("sigma")
        data["sigma_scale"] = float(hyper(p, "half_normal", "scale", 1, "/model/priors/sigma")[0])
        params.append({"name": "sigma", "stan": "sigma", "label": "sigma", "kind": "sigma"})
    if lik == "student_t":
        p = take("nu")
        data["nu_shape"] = float(hyper(p, "gamma", "shape", 1, "/model/priors/nu")[0])
        data["nu_rate"] = float(hyper(p, "gamma", "rate", 1, "/model/priors/nu")[0])
        params.append({"name": "nu", "stan": "nu", "label": "nu", "kind": "sigma"})
    if ordinal:
        K = int(y.max())
        if K < 2:
            raise ConfigError("response: an ordinal model needs K >= 2")
        data["K"] = K
        p = take("cutpoints")
        data["cutpoints_df"] = float(hyper(p, "student_t", "df", 1, "/model/priors/cutpoints")[0])
        data["cutpoints_loc"] = float(hyper(p, "student_t", "loc", 1, "/model/priors/cutpoints")[0])
        data["cutpoints_scale"] = float(hyper(p, "student_t", "scale", 1,
                                              "/model/priors/cutpoints")[0])
        for k in range(K - 1):
            params.append({"name": "cutpoints.%d" % (k + 1), "stan": "cutpoints[%d]" % (k + 1),
                           "label": "cutpoints[%d]" % (k + 1), "kind": "cutpoint"})
    if lik in ("negative_binomial_log", "beta_logit"):
        p = take("phi")
        data["phi_shape"] = float(hyper(p, "gamma", "shape", 1, "/model/priors/phi")[0])
        data["phi_rate"] = float(hyper(p, "gamma", "rate", 1, "/model/priors/phi")[0])
        params.append({"name": "phi", "stan": "phi", "label": "phi", "kind": "sigma"})
    if lik == "gamma_log":
        p = take("shape")
        data["shape_shape"] = float(hyper(p, "gamma", "shape", 1, "/model/priors/shape")[0])
        data["shape_rate"] = float(hyper(p, "gamma", "rate", 1, "/model/priors/shape")[0])
        params.append({"name": "shape", "stan": "shape", "label": "shape", "kind": "sigma"})
    factors = []
    r_params = []
    for gi, g in enumerate(groups):
        by = g["by"]
        if len(by) != 1:
            raise ConfigError("/model/groups/%d/by: one column only here" % gi)
        F = by[0]
        if set(g) - {"by", "intercept", "terms", "correlated"}:
            raise ConfigError("/model/groups/%d: unsupported keys" % gi)
        if not g.get("intercept", True):
            raise ConfigError("/model/groups/%d: a varying intercept is required here" % gi)
        terms = g.get("terms", [])
        K = 1 + len(terms)
        correlated = g.get("correlated", True) and K >= 2
        labels, index, order = sorted_levels(cols[F])
        G = len(labels)
        data["G_" + F] = G
        data[F] = np.array([index(v) + 1 for v in cols[F]], dtype=int)
        for t in terms:
            if categorical(t) or ":" in t:
                raise ConfigError("/model/groups/%d/terms: numeric columns only here" % gi)
        if len(terms) == 1:
            data["Z_" + F] = np.array([float(v) for v in cols[terms[0]]])
        elif len(terms) > 1:
            raise ConfigError("/model/groups/%d/terms: one slope at most here" % gi)
        effects = ["(Intercept)"] + list(terms)
        counts = np.bincount(data[F] - 1, minlength=G)
        levels_out[F] = {"levels": labels, "order": order, "rows": counts.tolist(),
                         "effects": effects}
        factors.append({"factor": F, "groups": G, "K": K, "correlated": correlated,
                        "effects": effects})
        p = take("sd_" + F)
        data["sd_%s_scale" % F] = hyper(p, "half_normal", "scale", K, "/model/priors/sd_" + F)
        for k in range(K):
            params.append({"name": "sd_%s.%d" % (F, k + 1), "stan": "sd_%s[%d]" % (F, k + 1),
                           "label": "%s: sd(%s)" % (F, effects[k]), "kind": "sd", "factor": F,
                           "levels": G})
        if correlated:
            p = take("cor_" + F)
            if list(p) != ["lkj"]:
                raise ConfigError("/model/priors/cor_%s: lkj expected" % F)
            data["cor_%s_eta" % F] = float(p["lkj"]["eta"])
            for i in range(2, K + 1):
                for j in range(1, i):
                    params.append({"name": "cor_%s.%d.%d" % (F, i, j),
                                   "stan": "cor_%s[%d,%d]" % (F, i, j),
                                   "label": "%s: cor(%s, %s)" % (F, effects[j - 1], effects[i - 1]),
                                   "kind": "cor", "factor": F, "levels": G})
        for gg in range(G):
            for k in range(K):
                r_params.append({"name": "r_%s.%d.%d" % (F, gg + 1, k + 1),
                                 "stan": "r_%s[%d,%d]" % (F, gg + 1, k + 1),
                                 "label": "%s[%s]:%s" % (F, labels[gg], effects[k]),
                                 "kind": "r", "factor": F, "rows": int(counts[gg])})
    if priors:
        raise ConfigError("/model/priors: not used by the program: %s" % sorted(priors))
    params += r_params
    desc = {"N": N, "likelihood": lik, "response": resp, "features": features,
            "coefficients": xnames, "factors": factors, "levels": levels_out,
            "csv": os.path.relpath(csv_path, HERE), "csv_sha256": sha256(csv_path)}
    return data, params, desc


def write_rdump(path, data):
    """nuts_reference's dump file, with length-1 vectors given their dimension (else rstan reads
    them as scalars and refuses them for a vector[1])."""
    ones = {k: v for k, v in data.items() if np.ndim(v) == 1 and np.size(v) == 1}
    _write_rdump(path, {k: v for k, v in data.items() if k not in ones})
    with open(path, "a") as f:
        for k, v in ones.items():
            f.write("%s <- structure(c(%r), .Dim = c(1L))\n" % (k, float(np.asarray(v)[0])))


# Between rstan_runner's R_HEAD and R_TAIL: summary.csv, per parameter the pooled draws' mean,
# sd and type-7 quantiles with R-hat and ESS (NA for a constant, such as a fixed correlation).
R_BODY = r"""
arr <- as.array(fit, pars = pars)
nm <- dimnames(arr)[[3]]
pooled <- matrix(arr, ncol = dim(arr)[3])
q <- apply(pooled, 2, quantile, probs = c(0.05, 0.5, 0.95), type = 7, names = FALSE)
safe <- function(f) function(x) if (sd(as.vector(x)) > 0) f(x) else NA_real_
s <- data.frame(name = nm, mean = colMeans(pooled), sd = apply(pooled, 2, sd),
                q05 = q[1, ], q50 = q[2, ], q95 = q[3, ],
                rhat = apply(arr, 3, safe(Rhat)), ess_bulk = apply(arr, 3, safe(ess_bulk)),
                ess_tail = apply(arr, 3, safe(ess_tail)))
write.csv(format(s, digits = 17), "summary.csv", row.names = FALSE)  # quoted: names hold commas (r_g[1,1])
"""


def num(s):
    s = s.strip()
    return float("nan") if s in ("NA", "NaN") else float(s)


def summarize(params, summary):
    by_stan = {r["name"].strip().replace(" ", ""): r for r in summary}
    out = []
    for p in params:
        r = by_stan.get(p["stan"])
        if r is None:
            raise RuntimeError("Stan's output has no %s" % p["stan"])
        sd = num(r["sd"])
        ess = num(r["ess_bulk"])
        row = {"name": p["name"], "label": p["label"], "kind": p["kind"]}
        for k in ("factor", "levels", "rows"):
            if k in p:
                row[k] = p[k]
        row.update({"mean": num(r["mean"]), "sd": sd, "q05": num(r["q05"]), "q50": num(r["q50"]),
                    "q95": num(r["q95"]), "rhat": num(r["rhat"]), "ess_bulk": ess,
                    "ess_tail": num(r["ess_tail"]), "mcse_mean": sd / math.sqrt(ess)})
        out.append(row)
    return out


def stan_pars(params):
    """Stan parameter blocks to extract."""
    seen = []
    for p in params:
        base = p["stan"].split("[")[0]
        if base not in seen:
            seen.append(base)
    return seen


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--stan", help="Stan program (default: stan/NAME.stan)")
    ap.add_argument("--out", help="reference JSON (default: fixtures/NAME.nuts.json)")
    add_sampler_arguments(ap, seed=20261212, warmup=1000, samples=2500, min_ess=400)
    args = ap.parse_args(argv)
    name = os.path.splitext(os.path.basename(args.config))[0]
    stan_path = args.stan or os.path.join(HERE, "stan", name + ".stan")
    out_path = args.out or os.path.join(HERE, "fixtures", name + ".nuts.json")

    def log(msg):
        print("nuts_multilevel: " + msg, file=sys.stderr, flush=True)

    try:
        data, params, desc = load_problem(args.config)
        with open(stan_path) as f:
            program = f.read()
    except (ConfigError, OSError, ValueError, KeyError) as e:
        print("nuts_multilevel: error: %s" % e, file=sys.stderr)
        return 2
    if shutil.which("Rscript") is None:
        print("nuts_multilevel: error: Rscript not found", file=sys.stderr)
        return 2
    workdir = args.workdir or tempfile.mkdtemp(prefix="nuts_multilevel_")
    os.makedirs(workdir, exist_ok=True)
    mpath = os.path.join(workdir, "model.stan")
    if not (os.path.exists(mpath) and open(mpath).read() == program):
        with open(mpath, "w") as f:
            f.write(program)
    write_rdump(os.path.join(workdir, "data.R"), data)
    pars = stan_pars(params)
    rows, run, rounds, samples, ok = sample_until_converged(
        workdir, R_BODY, args, pars, lambda run: summarize(params, read_table(workdir, "summary.csv")),
        log)
    chains = chain_rows(run)
    rel = lambda p: os.path.relpath(os.path.abspath(p), HERE)  # noqa: E731
    out = {
        "problem": name,
        "config": rel(args.config),
        "config_sha256": sha256(args.config),
        "stan_program": rel(stan_path),
        "stan_program_sha256": sha256(stan_path),
        "method": "rstan NUTS (diag_e metric, non-centred group effects); rank-normalized split "
                  "R-hat and bulk/tail ESS from rstan::Rhat / ess_bulk / ess_tail; mean, sd and "
                  "type-7 quantiles of the pooled post-warmup draws",
        "rstan": run["rstan"],
        "command": " ".join(shlex.quote(a) for a in
                            ["/usr/bin/python3", "tests/reference/multilevel/nuts_multilevel.py"]
                            + list(sys.argv[1:] if argv is None else argv)),
        "settings": {"chains": args.chains, "warmup": args.warmup, "samples_per_chain": samples,
                     "seed": rounds[-1]["seed"], "adapt_delta": args.adapt_delta,
                     "max_treedepth": args.max_treedepth, "cores": args.cores},
        "targets": {"rhat_max": args.rhat, "ess_bulk_min": args.min_ess, "met": ok},
        "worst_rhat": rounds[-1]["worst_rhat"],
        "worst_rhat_parameter": rounds[-1]["worst_rhat_parameter"],
        "min_ess_bulk": rounds[-1]["min_ess_bulk"],
        "min_ess_bulk_parameter": rounds[-1]["min_ess_bulk_parameter"],
        "min_ess_tail": rounds[-1]["min_ess_tail"],
        "sampler": {"seconds": rounds[-1]["sampler_seconds"],
                    "seconds_note": "rstan's elapsed warmup + sampling, summed over the chains "
                                    "(settings.cores of them at a time)",
                    "wall_seconds": run["sampling_wall_s"],
                    "wall_note": "wall time of rstan::sampling (all chains; the machine is shared)",
                    "compile_seconds": run["compile_s"],
                    "divergences": rounds[-1]["divergences"],
                    "treedepth_max_hits": sum(c["treedepth_max_hits"] for c in chains),
                    "chains": chains},
        "rounds": rounds,
        "data": desc,
        "parameters": rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    write_json(out_path, out)
    log("wrote %s" % out_path)
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
