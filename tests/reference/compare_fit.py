#!/usr/bin/python3
"""Compare a bayes-vi fit with the reference optimum of its variational family.

    compare_fit.py SUMMARY.json OPTIMUM.json [--mean-bound 0.1] [--sd-bound 0.10] [--json]

SUMMARY.json is bayes-vi's summary document (stdout of `bayes-vi fit`, or DIR/summary.json);
"-" reads it from stdin. OPTIMUM.json is vi_optimum.py's output for the same config and family.

Reports, over all parameters,
    mean error  max |mean - ref mean| / ref sd       (bound 0.1)
    sd error    max |sd / ref sd - 1|                (bound 0.10)
A constrained parameter (the optimum's row has "scale": "unconstrained" and a "transform") is
compared on the unconstrained scale, where q is Gaussian: the summary's constrained quantiles are
exact (the transform is monotone), so q's mean is T^-1(q50) and its sd is
(T^-1(q95) - T^-1(q05)) / (2 z_0.95); the summary's mean and sd of a constrained parameter are
Monte Carlo averages and are not used. Without quantiles it falls back to the constrained mean
and sd against the optimum's "constrained" block.

and the ELBO difference (summary elbo - reference elbo, with the summary's elbo_se when given;
the reference is the family's maximum, so a difference well above a few elbo_se is suspicious;
it is reported but not bounded).

Exit status: 0 within both bounds, 1 over a bound, 2 on unusable input (unreadable file,
parameter sets that differ, family mismatch, non-finite numbers, unconverged reference).
"""

import argparse
import json
import math
import sys

Z95 = 1.6448536269514722   # Phi^-1(0.95)


class InputError(Exception):
    pass


def load(path, what):
    try:
        if path == "-":
            return json.load(sys.stdin)
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError("%s %s: %s" % (what, path, e))


def params_by_name(doc, what):
    ps = doc.get("parameters") if isinstance(doc, dict) else None
    if not isinstance(ps, list) or not ps:
        raise InputError("%s: no 'parameters' array" % what)
    out = {}
    for p in ps:
        try:
            name, mean, sd = p["name"], float(p["mean"]), float(p["sd"])
        except (KeyError, TypeError, ValueError):
            raise InputError("%s: each parameter needs name, mean, sd" % what)
        if not (math.isfinite(mean) and math.isfinite(sd)):
            raise InputError("%s: %s has a non-finite mean or sd" % (what, name))
        if name in out:
            raise InputError("%s: parameter %s appears twice" % (what, name))
        out[name] = (mean, sd)
    return out, [p["name"] for p in ps]


def inverse_transform(tr, x):
    """zeta = T^-1(x) for vi_optimum's transform record {kind, lower, upper}."""
    kind, lo, up = tr.get("kind"), float(tr.get("lower", 0.0)), float(tr.get("upper", 0.0))
    try:
        if kind == "lower":
            return math.log(x - lo)
        if kind == "upper":
            return math.log(up - x)
        if kind == "interval":
            p = (x - lo) / (up - lo)
            return math.log(p) - math.log1p(-p)
    except (ValueError, ZeroDivisionError):
        raise InputError("summary quantile %r outside the transform's range %r" % (x, tr))
    raise InputError("optimum: unknown transform %r" % (tr,))


def unconstrained_moments(row, ref_row):
    """(mean, sd, how) of a summary row on the scale of the optimum's row."""
    if ref_row.get("scale") != "unconstrained":
        return float(row["mean"]), float(row["sd"]), "mean/sd"
    tr = ref_row.get("transform")
    if not isinstance(tr, dict):
        raise InputError("optimum: %s has no transform record" % ref_row["name"])
    if all(isinstance(row.get(k), (int, float)) for k in ("q05", "q50", "q95")):
        lo, mid, hi = (inverse_transform(tr, float(row[k])) for k in ("q05", "q50", "q95"))
        return mid, abs(hi - lo) / (2.0 * Z95), "quantiles"
    return None


