"""categorical_logit against statsmodels' MNLogit (the frequentist target: with vague priors
on many rows the posterior means within ~0.05 posterior sd of the maximum likelihood estimates, and
the posterior sds near the MLE's standard errors). Simulates N rows (x ~ N(0, 1), 3 features,
K = 4 categories, category 1 the reference, an intercept and coefficient vector per other
category), fits them with bayes-vi (vague priors: alpha, beta ~ normal(0, 100); the Monte Carlo
method with `algorithm` as given, default auto = fullrank; a fixed seed) and with MNLogit (Newton),
and prints each parameter's |mean - MLE| / sd and sd / se. Not run in the suite; its results are in
tests/reference/README.md.

    BAYES_VI=build/bayes-vi /usr/bin/python3 tests/reference/categorical_statsmodels.py [N] [algorithm]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy import special
import statsmodels.api as sm

N = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
ALGORITHM = sys.argv[2] if len(sys.argv) > 2 else "auto"
ALPHA = np.array([0.3, -0.5, 0.8])               # categories 2, 3, 4
BETA = np.array([[0.8, -0.5, 0.3],               # category 2: x1, x2, x3
                 [-0.6, 0.4, 0.0],
                 [0.2, 0.9, -0.7]])
BVI = os.environ.get("BAYES_VI", "build/bayes-vi")


def main():
    rng = np.random.default_rng(19)
    D, K = BETA.shape[1], len(ALPHA) + 1
    x = rng.standard_normal((N, D))
    logits = np.column_stack([np.zeros(N), ALPHA[None, :] + x @ BETA.T])
    cum = np.cumsum(special.softmax(logits, axis=1), axis=1)
    y = 1 + (rng.random(N)[:, None] > cum[:, :-1]).sum(axis=1)
    names = ["x%d" % (j + 1) for j in range(D)]
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "categorical.csv")
        np.savetxt(csv, np.column_stack([x, y]), delimiter=",", header=",".join(names + ["y"]), comments="",
                   fmt=["%.17g"] * D + ["%d"])
        cfg = {"data": {"csv": csv, "response": "y"},
               "model": {"likelihood": "categorical_logit", "intercept": True,
                         "priors": {"alpha": {"normal": {"loc": 0, "scale": 100}},
                                    "beta": {"normal": {"loc": 0, "scale": 100}}}},
               "inference": {"seed": 7, "algorithm": ALGORITHM}}
        path = os.path.join(tmp, "config.json")
        with open(path, "w") as f:
            json.dump(cfg, f)
        t0 = time.time()
        p = subprocess.run([BVI, "fit", path, "--quiet", "--threads", "1"], capture_output=True, text=True,
                           check=True)
        t_bvi = time.time() - t0
    s = json.loads(p.stdout)
    got = {q["name"]: q for q in s["parameters"]}
    t0 = time.time()
    res = sm.MNLogit(y, sm.add_constant(x)).fit(method="newton", disp=False, maxiter=100)
    t_sm = time.time() - t0
    params, se = np.asarray(res.params), np.asarray(res.bse)  # (D + 1) x (K - 1), category 1 the base
    est = {}
    for c in range(K - 1):
        k = c + 2
        est["alpha.%d" % k] = (params[0, c], se[0, c])
        for j in range(D):
            est["beta.%d.%d" % (k, j + 1)] = (params[j + 1, c], se[j + 1, c])
    print("N = %d, %s: bayes-vi %.1f s (%s, %d iterations, converged %s), statsmodels %.2f s"
          % (N, ALGORITHM, t_bvi, s["algorithm"], s["iterations"], s["converged"], t_sm))
    worst, ratios = 0.0, []
    for name, (value, sd_mle) in est.items():
        z = abs(got[name]["mean"] - value) / got[name]["sd"]
        worst = max(worst, z)
        ratios.append(got[name]["sd"] / sd_mle)
        print("  %-10s mean %8.5f sd %.5f  MLE %8.5f se %.5f  |diff|/sd %.3f  sd/se %.3f"
              % (name, got[name]["mean"], got[name]["sd"], value, sd_mle, z, ratios[-1]))
    print("worst |mean - MLE| / sd: %.3f; sd / se from %.3f to %.3f" % (worst, min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
