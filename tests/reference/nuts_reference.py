#!/usr/bin/python3
"""NUTS reference posterior (rstan) for a bayes-vi config.

    nuts_reference.py CONFIG.json --out REF.json [--chains 4] [--warmup 2000]
        [--samples 5000] [--seed 20240601] [--parameterization noncentred|centred]
        [--adapt-delta 0.95] [--max-treedepth 12] [--cores 1] [--max-rounds 3]
        [--rhat 1.01] [--min-ess 1000] [--workdir DIR] [--keep]

The config is read by vi_model.py, the reference's own reader (not bayes-vi's): the same CSV,
features, standardization (centred, divided by the sample sd, ddof = 1; features only),
likelihood, parameters and priors. From it a Stan program is written (`stan_program`; kept in the
output), the data go to R as an rstan dump file, and Rscript runs rstan's NUTS: `--chains`
chains of `--warmup` + `--samples` iterations from seed `--seed`. If any parameter has rank-
normalized split R-hat above `--rhat` or bulk ESS below `--min-ess` (rstan's Rhat / ess_bulk,
Vehtari et al. 2021), the sampling iterations are doubled and the run repeated (same compiled
model, seed + round), up to `--max-rounds`; exit status 1 if the targets are still missed.

Supported: every bayes-vi likelihood, every prior family with numeric hyperparameters (Stan's
statements drop constant terms and, for a half family on a constrained parameter, the constant
truncation: neither changes the posterior), and a hierarchical `normal` prior with numeric loc
and a scale that is a product of a number and parameter names (any positive parameters),
written non-centred (beta = loc + scale .* z, z ~ std_normal(); the default) or centred. The
output names parameters as bayes-vi does (alpha, beta.1 .. beta.D, sigma, declared ones);
auxiliary z's are not reported.

Output JSON: per parameter mean, sd, q05, q50, q95 (from the pooled post-warmup draws), R-hat,
bulk and tail ESS, MCSE of the mean (sd / sqrt(bulk ESS)); worst R-hat, smallest ESS; sampler
seconds (rstan's elapsed warmup + sampling, summed over chains, and the wall time of the R
process); divergences and tree-depth saturation; the Stan program, rstan version, settings
and the command line.
"""

import argparse
import os
import shlex
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from rstan_runner import (add_sampler_arguments, chain_rows, read_table, sample_until_converged,  # noqa: E402
                          write_json, write_rdump)
from vi_model import FixedPrior, load_model  # noqa: E402
from vi_priors import ConfigError  # noqa: E402

STAN_FAMILY = {  # bayes-vi family -> (Stan distribution, hyperparameters in Stan's order)
    "normal": ("normal", ("loc", "scale")),
    "student_t": ("student_t", ("df", "loc", "scale")),
    "cauchy": ("cauchy", ("loc", "scale")),
    "laplace": ("double_exponential", ("loc", "scale")),
    "logistic": ("logistic", ("loc", "scale")),
    "half_normal": ("normal", ("0", "scale")),
    "half_cauchy": ("cauchy", ("0", "scale")),
    "half_student_t": ("student_t", ("df", "0", "scale")),
    "exponential": ("exponential", ("rate",)),
    "gamma": ("gamma", ("shape", "rate")),
    "lognormal": ("lognormal", ("loc", "scale")),
}


# --------------------------------------------------------------------------------------------
# The Stan program
# --------------------------------------------------------------------------------------------

def _bounds(tr):
    if tr.kind == "lower":
        return "<lower=%r>" % tr.lo
    if tr.kind == "upper":
        return "<upper=%r>" % tr.up
    if tr.kind == "interval":
        return "<lower=%r, upper=%r>" % (tr.lo, tr.up)
    return ""


def _decl(block, name=None, bounds=True):
    b = _bounds(block.transform) if bounds else ""
    name = name or block.name
    return ("vector%s[%d] %s;" % (b, block.size, name)) if block.is_vector \
        else ("real%s %s;" % (b, name))


