"""Running rstan's NUTS from Python for the reference generators (nuts_reference.py,
multilevel/nuts_multilevel.py): the dump file the data go to R in, the R script's common head
(compile, sample) and tail (per-chain sampler report), the command-line options for the sampler,
and the rounds that double the sampling iterations until R-hat and bulk ESS meet their targets.

Each generator supplies its own middle of the R script (what it extracts from the fit, into
CSV files in the work folder) and its own summary of a round.
"""

import csv
import json
import os
import shlex
import subprocess
import sys
import time

import numpy as np


def write_rdump(path, data):
    """rstan's dump format: scalars, vectors (c(...)) and matrices (structure(c(...), .Dim))."""
    def num(v):
        return "%dL" % v if isinstance(v, (int, np.integer)) else repr(float(v))

    with open(path, "w") as f:
        for k, v in data.items():
            a = np.asarray(v)
            if a.ndim == 0:
                f.write("%s <- %s\n" % (k, num(a.item())))
            elif a.ndim == 1:
                f.write("%s <- c(%s)\n" % (k, ", ".join(num(x) for x in a.tolist())))
            else:                                    # column-major, as R stores matrices
                flat = a.T.ravel().tolist()
                f.write("%s <- structure(c(%s), .Dim = c(%dL, %dL))\n"
                        % (k, ", ".join(num(x) for x in flat), a.shape[0], a.shape[1]))


# Arguments: workdir chains warmup samples seed adapt_delta max_treedepth cores pars(comma-separated).
# Leaves `fit`, `pars`, `chains`, `max_td`, `wall` (sampling seconds) and `compile_s` defined.
R_HEAD = r"""
suppressPackageStartupMessages(library(rstan))
a <- commandArgs(trailingOnly = TRUE)
workdir <- a[1]; chains <- as.integer(a[2]); warmup <- as.integer(a[3]); samples <- as.integer(a[4])
seed <- as.integer(a[5]); adapt_delta <- as.numeric(a[6]); max_td <- as.integer(a[7])
cores <- as.integer(a[8]); pars <- strsplit(a[9], ",")[[1]]
rstan_options(auto_write = TRUE)
# Debian's r-cran-bh leaves the Boost headers in /usr/include (libboost-dev), where rstan's check
# for BH's include folder does not look.
if (!file.exists(rstan_options("boost_lib")) && dir.exists("/usr/include/boost"))
  rstan_options(boost_lib = "/usr/include")
setwd(workdir)
t0 <- Sys.time()
model <- stan_model("model.stan")
compile_s <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
data <- read_rdump("data.R")
t0 <- Sys.time()
fit <- sampling(model, data = data, chains = chains, iter = warmup + samples, warmup = warmup,
                seed = seed, cores = cores, refresh = 0,
                control = list(adapt_delta = adapt_delta, max_treedepth = max_td))
wall <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
if (fit@mode != 0L) stop("sampling failed")
"""

# chains.csv (per chain: times, divergences, tree depth, leapfrog steps, step size, acceptance)
# and run_info.txt (rstan's version, the sampling and compile seconds).
R_TAIL = r"""
sp <- get_sampler_params(fit, inc_warmup = FALSE)
spw <- get_sampler_params(fit, inc_warmup = TRUE)
et <- get_elapsed_time(fit)
chain_info <- data.frame(chain = seq_len(chains), warmup_s = et[, "warmup"], sample_s = et[, "sample"],
                         divergent = sapply(sp, function(x) sum(x[, "divergent__"])),
                         treedepth_max_hits = sapply(sp, function(x) sum(x[, "treedepth__"] >= max_td)),
                         mean_treedepth = sapply(sp, function(x) mean(x[, "treedepth__"])),
                         mean_leapfrog = sapply(sp, function(x) mean(x[, "n_leapfrog__"])),
                         total_leapfrog = sapply(spw, function(x) sum(x[, "n_leapfrog__"])),
                         stepsize = sapply(sp, function(x) x[1, "stepsize__"]),
                         mean_accept_stat = sapply(sp, function(x) mean(x[, "accept_stat__"])))
write.csv(chain_info, "chains.csv", row.names = FALSE)
writeLines(c(as.character(packageVersion("rstan")), format(wall, digits = 10),
             format(compile_s, digits = 10)), "run_info.txt")
"""


def read_table(workdir, name):
    with open(os.path.join(workdir, name)) as f:
        return list(csv.DictReader(f))


