#!/usr/bin/python3
"""Time to the posterior, whole process, bayes-vi's beta_logit against statsmodels' BetaModel.

    /usr/bin/python3 bench/beta_time.py [--bayes-vi build/bayes-vi ...] [--rows 100000] [--features 20]
        [--phi 6] [--coef-sd 0.2] [--repeats 3] [--threads 1] [--extra '{"output_draws": 100}']

Simulates the data once with numpy (seed 19): x ~ N(0, 1), beta ~ N(0, coef_sd^2), alpha = 0.5,
y ~ Beta(mu phi, (1 - mu) phi) with mu = expit(alpha + x.beta). Moderate coefficients on purpose:
`bayes-vi simulate`'s beta ~ N(0, 1) over 20 features puts eta's sd near 4.5, many y within 1e-16
of 0 or 1, and statsmodels' BetaModel then stops with "SVD did not converge". Then times in
alternating order, --repeats times each:

* statsmodels: `python3 -c` starting the interpreter, importing pandas and statsmodels, reading the
  CSV with pandas.read_csv, BetaModel(y, add_constant(X)).fit() (its defaults: BFGS from its own
  start values, logit mean, log precision) and the standard errors;
* bayes-vi (each --bayes-vi given, e.g. a build before and after a change, in the same rounds):
  `bayes-vi fit CONFIG --threads T --quiet` with the default settings (exact, fullrank, 1000
  output draws; the summary to a pipe), vague priors normal(0, 10) on alpha and beta and the
  default gamma(0.01, 0.01) on phi.

Prints each median wall time, the ratio to statsmodels' in the same rounds, the iterations, and the
largest |posterior mean - statsmodels' estimate| / posterior sd over alpha, beta and phi.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np

STATSMODELS = r"""
import sys, json
import numpy as np
import pandas as pd
import statsmodels.api as sm
from statsmodels.othermod.betareg import BetaModel
df = pd.read_csv(sys.argv[1], float_precision="round_trip")
y = df.pop("y").to_numpy()
X = sm.add_constant(df.to_numpy())
res = BetaModel(y, X).fit()
se = res.bse
p = np.asarray(res.params)
print(json.dumps({"est": [float(v) for v in p[:-1]] + [float(np.exp(p[-1]))], "converged": bool(res.mle_retvals["converged"])}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bayes-vi", action="append", dest="binaries", help="a bayes-vi binary (repeatable)")
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--phi", type=float, default=6.0)
    ap.add_argument("--coef-sd", type=float, default=0.2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--extra", default="{}", help="JSON merged into /inference")
    args = ap.parse_args()
    binaries = args.binaries or ["build/bayes-vi"]
    rng = np.random.default_rng(19)
    n, d = args.rows, args.features
    x = rng.standard_normal((n, d))
    beta = rng.normal(0.0, args.coef_sd, d)
    mu = 1.0 / (1.0 + np.exp(-(0.5 + x @ beta)))
    y = rng.beta(mu * args.phi, (1.0 - mu) * args.phi)
    y = np.clip(y, np.finfo(float).tiny, np.nextafter(1.0, 0.0))
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "d.csv")
        header = ",".join(["y"] + ["x%d" % (j + 1) for j in range(d)])
        np.savetxt(csv, np.column_stack([y, x]), delimiter=",", fmt="%.17g", header=header, comments="")
        priors = {"alpha": {"normal": {"loc": 0, "scale": 10}}, "beta": {"normal": {"loc": 0, "scale": 10}}}
        cfg = {"data": {"csv": csv, "response": "y"},
               "model": {"likelihood": "beta_logit", "intercept": True, "priors": priors},
               "inference": dict({"seed": 7}, **json.loads(args.extra))}
        path = os.path.join(tmp, "c.json")
        with open(path, "w") as f:
            json.dump(cfg, f)
        t_sm, t_bvi = [], {b: [] for b in binaries}
        sm_out, bvi_out = None, {}
        for _ in range(args.repeats):
            t0 = time.time()
            p = subprocess.run(["/usr/bin/python3", "-c", STATSMODELS, csv], capture_output=True, text=True,
                               check=True)
            t_sm.append(time.time() - t0)
            sm_out = json.loads(p.stdout)
            for b in binaries:
                t0 = time.time()
                p = subprocess.run([b, "fit", path, "--quiet", "--threads", str(args.threads)],
                                   capture_output=True, text=True, check=True)
                t_bvi[b].append(time.time() - t0)
                bvi_out[b] = json.loads(p.stdout)
    s = statistics.median(t_sm)
    print("beta_logit %d x %d (phi %g, coefficient sd %g): statsmodels BetaModel %.2f s (runs %s; converged %s)" % (
        n, d, args.phi, args.coef_sd, s, ", ".join("%.2f" % t for t in t_sm), sm_out["converged"]))
    for b in binaries:
        out = bvi_out[b]
        m = statistics.median(t_bvi[b])
        params = [q for q in out["parameters"] if q["name"] == "alpha" or q["name"].startswith("beta.")]
        params += [q for q in out["parameters"] if q["name"] == "phi"]
        worst = max(abs(q["mean"] - e) / q["sd"] for q, e in zip(params, sm_out["est"]))
        print("  %s: %.2f s (runs %s), ratio %.2f; %s, %d iterations; largest |mean - statsmodels| / sd %.4f over %d" % (
            b, m, ", ".join("%.2f" % t for t in t_bvi[b]), m / s, out.get("algorithm", "?"), out.get("iterations", -1),
            worst, len(params)))


if __name__ == "__main__":
    main()