def _scale_expr(prior, blocks_by_offset):
    """Stan expression for f * prod(names): scalars with *, vectors elementwise with .*"""
    terms = []
    for k, cnt in sorted(prior.loadings[0].items()):
        b = blocks_by_offset[k]
        terms += [b] * cnt
    # loadings[0] names every factor once per occurrence (vectors by their first entry)
    out = repr(float(prior.factor))
    seen_vector = False
    for b in terms:
        if b.is_vector:
            out += (" .* " if seen_vector else " * ") + b.name
            seen_vector = True
        else:
            out += " * " + b.name
    return out, seen_vector


def stan_program(model, parameterization="noncentred"):
    """Stan program and its data dict for the model (vi_model.Model)."""
    lik = model.likelihood
    K, N = model.K, model.N
    intercept = model.names[0] == "alpha"
    D = K - 1 if intercept else K
    Xf = model.X[:, 1:] if intercept else model.X
    data = {"N": N, "D": D, "X": Xf}
    lines_data = ["  int<lower=0> N;", "  int<lower=0> D;", "  matrix[N, D] X;"]
    y = model.y
    if lik in ("bernoulli_logit", "bernoulli_probit"):
        lines_data.append("  int<lower=0, upper=1> y[N];")
        data["y"] = y.astype(int)
    elif lik == "binomial_logit":
        lines_data += ["  int<lower=0> trials[N];", "  int<lower=0> y[N];"]
        data["trials"] = model.data["trials"].astype(int)
        data["y"] = y.astype(int)
    elif lik in ("poisson_log", "negative_binomial_log"):
        lines_data += ["  vector[N] offset;", "  int<lower=0> y[N];"]
        data["offset"] = model.data["offset"]
        data["y"] = y.astype(int)
    else:
        lines_data.append("  vector[N] y;")
        data["y"] = y
    if lik == "bernoulli_probit":
        lines_data.append("  vector[N] sign;")
        data["sign"] = 2.0 * y - 1.0

    by_offset = {}
    for b in model.blocks:
        for k in range(b.offset, b.offset + b.size):
            by_offset[k] = b
    params, tparams, stmts = [], [], []
    for p in model.priors:
        b = p.block
        if isinstance(p, FixedPrior):
            dist, order = STAN_FAMILY[p.family.name]
            args = []
            for h in order:
                if h == "0":
                    args.append("0")
                    continue
                vals = p.h[h]
                if np.all(vals == vals[0]):
                    args.append(repr(float(vals[0])))
                else:
                    name = "%s_%s" % (b.name, h)
                    lines_data.append("  vector[%d] %s;" % (b.size, name))
                    data[name] = vals
                    args.append(name)
            params.append("  " + _decl(b))
            stmts.append("  %s ~ %s(%s);" % (b.name, dist, ", ".join(args)))
            continue
        # hierarchical normal(loc, f * prod names)
        loc = p.loc
        if np.all(loc == loc[0]):
            loc_expr = repr(float(loc[0]))
        else:
            loc_expr = "%s_loc" % b.name
            lines_data.append("  vector[%d] %s;" % (b.size, loc_expr))
            data[loc_expr] = loc
        scale, vector_scale = _scale_expr(p, by_offset)
        if parameterization == "noncentred":
            z = b.name + "_z"
            params.append("  " + _decl(b, z, bounds=False))
            tparams.append("  " + _decl(b, bounds=False)[:-1] + " = %s + (%s) %s %s;"
                           % (loc_expr, scale, ".*" if vector_scale else "*", z))
            stmts.append("  %s ~ std_normal();" % z)
        else:
            params.append("  " + _decl(b, bounds=False))
            stmts.append("  %s ~ normal(%s, %s);" % (b.name, loc_expr, scale))

    eta = "X * beta" if not intercept else "alpha + X * beta"
    if lik == "bernoulli_logit":
        stmts.append("  y ~ bernoulli_logit(%s);" % eta)
    elif lik == "bernoulli_probit":
        stmts.append("  target += normal_lcdf(sign .* (%s) | 0, 1);" % eta)
    elif lik == "binomial_logit":
        stmts.append("  y ~ binomial_logit(trials, %s);" % eta)
    elif lik == "poisson_log":
        stmts.append("  y ~ poisson_log(%s + offset);" % eta)
    elif lik == "negative_binomial_log":
        # Stan's NB2 (mean exp(eta), variance mu + mu^2 / phi) is bayes-vi's, phi its shape
        stmts.append("  y ~ neg_binomial_2_log(%s + offset, phi);" % eta)
    elif lik == "lognormal":
        stmts.append("  y ~ lognormal(%s, sigma);" % eta)
    elif lik == "gamma_log":
        # Stan's gamma(shape, rate); mean exp(eta) is rate shape / exp(eta)
        stmts.append("  y ~ gamma(shape, shape * exp(-(%s)));" % eta)
    elif lik == "student_t":
        # Stan's student_t(nu, mu, sigma) is scipy.stats.t(df = nu, loc = mu, scale = sigma)
        stmts.append("  y ~ student_t(nu, %s, sigma);" % eta)
    elif lik == "beta_logit":
        # Stan's beta_proportion(mu, kappa) is Beta(mu kappa, (1 - mu) kappa): bayes-vi's with kappa = phi
        stmts.append("  y ~ beta_proportion(inv_logit(%s), phi);" % eta)
    else:
        stmts.append("  y ~ normal(%s, sigma);" % eta)

    text = "// Written by tests/reference/nuts_reference.py from a bayes-vi config.\n"
    text += "data {\n" + "\n".join(lines_data) + "\n}\n"
    text += "parameters {\n" + "\n".join(params) + "\n}\n"
    if tparams:
        text += "transformed parameters {\n" + "\n".join(tparams) + "\n}\n"
    text += "model {\n" + "\n".join(stmts) + "\n}\n"
    return text, data


