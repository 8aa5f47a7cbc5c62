#!/usr/bin/python3
"""Row weights against statsmodels' weighted GLM (the frequentist target for weighted rows).

Simulates N rows (default 10^5) with 4 features and integer frequency weights 0..4, for three
likelihoods: bernoulli_logit (GLM Binomial), poisson_log with an exposure (GLM Poisson,
exposure=) and normal (GLM Gaussian; sigma's ML estimate sqrt(sum w r^2 / sum w)). statsmodels
fits each with freq_weights=w; bayes-vi fits the same CSV with /data/weights and vague priors
(normal(0, 100) on the coefficients, half_normal(100) on sigma) by its default exact method.
Prints, per coefficient, statsmodels' estimate and standard error, bayes-vi's posterior mean and
sd, and |mean - estimate| / sd (the target: <= 0.05) and sd / se (near 1: with freq_weights the
standard errors are those of sum(w) rows, as repeated rows give). Not part of the test suite
(the fits take a few seconds each); its output is recorded in tests/reference/README.md.

usage: /usr/bin/python3 tests/reference/weights_statsmodels.py [--rows N] [--binary build/bayes-vi]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import statsmodels.api as sm

HERE = os.path.dirname(os.path.abspath(__file__))


def simulate(family, n, rng):
    X = rng.normal(size=(n, 4))
    beta = np.array([0.5, -0.3, 0.2, 0.0])
    eta = 0.3 + X @ beta
    w = rng.integers(0, 5, size=n).astype(float)
    cols = {"x%d" % (j + 1): X[:, j] for j in range(4)}
    if family == "bernoulli_logit":
        y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    elif family == "poisson_log":
        exposure = rng.uniform(0.5, 2.0, size=n)
        cols["exposure"] = exposure
        y = rng.poisson(exposure * np.exp(eta)).astype(float)
    else:
        y = eta + rng.normal(scale=1.3, size=n)
    cols["w"] = w
    cols["y"] = y
    return X, y, w, cols


def statsmodels_fit(family, X, y, w, cols):
    Xc = sm.add_constant(X)
    if family == "bernoulli_logit":
        r = sm.GLM(y, Xc, family=sm.families.Binomial(), freq_weights=w).fit()
    elif family == "poisson_log":
        r = sm.GLM(y, Xc, family=sm.families.Poisson(), exposure=cols["exposure"], freq_weights=w).fit()
    else:
        r = sm.GLM(y, Xc, family=sm.families.Gaussian(), freq_weights=w).fit()
    est = dict(zip(["alpha", "beta.1", "beta.2", "beta.3", "beta.4"], r.params))
    se = dict(zip(["alpha", "beta.1", "beta.2", "beta.3", "beta.4"], r.bse))
    if family == "normal":
        resid = y - Xc @ r.params
        est["sigma"] = float(np.sqrt(np.sum(w * resid**2) / np.sum(w)))  # ML, not statsmodels' scale
        # Its standard error at the ML fit: sigma / sqrt(2 sum w)
        se["sigma"] = est["sigma"] / np.sqrt(2 * np.sum(w))
        # statsmodels' GLM Gaussian bse use the Pearson scale with df_resid; rescale to the ML one
        # (sum w / (sum w - p)) so the comparison is with the ML standard errors.
        k = np.sqrt(np.sum(w) / (np.sum(w) - Xc.shape[1]))
        for name in list(se)[:5]:
            se[name] /= k
    return est, se


def write_csv(path, cols):
    names = list(cols)
    data = np.column_stack([cols[c] for c in names])
    np.savetxt(path, data, delimiter=",", header=",".join(names), comments="", fmt="%.10g")


def bayes_vi_fit(binary, family, csv_path, tmp):
    priors = {"beta": {"normal": {"loc": 0, "scale": 100}}, "alpha": {"normal": {"loc": 0, "scale": 100}}}
    data = {"csv": csv_path, "response": "y", "features": ["x1", "x2", "x3", "x4"], "weights": "w"}
    if family == "poisson_log":
        data["exposure"] = "exposure"
    if family == "normal":
        priors["sigma"] = {"half_normal": {"scale": 100}}
    cfg = {"data": data, "model": {"likelihood": family, "intercept": True, "priors": priors},
           "inference": {"seed": 1}}
    path = os.path.join(tmp, family + ".json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    t0 = time.time()
    p = subprocess.run([binary, "fit", path, "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("bayes-vi failed: " + p.stderr)
    return json.loads(p.stdout), time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "..", "build", "bayes-vi"))
    args = ap.parse_args()
    rng = np.random.default_rng(19)
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for family in ("bernoulli_logit", "poisson_log", "normal"):
            X, y, w, cols = simulate(family, args.rows, rng)
            csv_path = os.path.join(tmp, family + ".csv")
            write_csv(csv_path, cols)
            t0 = time.time()
            est, se = statsmodels_fit(family, X, y, w, cols)
            t_sm = time.time() - t0
            summary, t_bvi = bayes_vi_fit(args.binary, family, csv_path, tmp)
            print("%s: %d rows, sum of weights %d, %d weigh 0; statsmodels %.2f s, bayes-vi %.2f s (%s, %s)"
                  % (family, args.rows, w.sum(), (w == 0).sum(), t_sm, t_bvi, summary["method"],
                     summary["algorithm"]))
            print("  %-7s %12s %10s %12s %10s %14s %8s" % ("param", "statsmodels", "se", "bayes-vi", "sd",
                                                             "|diff|/sd", "sd/se"))
            for p in summary["parameters"]:
                name = p["name"]
                z = abs(p["mean"] - est[name]) / p["sd"]
                worst = max(worst, z)
                print("  %-7s %12.6f %10.6f %12.6f %10.6f %14.4f %8.4f"
                      % (name, est[name], se[name], p["mean"], p["sd"], z, p["sd"] / se[name]))
    print("largest |posterior mean - statsmodels| / posterior sd: %.4f (target <= 0.05)" % worst)


if __name__ == "__main__":
    main()
