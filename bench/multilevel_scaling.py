#!/usr/bin/env python3
"""How the cost of a multilevel fit grows with the number of groups, and how it compares with lme4.

For G groups of R rows each (simulated: D standard-normal predictors, a varying intercept, and
with --slopes a varying slope on x1 uncorrelated with it, `(1 + x1 || g)`), each round fits the
same data with bayes-vi's sparse family (the default for these models) and its structured family,
and with R's lme4 (`lmer`, or `glmer` for --likelihood bernoulli_logit) when Rscript and lme4 are
installed, interleaved so that a shared machine's load falls on all of them alike. Reported:
medians over the rounds of the whole process (bayes-vi: parse, read, fit, output draws, PSIS) and
of the fit's own seconds per iteration, iterations, peak RSS; lme4's time is the lmer/glmer call
alone (R's start-up and read.csv excluded) and gives a point estimate, not a posterior.

  /usr/bin/python3 bench/multilevel_scaling.py [--groups 1000,10000,100000] [--rows-per-group 20]
      [--features 10] [--likelihood normal|bernoulli_logit] [--slopes] [--rounds 3] [--binary build/bayes-vi]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def simulate(path, groups, per_group, features, likelihood, slopes, seed):
    rng = np.random.default_rng(seed)
    n = groups * per_group
    x = rng.standard_normal((n, features))
    g = np.repeat(np.arange(groups), per_group)
    beta = rng.normal(0, 0.5, features)
    eta = 0.3 + x @ beta + rng.normal(0, 0.5, groups)[g]
    if slopes:
        eta += rng.normal(0, 0.3, groups)[g] * x[:, 0]
    if likelihood == "normal":
        y = eta + rng.normal(0, 1.0, n)
        fmt = "%.5f"
    else:
        y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
        fmt = "%d"
    with open(path, "w") as f:
        f.write(",".join(["y"] + ["x%d" % (j + 1) for j in range(features)] + ["g"]) + "\n")
        np.savetxt(f, np.column_stack([y, x, g]), fmt=[fmt] + ["%.5f"] * features + ["g%d"], delimiter=",")


def formula(features, slopes):
    group = "(1 + x1 || g)" if slopes else "(1 | g)"
    return "y ~ " + " + ".join("x%d" % (j + 1) for j in range(features)) + " + " + group


def run_bvi(binary, config):
    # GNU time reports the child's own peak RSS (getrusage's children figure is a running maximum).
    out = config + ".out"
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", binary, "fit", config, "--quiet", "--output", out],
                       capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit("bayes-vi failed: " + p.stderr)
    s = json.loads(p.stdout)
    rss_kb = float(p.stderr.strip().split()[-1])
    # Seconds per iteration from the ELBO trace: the first iteration's end to the last's.
    with open(os.path.join(out, "elbo.csv")) as f:
        rows = [line.split(",") for line in f.read().split("\n")[1:] if line]
    per_iteration = (float(rows[-1][1]) - float(rows[0][1])) / max(1, len(rows) - 1)
    return {"wall": wall, "per_iteration": per_iteration, "iterations": s["iterations"],
            "rss_mb": rss_kb / 1024, "converged": s["converged"]}


R_SCRIPT = r"""
suppressMessages(library(lme4))
args <- commandArgs(TRUE)
d <- read.csv(args[1])
f <- as.formula(args[2])
t <- system.time(m <- if (args[3] == "normal") lmer(f, data = d) else glmer(f, data = d, family = binomial))
cat(t[["elapsed"]], "\n")
"""


def run_lme4(csv, features, likelihood, slopes):
    group = "(1 + x1 || g)" if slopes else "(1 | g)"
    f = "y ~ " + " + ".join("x%d" % (j + 1) for j in range(features)) + " + " + group
    p = subprocess.run(["Rscript", "-e", R_SCRIPT, csv, f, likelihood], capture_output=True, text=True)
    if p.returncode != 0:
        return float("nan")
    return float(p.stdout.split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--groups", default="1000,10000,100000")
    ap.add_argument("--rows-per-group", type=int, default=20)
    ap.add_argument("--features", type=int, default=10)
    ap.add_argument("--likelihood", default="normal", choices=["normal", "bernoulli_logit"])
    ap.add_argument("--slopes", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "build", "bayes-vi"))
    ap.add_argument("--families", default="sparse,structured")
    a = ap.parse_args()
    have_lme4 = shutil.which("Rscript") and subprocess.run(
        ["Rscript", "-e", "library(lme4)"], capture_output=True).returncode == 0
    families = a.families.split(",")
    print("| groups | rows | family | whole process (s) | s / iteration | iterations | peak RSS (MB) | lme4 (s) |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for groups in [int(g) for g in a.groups.split(",")]:
            csv = os.path.join(tmp, "d%d.csv" % groups)
            simulate(csv, groups, a.rows_per_group, a.features, a.likelihood, a.slopes, seed=groups)
            configs = {}
            for fam in families:
                cfg = {"data": {"csv": csv},
                       "model": {"likelihood": a.likelihood, "formula": formula(a.features, a.slopes)},
                       "inference": {"algorithm": fam, "output_draws": 200}}
                configs[fam] = os.path.join(tmp, "%s%d.json" % (fam, groups))
                with open(configs[fam], "w") as f:
                    json.dump(cfg, f)
            results = {fam: [] for fam in families}
            lme4 = []
            for _ in range(a.rounds):
                for fam in families:
                    results[fam].append(run_bvi(a.binary, configs[fam]))
                if have_lme4:
                    lme4.append(run_lme4(csv, a.features, a.likelihood, a.slopes))
            lme4_s = "%.2f" % statistics.median(lme4) if lme4 else "n/a"
            for fam in families:
                r = results[fam]
                med = lambda k: statistics.median(x[k] for x in r)
                print("| %d | %d | %s | %.2f | %.4f | %d | %.0f | %s |" % (
                    groups, groups * a.rows_per_group, fam, med("wall"), med("per_iteration"), med("iterations"),
                    max(x["rss_mb"] for x in r), lme4_s if fam == families[0] else ""), flush=True)


if __name__ == "__main__":
    main()
