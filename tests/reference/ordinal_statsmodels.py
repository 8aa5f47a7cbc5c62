"""ordinal_logit / ordinal_probit against statsmodels' OrderedModel (the frequentist target:
with vague priors on 10^5 rows the posterior means within 0.05 posterior sd of the maximum
likelihood estimates). Simulates N rows (x ~ N(0, 1), 5 features, K = 5, cutpoints
(-2, -0.7, 0.4, 1.8)), fits them with bayes-vi (vague priors: beta ~ normal(0, 100), cutpoints ~
normal(0, 100); the default Monte Carlo settings and a fixed seed) and with OrderedModel (BFGS),
and prints each parameter's |mean - MLE| / sd. Not run in the suite (a long run); its results are
in tests/reference/README.md.

    BAYES_VI=build/bayes-vi /usr/bin/python3 tests/reference/ordinal_statsmodels.py [N] [logit|probit]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from statsmodels.miscmodels.ordinal_model import OrderedModel

N = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
LINK = sys.argv[2] if len(sys.argv) > 2 else "logit"
BETA = np.array([0.8, -0.5, 0.3, 0.0, 1.1])
CUT = np.array([-2.0, -0.7, 0.4, 1.8])
BVI = os.environ.get("BAYES_VI", "build/bayes-vi")


def main():
    rng = np.random.default_rng(19)
    x = rng.standard_normal((N, len(BETA)))
    noise = rng.logistic(size=N) if LINK == "logit" else rng.standard_normal(N)
    y = 1 + ((x @ BETA + noise)[:, None] > CUT[None, :]).sum(axis=1)
    names = ["x%d" % (j + 1) for j in range(len(BETA))]
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "ordinal.csv")
        np.savetxt(csv, np.column_stack([x, y]), delimiter=",", header=",".join(names + ["y"]), comments="",
                   fmt=["%.17g"] * len(BETA) + ["%d"])
        cfg = {"data": {"csv": csv, "response": "y"},
               "model": {"likelihood": "ordinal_" + LINK,
                         "priors": {"beta": {"normal": {"loc": 0, "scale": 100}},
                                    "cutpoints": {"normal": {"loc": 0, "scale": 100}}}},
               "inference": {"seed": 7}}
        path = os.path.join(tmp, "config.json")
        with open(path, "w") as f:
            json.dump(cfg, f)
        t0 = time.time()
        p = subprocess.run([BVI, "fit", path, "--quiet"], capture_output=True, text=True, check=True)
        t_bvi = time.time() - t0
    s = json.loads(p.stdout)
    got = {q["name"]: q for q in s["parameters"]}
    t0 = time.time()
    model = OrderedModel(y, x, distr=LINK)
    res = model.fit(method="bfgs", disp=False, maxiter=2000)
    t_sm = time.time() - t0
    est = dict(zip(["beta.%d" % (j + 1) for j in range(len(BETA))], res.params[:len(BETA)]))
    thresholds = model.transform_threshold_params(res.params)[1:-1]
    est.update({"cutpoints.%d" % (k + 1): v for k, v in enumerate(thresholds)})
    print("N = %d, %s: bayes-vi %.1f s (%d iterations, converged %s), statsmodels %.1f s"
          % (N, LINK, t_bvi, s["iterations"], s["converged"], t_sm))
    worst = 0.0
    for name, value in est.items():
        z = abs(got[name]["mean"] - value) / got[name]["sd"]
        worst = max(worst, z)
        print("  %-12s mean %.5f sd %.5f  MLE %.5f  |diff|/sd %.3f"
              % (name, got[name]["mean"], got[name]["sd"], value, z))
    print("worst |mean - MLE| / sd: %.3f" % worst)


if __name__ == "__main__":
    main()
