#!/usr/bin/env python3
"""A large multilevel fit checked against the simulation's truth, where NUTS is out of reach.

Simulates N rows of D standard-normal predictors in G equal groups, logistic (or normal), with
varying intercepts and slopes on x1, correlated (`(1 + x1 | g)`, the default) or not (`--uncorrelated`,
`(1 + x1 || g)`), or a varying intercept alone (`--intercept-only`, `(1 | g)`); writes the CSV
in chunks, fits it once with the default family (or `--algorithm`), float32, 200 output draws, and
reports: the whole process's wall time and peak RSS (GNU time), iterations, the population
effects' largest |mean - truth| / sd, the group sds and the correlation against the realized sds and
correlation of the drawn effects (z: mean - truth, in posterior sds), and the group effects' calibration: z = (mean - truth) / sd over every effect, its
mean and sd (1 and 0 when calibrated) and the share within 1.96 sd (95 % when calibrated).

  /usr/bin/python3 bench/multilevel_calibration.py [--rows 10000000] [--groups 100000]
      [--features 10] [--likelihood bernoulli_logit|normal] [--uncorrelated | --intercept-only]
      [--algorithm auto] [--threads 2] [--binary build/bayes-vi] [--keep DIR]

With --keep DIR the CSV, config, outputs and the truth stay in DIR, and a later run with the same
sizes fits the same CSV again (another --algorithm or --threads) without simulating it anew.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SD = (0.5, 0.3)  # the varying intercept's and slope's sds
COR = 0.4


def simulate(path, rows, groups, features, likelihood, kind, seed=1):
    """Writes the CSV; returns the truth: population effects, and per group (intercept, slope)."""
    rng = np.random.default_rng(seed)
    alpha, beta = 0.3, rng.normal(0, 0.5, features)
    cor = COR if kind == "correlated" else 0.0
    cov = np.array([[SD[0] ** 2, cor * SD[0] * SD[1]], [cor * SD[0] * SD[1], SD[1] ** 2]])
    effects = rng.standard_normal((groups, 2)) @ np.linalg.cholesky(cov).T
    if kind == "intercept":
        effects[:, 1] = 0
    chunk = 1_000_000
    with open(path, "w") as f:
        f.write(",".join(["y"] + ["x%d" % (j + 1) for j in range(features)] + ["g"]) + "\n")
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            g = (np.arange(start, start + n) * groups) // rows  # equal groups, in order
            x = rng.standard_normal((n, features))
            eta = alpha + x @ beta + effects[g, 0] + effects[g, 1] * x[:, 0]
            if likelihood == "normal":
                y, fmt = eta + rng.standard_normal(n), "%.4f"
            else:
                y, fmt = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int), "%d"
            np.savetxt(f, np.column_stack([y, x, g]), fmt=[fmt] + ["%.4f"] * features + ["g%d"], delimiter=",")
    # The realized sds and correlation of the drawn effects: what the posterior concentrates on as
    # the groups grow (the nominal values differ from them by sampling noise of order 1/sqrt(G)).
    realized_sd = effects.std(axis=0)
    realized_cor = np.corrcoef(effects.T)[0, 1] if kind == "correlated" else 0.0
    return {"alpha": alpha, "beta": beta, "effects": effects, "sd": realized_sd, "cor": realized_cor}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--features", type=int, default=10)
    ap.add_argument("--likelihood", default="bernoulli_logit", choices=["bernoulli_logit", "normal"])
    kind = ap.add_mutually_exclusive_group()
    kind.add_argument("--uncorrelated", action="store_true")
    kind.add_argument("--intercept-only", action="store_true")
    ap.add_argument("--algorithm", default="auto")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "build", "bayes-vi"))
    ap.add_argument("--keep", help="a folder to keep the CSV, config and outputs in")
    a = ap.parse_args()
    k = "intercept" if a.intercept_only else "uncorrelated" if a.uncorrelated else "correlated"
    group = {"intercept": "(1 | g)", "uncorrelated": "(1 + x1 || g)", "correlated": "(1 + x1 | g)"}[k]
    tmp = tempfile.TemporaryDirectory()
    folder = a.keep or tmp.name
    os.makedirs(folder, exist_ok=True)
    csv = os.path.join(folder, "data.csv")
    # With --keep, a folder simulated before with the same sizes is used again (the CSV of 10^7
    # rows takes minutes to write); the truth is kept beside it.
    saved = os.path.join(folder, "truth.npz")
    sizes = np.array([a.rows, a.groups, a.features, a.likelihood == "normal", ["intercept", "uncorrelated",
                                                                                "correlated"].index(k)])
    if a.keep and os.path.exists(saved) and os.path.exists(csv) and np.array_equal(np.load(saved)["sizes"], sizes):
        t = np.load(saved)
        truth = {"alpha": float(t["alpha"]), "beta": t["beta"], "effects": t["effects"], "sd": t["sd"],
                 "cor": float(t["cor"])}
    else:
        t0 = time.perf_counter()
        truth = simulate(csv, a.rows, a.groups, a.features, a.likelihood, k)
        print("simulated %d rows in %.0f s" % (a.rows, time.perf_counter() - t0), file=sys.stderr)
        if a.keep:
            np.savez(saved, sizes=sizes, **truth)
    formula = "y ~ " + " + ".join("x%d" % (j + 1) for j in range(a.features)) + " + " + group
    cfg = os.path.join(folder, "config.json")
    with open(cfg, "w") as f:
        json.dump({"data": {"csv": csv, "dtype": "float32"},
                   "model": {"likelihood": a.likelihood, "formula": formula},
                   "inference": {"algorithm": a.algorithm, "output_draws": 200}}, f)
    out = os.path.join(folder, "out")
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", a.binary, "fit", cfg, "--quiet", "--threads", str(a.threads),
                        "--output", out], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit("bayes-vi failed: " + p.stderr)
    s = json.loads(p.stdout)
    rss_mb = float(p.stderr.strip().split()[-1]) / 1024
    by_name = {q["name"]: q for q in s["parameters"]}
    pop = [(by_name["alpha"]["mean"] - truth["alpha"]) / by_name["alpha"]["sd"]]
    for j in range(a.features):
        q = by_name["beta.%d" % (j + 1)]
        pop.append((q["mean"] - truth["beta"][j]) / q["sd"])
    z, label = [], re.compile(r"^g\[g(\d+)\]:(.*)$")
    for q in s["parameters"]:
        m = label.match(q.get("label", "")) if q["name"].startswith("r_g.") else None
        if m:
            e = 0 if m.group(2) == "(Intercept)" else 1
            z.append((q["mean"] - truth["effects"][int(m.group(1)), e]) / q["sd"])
    z = np.array(z)
    print("| rows | groups | formula | family | iterations | whole process | peak RSS | population max z "
          "| sds (z) | cor (z) | effects: mean z, sd z, within 1.96 sd |")
    print("|---:|---:|---|---|---:|---:|---:|---:|---|---:|---|")
    sds = []
    for e in range(1 if k == "intercept" else 2):
        q = by_name["sd_g.%d" % (e + 1)] if k != "intercept" else by_name.get("sd_g", by_name.get("sd_g.1"))
        sds.append("%.3f ± %.4f (%+.2f)" % (q["mean"], q["sd"], (q["mean"] - truth["sd"][e]) / q["sd"]))
    cor = "n/a"
    if k == "correlated":
        q = by_name["cor_g.2.1"]
        cor = "%.3f ± %.3f (%+.2f)" % (q["mean"], q["sd"], (q["mean"] - truth["cor"]) / q["sd"])
    print("| %d | %d | `%s` | %s | %d | %.1f s | %.0f MB | %.2f | %s | %s | %+.3f, %.3f, %.1f %% |" % (
        a.rows, a.groups, group, s["algorithm"], s["iterations"], wall, rss_mb, max(abs(v) for v in pop),
        "; ".join(sds), cor, z.mean(), z.std(), 100 * np.mean(np.abs(z) < 1.96)))


if __name__ == "__main__":
    main()