def compare(summary, optimum, mean_bound=0.1, sd_bound=0.10):
    fit, _ = params_by_name(summary, "summary")
    ref, order = params_by_name(optimum, "optimum")
    fit_rows = {p["name"]: p for p in summary["parameters"]}
    ref_rows = {p["name"]: p for p in optimum["parameters"]}
    if set(fit) != set(ref):
        raise InputError("parameter names differ: only in summary %s, only in optimum %s"
                         % (sorted(set(fit) - set(ref)), sorted(set(ref) - set(fit))))
    diag = optimum.get("diagnostics") if isinstance(optimum, dict) else None
    if isinstance(diag, dict) and diag.get("converged") is False:
        raise InputError("optimum: the reference did not converge (grad_norm %r)"
                         % optimum.get("grad_norm"))
    algo, fam = summary.get("algorithm"), optimum.get("family")
    if algo is not None and fam is not None and algo != fam:
        raise InputError("summary algorithm %r but optimum family %r" % (algo, fam))
    rows = []
    for name in order:
        rm, rs = ref[name]
        got = unconstrained_moments(fit_rows[name], ref_rows[name])
        if got is None:                      # constrained, no quantiles: constrained moments
            c = ref_rows[name].get("constrained") or {}
            try:
                rm, rs = float(c["mean"]), float(c["sd"])
            except (KeyError, TypeError, ValueError):
                raise InputError("optimum: %s has no constrained mean/sd" % name)
            (m, s), how = fit[name], "constrained mean/sd"
        else:
            m, s, how = got
        if not rs > 0:
            raise InputError("optimum: %s has sd %r" % (name, rs))
        rows.append({"name": name, "mean": m, "ref_mean": rm, "sd": s, "ref_sd": rs,
                     "mean_err": abs(m - rm) / rs, "sd_err": abs(s / rs - 1.0), "compared": how})
    worst_m = max(rows, key=lambda r: r["mean_err"])
    worst_s = max(rows, key=lambda r: r["sd_err"])
    res = {
        "parameters": len(rows),
        "max_mean_err": worst_m["mean_err"], "max_mean_err_param": worst_m["name"],
        "max_sd_err": worst_s["sd_err"], "max_sd_err_param": worst_s["name"],
        "mean_bound": mean_bound, "sd_bound": sd_bound,
        "ok": worst_m["mean_err"] <= mean_bound and worst_s["sd_err"] <= sd_bound,
        "rows": rows,
    }
    if isinstance(summary.get("elbo"), (int, float)) and isinstance(optimum.get("elbo"), (int, float)):
        res["elbo"] = summary["elbo"]
        res["ref_elbo"] = optimum["elbo"]
        res["elbo_diff"] = summary["elbo"] - optimum["elbo"]
        se = summary.get("elbo_se")
        if isinstance(se, (int, float)) and se > 0:
            res["elbo_se"] = se
            res["elbo_diff_in_se"] = res["elbo_diff"] / se
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description="Compare a bayes-vi summary with a reference optimum.")
    ap.add_argument("summary", help="bayes-vi summary JSON ('-' for stdin)")
    ap.add_argument("optimum", help="vi_optimum.py output")
    ap.add_argument("--mean-bound", type=float, default=0.1)
    ap.add_argument("--sd-bound", type=float, default=0.10)
    ap.add_argument("--json", action="store_true", help="print the comparison as JSON")
    ap.add_argument("--all", action="store_true", help="print every parameter, not just the worst")
    args = ap.parse_args(argv)
    try:
        res = compare(load(args.summary, "summary"), load(args.optimum, "optimum"),
                      args.mean_bound, args.sd_bound)
    except InputError as e:
        print("compare_fit: error: %s" % e, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(res, indent=1))
    else:
        if args.all:
            print("%-10s %14s %14s %10s %10s %10s %9s"
                  % ("param", "mean", "ref mean", "sd", "ref sd", "|dm|/sd", "sd ratio-1"))
            for r in res["rows"]:
                print("%-10s %14.6g %14.6g %10.4g %10.4g %10.4f %+9.4f"
                      % (r["name"], r["mean"], r["ref_mean"], r["sd"], r["ref_sd"], r["mean_err"],
                         r["sd"] / r["ref_sd"] - 1.0))
        flag = lambda v, b: "ok" if v <= b else "OVER"
        print("max |mean - ref| / ref sd = %.4f  (%s; bound %g)  %s"
              % (res["max_mean_err"], res["max_mean_err_param"], args.mean_bound,
                 flag(res["max_mean_err"], args.mean_bound)))
        print("max |sd / ref sd - 1|     = %.4f  (%s; bound %g)  %s"
              % (res["max_sd_err"], res["max_sd_err_param"], args.sd_bound,
                 flag(res["max_sd_err"], args.sd_bound)))
        if "elbo_diff" in res:
            extra = ("  (%.1f elbo_se)" % res["elbo_diff_in_se"]) if "elbo_diff_in_se" in res else ""
            print("elbo - ref elbo           = %+.4f  (fit %.4f, ref %.4f)%s"
                  % (res["elbo_diff"], res["elbo"], res["ref_elbo"], extra))
        print("PASS" if res["ok"] else "FAIL")
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