# Between rstan_runner's R_HEAD and R_TAIL: diagnostics.csv (R-hat, ESS) and draws.csv (every
# post-warmup draw of the reported parameters, chains stacked).
R_BODY = r"""
arr <- as.array(fit, pars = pars)
names <- dimnames(arr)[[3]]
diag <- data.frame(name = names,
                   rhat = apply(arr, 3, Rhat), ess_bulk = apply(arr, 3, ess_bulk),
                   ess_tail = apply(arr, 3, ess_tail))
write.csv(diag, "diagnostics.csv", row.names = FALSE)
draws <- do.call(rbind, lapply(seq_len(dim(arr)[2]), function(c) matrix(arr[, c, ], nrow = dim(arr)[1])))
colnames(draws) <- names
write.table(format(draws, digits = 17), "draws.csv", sep = ",", quote = FALSE, row.names = FALSE)
"""


def read_draws(workdir, run):
    """A round's draws and diagnostics, added to rstan_runner.run_rstan's result."""
    path = os.path.join(workdir, "draws.csv")
    run["draws"] = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    with open(path) as f:
        run["names"] = f.readline().strip().split(",")
    run["diagnostics"] = read_table(workdir, "diagnostics.csv")
    return run


def stan_name_to_bayes_vi(name):
    """beta[3] -> beta.3"""
    return name.replace("[", ".").replace("]", "")