def run_rstan(workdir, body, args, samples, seed, pars, log):
    """Compiles workdir/model.stan (rstan caches it), samples with workdir/data.R, runs `body`
    between R_HEAD and R_TAIL. Returns the chains table, rstan's version and the times."""
    rpath = os.path.join(workdir, "run.R")
    with open(rpath, "w") as f:
        f.write(R_HEAD + body + R_TAIL)
    cmd = ["Rscript", rpath, workdir, str(args.chains), str(args.warmup), str(samples), str(seed),
           repr(args.adapt_delta), str(args.max_treedepth), str(args.cores), ",".join(pars)]
    log("running: " + " ".join(shlex.quote(c) for c in cmd))
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
        raise RuntimeError("Rscript failed (exit %d)" % proc.returncode)
    elapsed = time.time() - t0
    with open(os.path.join(workdir, "run_info.txt")) as f:
        version, wall, compile_s = f.read().split()
    return {"chains": read_table(workdir, "chains.csv"), "rstan": version,
            "sampling_wall_s": float(wall), "compile_s": float(compile_s), "rscript_s": elapsed,
            "stderr": proc.stderr}


def add_sampler_arguments(ap, seed, warmup, samples, min_ess):
    ap.add_argument("--chains", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=warmup)
    ap.add_argument("--samples", type=int, default=samples, help="post-warmup iterations per chain")
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--adapt-delta", type=float, default=0.95)
    ap.add_argument("--max-treedepth", type=int, default=12)
    ap.add_argument("--cores", type=int, default=1,
                    help="chains run in parallel (default 1: one after the other, the machine is "
                         "shared)")
    ap.add_argument("--max-rounds", type=int, default=3)
    ap.add_argument("--rhat", type=float, default=1.01)
    ap.add_argument("--min-ess", type=float, default=min_ess)
    ap.add_argument("--workdir", help="keep the Stan files and the compiled model here")


def sample_until_converged(workdir, body, args, pars, summarize, log):
    """Rounds of sampling from seed, seed + 1, ..., the post-warmup iterations doubled after each
    round whose worst R-hat is above args.rhat or smallest bulk ESS below args.min_ess.
    `summarize(run)` turns a round into rows with name, rhat, ess_bulk, ess_tail.
    Returns (rows, run, rounds, samples, targets met)."""
    samples = args.samples
    rounds = []
    for rnd in range(args.max_rounds):
        seed = args.seed + rnd
        run = run_rstan(workdir, body, args, samples, seed, pars, log)
        rows = summarize(run)
        worst = max(rows, key=lambda p: p["rhat"])
        least = min(rows, key=lambda p: p["ess_bulk"])
        chains = run["chains"]
        info = {"round": rnd + 1, "seed": seed, "samples_per_chain": samples,
                "worst_rhat": worst["rhat"], "worst_rhat_parameter": worst["name"],
                "min_ess_bulk": least["ess_bulk"], "min_ess_bulk_parameter": least["name"],
                "min_ess_tail": min(p["ess_tail"] for p in rows),
                "sampler_seconds": sum(float(c["warmup_s"]) + float(c["sample_s"])
                                       for c in chains),
                "wall_seconds": run["sampling_wall_s"],
                "divergences": sum(int(float(c["divergent"])) for c in chains)}
        rounds.append(info)
        log("round %d: %d x (%d + %d) iterations, worst R-hat %.4f (%s), min bulk ESS %.0f (%s), "
            "%d divergences, sampler %.1f s (compile %.0f s)"
            % (rnd + 1, args.chains, args.warmup, samples, worst["rhat"], worst["name"],
               least["ess_bulk"], least["name"], info["divergences"], info["sampler_seconds"],
               run["compile_s"]))
        if worst["rhat"] <= args.rhat and least["ess_bulk"] >= args.min_ess:
            break
        samples *= 2
    ok = rounds[-1]["worst_rhat"] <= args.rhat and rounds[-1]["min_ess_bulk"] >= args.min_ess
    if not ok:
        log("targets not met: worst R-hat %.4f, min bulk ESS %.0f"
            % (rounds[-1]["worst_rhat"], rounds[-1]["min_ess_bulk"]))
    return rows, run, rounds, samples, ok


def chain_rows(run):
    """The chains table as numbers, with each chain's warmup + sampling seconds."""
    ints = ("chain", "divergent", "treedepth_max_hits", "total_leapfrog")
    rows = [{k: (int(float(v)) if k in ints else float(v)) for k, v in c.items()}
            for c in run["chains"]]
    for c in rows:
        c["seconds"] = c["warmup_s"] + c["sample_s"]
    return rows


def write_json(path, obj):
    """Written whole or not at all (a temporary file renamed over the old one)."""
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
