#!/usr/bin/python3
"""Time to the posterior, whole process, bayes-vi's ordinal_logit / ordinal_probit (or beta_logit,
student_t, categorical_logit) against statsmodels (OrderedModel, BFGS; BetaModel; TLinearModel,
BFGS; MNLogit, Newton).

    /usr/bin/python3 bench/ordinal_time.py [--build build | --bayes-vi OLD --bayes-vi NEW] [--rows 20000] [--features 5]
        [--likelihood ordinal_logit] [--levels 5] [--repeats 3] [--threads 1] [--extra '{"output_draws": 100}']

Simulates the data once (`bayes-vi simulate`, x ~ N(0, 1), beta ~ N(0, 1); ordinal: K = --levels
with cutpoints F^-1(k/K)), then times in alternating order, --repeats times each:

* statsmodels: `python3 -c` starting the interpreter, importing pandas and statsmodels, reading the
  CSV with pandas.read_csv, fitting OrderedModel(y, X, distr).fit(method="bfgs") (BetaModel(y,
  X).fit() for beta_logit; TLinearModel(y, X).fit(method="bfgs"), beta, nu and sigma all estimated,
  for student_t; MNLogit(y, X).fit() for categorical_logit, category 1 the reference as in
  bayes-vi) and taking the standard errors;
* bayes-vi: `bayes-vi fit CONFIG --threads T --quiet` with the default settings (summary to a pipe),
  vague priors normal(0, 10) on beta (and the cutpoints).

Prints the median wall time of each, their ratio (with several binaries, the largest difference of
posterior means from the last one, in its sds), bayes-vi's iterations and the largest
|posterior mean - statsmodels' estimate| / posterior sd.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time

import numpy as np

STATSMODELS = r"""
import sys, json
import pandas as pd
lik = sys.argv[2]
df = pd.read_csv(sys.argv[1], float_precision="round_trip")  # the default parser reads 0.99999999999999989 as 1
y = df.pop("y").to_numpy()
X = df.to_numpy()
if lik.startswith("ordinal"):
    from statsmodels.miscmodels.ordinal_model import OrderedModel
    m = OrderedModel(y.astype(int), X, distr="logit" if lik == "ordinal_logit" else "probit")
    res = m.fit(method="bfgs", disp=False, maxiter=2000)
    D = X.shape[1]
    est = list(res.params[:D]) + list(m.transform_threshold_params(res.params)[1:-1])
elif lik == "student_t":
    from statsmodels.miscmodels.tmodel import TLinearModel
    res = TLinearModel(y, X).fit(method="bfgs", disp=False, maxiter=2000)
    est = list(res.params[:X.shape[1]])
elif lik == "categorical_logit":
    import statsmodels.api as sm
    res = sm.MNLogit(y.astype(int), X).fit(disp=False)
    est = list(res.params.to_numpy().ravel() if hasattr(res.params, "to_numpy") else res.params.ravel())
else:
    import statsmodels.api as sm
    from statsmodels.othermod.betareg import BetaModel
    res = BetaModel(y, X).fit(disp=False)
    est = list(res.params[:-1])
