#!/usr/bin/python3
"""Synthetic logistic-regression validation suite for bayes-vi, with reference optima.

    make_datasets.py OUTDIR [--only NAME[,NAME...]] [--list] [--seed S]
                            [--no-optimum] [--families meanfield,fullrank]
                            [--fullrank-max-p P]

For every dataset NAME it writes into OUTDIR:

    NAME.csv                      header x1..xD,y; features rounded to 4 decimals and written
                                  with repr() (so the file holds the data exactly); y in {0,1}
    NAME.json                     bayes-vi config: standardize, intercept, alpha ~ Normal(0, 10),
                                  beta ~ Normal(0, 2.5), no inference block
    NAME.optimum.meanfield.json   vi_optimum.py output for each family (skipped by --no-optimum)
    NAME.optimum.fullrank.json
    suite.json                    manifest: sizes, class balance, generating coefficients,
                                  sha256 of each CSV, numpy version, seed

Everything is deterministic given --seed (default 20240601) and the numpy version (numpy's
Generator streams are stable across releases for the distributions used here, but the
manifest records the version in case they are not).
"""

import argparse
import hashlib
import json
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
# balance: target fraction of positives (the intercept is solved for it) or None for alpha=0.
# raw: whether features get arbitrary offsets/scales (bayes-vi standardizes them back).

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
]
BY_NAME = {s["name"]: s for s in SUITE}


def dataset_rng(seed, name):
    return np.random.default_rng([seed, zlib.crc32(name.encode())])


def generate(spec, seed):
    rng = dataset_rng(seed, spec["name"])
    n = spec["n"]
    Z = build_features(rng, n, spec["blocks"])
    d = Z.shape[1]
    kind, arg = spec["beta"]
    beta = rng.normal(0.0, arg, d) if kind == "normal" else np.array(arg, dtype=float)
    lin = Z @ beta
    if spec["balance"] is None:
        alpha = 0.0
    else:
        target = spec["balance"]
        alpha = optimize.brentq(lambda a: special.expit(a + lin).mean() - target, -50, 50,
                                xtol=1e-14)
    y = (rng.random(n) < special.expit(alpha + lin)).astype(np.int64)
    if spec["raw"]:
        offset = np.round(rng.normal(0.0, 5.0, d), 2)
        scale = np.round(np.exp(rng.normal(0.0, 1.0, d)), 3)
    else:
        offset, scale = np.zeros(d), np.ones(d)
    X = np.round(offset + scale * Z, DECIMALS)
    return X, y, {"alpha_latent": float(alpha), "beta_latent": beta.tolist(),
                  "offset": offset.tolist(), "scale": scale.tolist()}


def write_csv(path, X, y):
    d = X.shape[1]
    header = ",".join(["x%d" % (j + 1) for j in range(d)] + ["y"])
    tmp = path + ".tmp%d" % os.getpid()
    h = hashlib.sha256()
    with open(tmp, "w", newline="\n") as f:
        f.write(header + "\n")
        h.update((header + "\n").encode())
        step = 5000
        for k in range(0, X.shape[0], step):
            rows = X[k:k + step].tolist()
            ys = y[k:k + step].tolist()
            text = "".join(",".join(map(repr, r)) + ",%d\n" % yy for r, yy in zip(rows, ys))
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


def config_for(name):
    return {"data": {"csv": name + ".csv", "response": "y", "standardize": True},
            "model": {"likelihood": "bernoulli_logit", "intercept": True, "priors": PRIORS}}


def separable(X, y):
    """Whether some (alpha, beta) puts every point strictly on its side (an LP feasibility test)."""
    from scipy.optimize import linprog
    t = 2.0 * y - 1.0
    A = -(t[:, None] * np.hstack([np.ones((X.shape[0], 1)), X]))
    res = linprog(np.zeros(A.shape[1]), A_ub=A, b_ub=-np.ones(X.shape[0]),
                  bounds=[(None, None)] * A.shape[1], method="highs")
    return bool(res.status == 0)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Write the bayes-vi synthetic validation suite.")
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--list", action="store_true", help="list the datasets and exit")
    ap.add_argument("--only", help="comma-separated dataset names")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--no-optimum", action="store_true", help="skip the reference optima")
    ap.add_argument("--families", default="meanfield,fullrank")
    ap.add_argument("--fullrank-max-p", type=int, default=None,
                    help="skip the fullrank optimum when the parameter count exceeds this")
    ap.add_argument("--force", action="store_true", help="recompute optima that already exist")
    args = ap.parse_args(argv)

    if args.list:
        for s in SUITE:
            d = sum(b[1] for b in s["blocks"])
            print("%-24s N=%-7d D=%-4d %s" % (s["name"], s["n"], d, s["note"]))
        return 0
    if not args.outdir:
        ap.error("OUTDIR is required")
    names = [s["name"] for s in SUITE]
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
                     "generator": "make_datasets.py", "priors": PRIORS})
    manifest.setdefault("datasets", {})

    for name in names:
        spec = BY_NAME[name]
        t0 = time.time()
        X, y, truth = generate(spec, args.seed)
        csv_path = os.path.join(args.outdir, name + ".csv")
        digest = write_csv(csv_path, X, y)
        write_json(os.path.join(args.outdir, name + ".json"), config_for(name))
        entry = {"n": int(X.shape[0]), "d": int(X.shape[1]), "note": spec["note"],
                 "positive_fraction": float(y.mean()), "sha256": digest,
                 "bytes": os.path.getsize(csv_path), "truth": truth}
        if X.shape[0] * X.shape[1] <= 100000:
            entry["linearly_separable"] = separable(X, y)
        print("%-24s N=%-7d D=%-4d positives=%.3f  %.1f MB  (%.1fs)"
              % (name, X.shape[0], X.shape[1], y.mean(), entry["bytes"] / 1e6, time.time() - t0),
              file=sys.stderr)
        old = manifest["datasets"].get(name, {})
        entry["optimum"] = old.get("optimum", {}) if old.get("sha256") == digest else {}
        manifest["datasets"][name] = entry
        write_json(manifest_path, manifest)
        if args.no_optimum:
            continue
        import vi_optimum
        for fam in families:
            P = X.shape[1] + 1
            if fam == "fullrank" and args.fullrank_max_p is not None and P > args.fullrank_max_p:
                print("  fullrank skipped (P=%d > %d)" % (P, args.fullrank_max_p), file=sys.stderr)
                continue
            out_path = os.path.join(args.outdir, "%s.optimum.%s.json" % (name, fam))
            if (os.path.exists(out_path) and not args.force
                    and entry["optimum"].get(fam, {}).get("sha256") == digest):
                print("  %s: up to date" % fam, file=sys.stderr)
                continue
            t1 = time.time()
            res = vi_optimum.solve(os.path.join(args.outdir, name + ".json"), fam)
            write_json(out_path, res)
            dg = res["diagnostics"]
            entry["optimum"][fam] = {"sha256": digest, "elbo": res["elbo"],
                                     "grad_norm": res["grad_norm"], "converged": dg["converged"],
                                     "seconds": round(time.time() - t1, 2)}
            write_json(manifest_path, manifest)
            print("  %-9s elbo %.6f  |grad| %.2e  %s  max logit sd %.2f  quad check %.1e  %.1fs"
                  % (fam, res["elbo"], res["grad_norm"], dg["method"], dg["max_logit_sd"],
                     dg["quadrature_check"]["elbo_fine_minus_elbo"], time.time() - t1),
                  file=sys.stderr)
            if not dg["converged"]:
                print("  WARNING: %s %s did not converge" % (name, fam), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
