#!/usr/bin/env python3
"""Time to the posterior against lme4's point estimate and NUTS, on the reference data.

On the two many-groups reference problems (tests/reference/multilevel: h_many_groups_correlated,
y ~ x + (1 + x | g), and i_many_groups_uncorrelated, y ~ x + (1 + x || g); about 12,500 rows in
400 groups of 1 to several hundred rows) and on the varying intercept alone, y ~ x + (1 | g), on
h's data, each round runs, interleaved so that a shared machine's load falls on all alike:

* bayes-vi's whole process: `bayes-vi fit CONFIG --threads T --quiet` with the reference config
  (explicit priors, the default `auto` fit, 1000 output draws and PSIS), wall time from start to
  exit;
* R's lme4 `lmer` (REML, its defaults) on the same CSV and formula, one Rscript per round, timing
  `read.csv` and the `lmer` call separately (R's start-up and loading lme4 excluded), the same
  `lmer` call a second time in that session (the first pays R's one-time lazy loading), and the
  whole Rscript process.

Reported: medians over the rounds, bayes-vi's family and iterations, and NUTS's stored times from
the fixtures (rstan's sampling wall time and its warmup + sampling summed over the chains; no
fixture for the varying intercept alone) with the ratio NUTS / bayes-vi.

  /usr/bin/python3 bench/multilevel_vs_lme4.py [--rounds 3] [--threads 2] [--binary build/bayes-vi]
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "tests", "reference", "multilevel")

R_SCRIPT = r"""
suppressMessages(library(lme4))
args <- commandArgs(TRUE)
cpu <- function(t) t[["user.self"]] + t[["sys.self"]]
t_read <- system.time(d <- read.csv(args[1], stringsAsFactors = TRUE))[["elapsed"]]
t <- system.time(m <- lmer(as.formula(args[2]), data = d))
t_fit <- t[["elapsed"]]
c_fit <- cpu(t)
# the same call again in the same session: the first pays R's one-time costs (lazy loading,
# method caches), which a user fitting several models in one session pays once
t_again <- system.time(m <- lmer(as.formula(args[2]), data = d))[["elapsed"]]
cat(t_read, t_fit, c_fit, t_again, isSingular(m), "\n")
"""


def problems():
    """(label, config dict, lme4 formula, NUTS fixture or None)."""
    out = []
    for name, formula in (("h_many_groups_correlated", "y ~ x + (1 + x | g)"),
                          ("i_many_groups_uncorrelated", "y ~ x + (1 + x || g)")):
        with open(os.path.join(REFERENCE, name + ".json")) as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = os.path.abspath(os.path.join(REFERENCE, cfg["data"]["csv"]))
        out.append((name, cfg, formula, os.path.join(REFERENCE, "fixtures", name + ".nuts.json")))
    # The varying intercept alone on h's data: h's config without the slope and its correlation.
    cfg = json.loads(json.dumps(out[0][1]))
    cfg["model"]["groups"] = [{"by": ["g"], "intercept": True, "terms": [], "correlated": True}]
    priors = cfg["model"]["priors"]
    priors.pop("cor_g")
    priors["sd_g"] = {"half_normal": {"scale": 1}}
    out.append(("h's data", cfg, "y ~ x + (1 | g)", None))
    return out


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_bvi(binary, config, threads):
    cpu0, start = children_cpu(), time.perf_counter()
    p = subprocess.run([binary, "fit", config, "--quiet", "--threads", str(threads)],
                       capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu0
    if p.returncode != 0:
        sys.exit("bayes-vi failed: " + p.stderr)
    s = json.loads(p.stdout)
    return {"wall": wall, "cpu": cpu, "algorithm": s["algorithm"], "iterations": s["iterations"],
            "converged": s["converged"]}


def run_lme4(csv, formula):
    start = time.perf_counter()
    p = subprocess.run(["Rscript", "-e", R_SCRIPT, csv, formula], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit("lme4 failed: " + p.stderr)
    read, fit, fit_cpu, again, singular = p.stdout.split()[-5:]
    return {"read": float(read), "fit": float(fit), "fit_cpu": float(fit_cpu), "again": float(again),
            "process": wall,
            "singular": singular == "TRUE"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--binary", default=os.path.join(HERE, "..", "build", "bayes-vi"))
    a = ap.parse_args()
    if not shutil.which("Rscript") or subprocess.run(["Rscript", "-e", "library(lme4)"],
                                                     capture_output=True).returncode != 0:
        sys.exit("needs Rscript with lme4")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for k, (label, cfg, formula, fixture) in enumerate(problems()):
            path = os.path.join(tmp, "c%d.json" % k)
            with open(path, "w") as f:
                json.dump(cfg, f)
            cases.append((label, path, cfg["data"]["csv"], formula, fixture))
        bvi = {c[0]: [] for c in cases}
        lme4 = {c[0]: [] for c in cases}
        for _ in range(a.rounds):
            for label, path, csv, formula, _fixture in cases:
                bvi[label].append(run_bvi(a.binary, path, a.threads))
                lme4[label].append(run_lme4(csv, formula))
        for label, path, csv, formula, fixture in cases:
            b, r = bvi[label], lme4[label]
            med = lambda xs, k: statistics.median(x[k] for x in xs)  # noqa: E731
            row = {"problem": label, "formula": formula, "family": b[0]["algorithm"],
                   "iterations": med(b, "iterations"), "bvi_s": med(b, "wall"),
                   "bvi_cpu_s": med(b, "cpu"), "lmer_fit_cpu_s": med(r, "fit_cpu"),
                   "lmer_fit_s": med(r, "fit"), "lmer_again_s": med(r, "again"),
                   "read_csv_s": med(r, "read"),
                   "rscript_s": med(r, "process"), "singular": any(x["singular"] for x in r)}
            if fixture and os.path.exists(fixture):
                with open(fixture) as f:
                    s = json.load(f)["sampler"]
                row["nuts_wall_s"], row["nuts_summed_s"] = s["wall_seconds"], s["seconds"]
            rows.append(row)
    print("bayes-vi: whole process, default auto fit, %d threads; lme4: `lmer` (REML); medians of %d "
          "interleaved rounds, wall (CPU) seconds; NUTS: the fixture's stored times (rstan's "
          "warmup + sampling summed over the chains is CPU time)" % (a.threads, a.rounds))
    print("| data, formula | bayes-vi family (iterations) | bayes-vi whole process | `lmer` fit | `lmer` again | "
          "`read.csv` | bayes-vi / (`lmer` + `read.csv`) | NUTS wall (CPU summed over chains) | NUTS / bayes-vi, wall (CPU) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        nuts = ("%.0f s (%.0f s)" % (r["nuts_wall_s"], r["nuts_summed_s"]),
                "%.0f× (%.0f×)" % (r["nuts_wall_s"] / r["bvi_s"], r["nuts_summed_s"] / r["bvi_cpu_s"])) \
            if "nuts_wall_s" in r else ("—", "—")
        print("| %s, `%s` | %s (%d) | %.2f s (%.2f s) | %.2f s (%.2f s)%s | %.2f s | %.2f s | %.1f | %s | %s |" % (
            r["problem"], r["formula"].replace("|", "\\|"), r["family"], r["iterations"], r["bvi_s"],
            r["bvi_cpu_s"], r["lmer_fit_s"], r["lmer_fit_cpu_s"], " singular" if r["singular"] else "",
            r["lmer_again_s"], r["read_csv_s"], r["bvi_s"] / (r["lmer_fit_s"] + r["read_csv_s"]),
            nuts[0], nuts[1]))
    print("Rscript whole process (start-up, library(lme4), read.csv, lmer), median: " +
          ", ".join("%s %.2f s" % (r["problem"], r["rscript_s"]) for r in rows))
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