se = res.bse.tolist()
print(json.dumps({"est": [float(v) for v in est]}))
"""


def cpu_children():
    """User + system CPU seconds of the finished children so far (wall times on a loaded machine vary)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--bayes-vi", action="append", dest="binaries",
                    help="time this bayes-vi binary instead of BUILD/bayes-vi (repeatable: e.g. before and after a change, in the same rounds)")
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--features", type=int, default=5)
    ap.add_argument("--likelihood", default="ordinal_logit")
    ap.add_argument("--levels", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--extra", default="{}", help="JSON merged into /inference")
    ap.add_argument("--skip-statsmodels", action="store_true")
    args = ap.parse_args()
    binaries = args.binaries or [os.path.join(args.build, "bayes-vi")]
    bvi = binaries[-1]
    ordinal = args.likelihood.startswith("ordinal")
    levels = ordinal or args.likelihood == "categorical_logit"
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "d.csv")
        cmd = [bvi, "simulate", "--rows", str(args.rows), "--features", str(args.features), "--seed", "19",
               "--likelihood", args.likelihood, "--output", csv, "--threads", str(args.threads)]
        if levels:
            cmd += ["--levels", str(args.levels)]
        subprocess.run(cmd, check=True)
        priors = {"beta": {"normal": {"loc": 0, "scale": 10}}}
        if ordinal:
            priors["cutpoints"] = {"normal": {"loc": 0, "scale": 10}}
        cfg = {"data": {"csv": csv, "response": "y"},
               "model": {"likelihood": args.likelihood, "intercept": False, "priors": priors},
               "inference": dict({"seed": 7}, **json.loads(args.extra))}
        path = os.path.join(tmp, "c.json")
        with open(path, "w") as f:
            json.dump(cfg, f)
        t_sm, t_all, outs = [], {b: [] for b in binaries}, {}
        cpu_all, cpu_sm = {b: [] for b in binaries}, []
        sm_out = bvi_out = None
        for _ in range(args.repeats):
            if not args.skip_statsmodels:
                t0, c0 = time.time(), cpu_children()
                p = subprocess.run(["/usr/bin/python3", "-c", STATSMODELS, csv, args.likelihood],
                                   capture_output=True, text=True, check=True)
                t_sm.append(time.time() - t0)
                cpu_sm.append(cpu_children() - c0)
                sm_out = json.loads(p.stdout)
            for exe in binaries:
                t0, c0 = time.time(), cpu_children()
                p = subprocess.run([exe, "fit", path, "--quiet", "--threads", str(args.threads)],
                                   capture_output=True, text=True, check=True)
                t_all[exe].append(time.time() - t0)
                cpu_all[exe].append(cpu_children() - c0)
                bvi_out = outs[exe] = json.loads(p.stdout)
    for exe in binaries[:-1]:
        t = t_all[exe]
        line = "  %s: %.2f s (runs %s; CPU %.2f s)" % (exe, statistics.median(t), ", ".join("%.2f" % v for v in t),
                                                  statistics.median(cpu_all[exe]))
        if t_sm:
            line += ", ratio %.2f" % (statistics.median(t) / statistics.median(t_sm))
        # The same posterior? The largest difference of means from the last binary's, in its sds.
        mine = {q["name"]: q for q in outs[exe]["parameters"]}
        diff = max(abs(q["mean"] - mine[q["name"]]["mean"]) / q["sd"] for q in outs[bvi]["parameters"])
        line += "; means within %.2g sd of the last binary's" % diff
        print(line)
    t_bvi = t_all[bvi]
    b = statistics.median(t_bvi)
    line = "%s %d x %d: bayes-vi %.2f s (runs %s; CPU %.2f s; %s, %d iterations)" % (
        args.likelihood, args.rows, args.features, b, ", ".join("%.2f" % t for t in t_bvi), statistics.median(cpu_all[bvi]),
        bvi_out.get("algorithm", "?"), bvi_out.get("iterations", -1))
    if t_sm:
        s = statistics.median(t_sm)
        line += ", statsmodels %.2f s (runs %s; CPU %.2f s), ratio %.2f" % (
            s, ", ".join("%.2f" % t for t in t_sm), statistics.median(cpu_sm), b / s)
    print(line)
    if sm_out:
        for exe in binaries:  # each binary's last fit
            params = [q for q in outs[exe]["parameters"] if q["name"].startswith(("beta.", "cutpoints."))]
            worst = max(abs(q["mean"] - e) / q["sd"] for q, e in zip(params, sm_out["est"]))
            print("%s: largest |mean - statsmodels| / sd: %.4f over %d parameters (%d iterations)"
                  % (exe, worst, len(params), outs[exe].get("iterations", -1)))


if __name__ == "__main__":
    main()