def summarize(model, run):
    stan_names = [stan_name_to_bayes_vi(n) for n in run["names"]]
    if sorted(stan_names) != sorted(model.names):
        raise RuntimeError("parameter names from Stan %s differ from the model's %s"
                           % (stan_names, model.names))
    names = model.names
    d = run["draws"][:, [stan_names.index(n) for n in names]]
    diag = {stan_name_to_bayes_vi(r["name"]): r for r in run["diagnostics"]}
    q = np.quantile(d, [0.05, 0.5, 0.95], axis=0)
    out = []
    for j, name in enumerate(names):
        r = diag[name]
        ess = float(r["ess_bulk"])
        sd = float(d[:, j].std(ddof=1))
        row = {"name": name, "mean": float(d[:, j].mean()), "sd": sd,
               "q05": float(q[0, j]), "q50": float(q[1, j]), "q95": float(q[2, j]),
               "rhat": float(r["rhat"]), "ess_bulk": ess, "ess_tail": float(r["ess_tail"]),
               "mcse_mean": sd / np.sqrt(ess)}
        if model.features[j] is not None:
            row["feature"] = model.features[j]
        out.append(row)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--out", required=True)
    ap.add_argument("--parameterization", choices=("noncentred", "centred"), default="noncentred")
    add_sampler_arguments(ap, seed=20240601, warmup=2000, samples=5000, min_ess=1000)
    args = ap.parse_args(argv)

    def log(msg):
        print("nuts_reference: " + msg, file=sys.stderr, flush=True)

    try:
        model = load_model(args.config)
        program, data = stan_program(model, args.parameterization)
    except (ConfigError, OSError, ValueError, KeyError) as e:
        print("nuts_reference: error: %s" % e, file=sys.stderr)
        return 2
    if shutil.which("Rscript") is None:
        print("nuts_reference: error: Rscript not found (scripts/install-deps.sh --test)",
              file=sys.stderr)
        return 2
    workdir = args.workdir or tempfile.mkdtemp(prefix="nuts_reference_")
    os.makedirs(workdir, exist_ok=True)
    with open(os.path.join(workdir, "model.stan"), "w") as f:
        f.write(program)
    write_rdump(os.path.join(workdir, "data.R"), data)
    pars = [b.name for b in model.blocks]
    params, run, rounds, samples, ok = sample_until_converged(
        workdir, R_BODY, args, pars, lambda run: summarize(model, read_draws(workdir, run)), log)
    out = {
        "config": os.path.relpath(os.path.abspath(args.config), os.getcwd()),
        "method": "rstan NUTS (diag_e metric), rank-normalized split R-hat and bulk/tail ESS "
                  "from rstan::Rhat / ess_bulk / ess_tail; quantiles of the pooled draws",
        "rstan": run["rstan"],
        "command": " ".join(shlex.quote(a) for a in
                            ["/usr/bin/python3", "tests/reference/nuts_reference.py"]
                            + list(sys.argv[1:] if argv is None else argv)),
        "settings": {"chains": args.chains, "warmup": args.warmup, "samples_per_chain": samples,
                     "seed": rounds[-1]["seed"], "adapt_delta": args.adapt_delta,
                     "max_treedepth": args.max_treedepth, "parameterization": args.parameterization,
                     "cores": args.cores},
        "targets": {"rhat_max": args.rhat, "ess_bulk_min": args.min_ess, "met": ok},
        "worst_rhat": rounds[-1]["worst_rhat"], "min_ess_bulk": rounds[-1]["min_ess_bulk"],
        "min_ess_tail": rounds[-1]["min_ess_tail"],
        "sampler": {"seconds": rounds[-1]["sampler_seconds"],
                    "seconds_note": "rstan elapsed warmup + sampling, summed over chains",
                    "wall_seconds": run["sampling_wall_s"],
                    "compile_seconds": run["compile_s"],
                    "chains": chain_rows(run),
                    "divergences": rounds[-1]["divergences"]},
        "rounds": rounds,
        "data": {"N": model.N, "features": model.feature_columns,
                 "csv_sha256": model.csv_sha256,
                 "standardize": "features centred and divided by the sample sd (ddof = 1)"},
        "parameters": params,
        "stan_program": program,
    }
    write_json(args.out, out)
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
