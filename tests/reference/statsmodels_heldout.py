"""The Monte Carlo likelihoods on statsmodels' public datasets with their features as recorded
(not standardized): bayes-vi's default fit (vague normal(0, 100) priors on every coefficient,
intercept and cutpoint) against rstan NUTS on the same model and against statsmodels' maximum
likelihood fit. Not run by CI (NUTS takes minutes); its results are in tests/reference/README.md.

    BAYES_VI=build/bayes-vi /usr/bin/python3 tests/reference/statsmodels_heldout.py [CASE ...]

Cases: fair_occupation (categorical_logit, K = 6, 6366 rows), fair_rating (ordinal_logit, the
1-5 marriage rating, 6366 rows), anes96_party (ordinal_logit, the 7-point party identification,
944 rows). Prints, per parameter, bayes-vi's mean and sd against NUTS's (in NUTS sds) and the MLE's
distance (in bayes-vi's sds), and per case the worst of each.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rstan_runner import write_rdump  # noqa: E402

BVI = os.environ.get("BAYES_VI", "build/bayes-vi")
DATASETS = "/usr/lib/python3/dist-packages/statsmodels/datasets"
FAIR = ["age", "yrs_married", "children", "religious", "educ"]
ANES = ["TVnews", "selfLR", "age", "educ", "income"]

CATEGORICAL_STAN = """
data { int N; int K; int D; matrix[N, D] X; int y[N]; }
parameters { vector[K - 1] alpha; matrix[D, K - 1] beta; }
model {
  matrix[N, K - 1] eta = X * beta + rep_matrix(alpha', N);
  alpha ~ normal(0, 100);
  to_vector(beta) ~ normal(0, 100);
  for (n in 1:N) y[n] ~ categorical_logit(append_row(0, eta[n]'));
}
"""
ORDINAL_STAN = """
data { int N; int K; int D; matrix[N, D] X; int y[N]; }
parameters { vector[D] beta; ordered[K - 1] c; }
model { beta ~ normal(0, 100); c ~ normal(0, 100); y ~ ordered_logistic(X * beta, c); }
"""
R_SCRIPT = """
suppressMessages(library(rstan))
if (!file.exists(rstan_options("boost_lib")) && dir.exists("/usr/include/boost"))
  rstan_options(boost_lib = "/usr/include")
data <- new.env()
source("data.R", local = data)
fit <- stan("model.stan", data = as.list(data), chains = 4, cores = 2, iter = 3000, seed = 1, refresh = 0)
s <- summary(fit)$summary
write.csv(s[, c("mean", "sd", "Rhat", "n_eff")], "nuts.csv")
"""


def load(case):
    if case.startswith("fair"):
        d = pd.read_csv(os.path.join(DATASETS, "fair", "fair.csv"))
        return d, FAIR, ("occupation" if case == "fair_occupation" else "rate_marriage")
    d = pd.read_csv(os.path.join(DATASETS, "anes96", "anes96.csv"), sep="\t")
    d.columns = [c.strip("'") for c in d.columns]
    d["PID"] = d["PID"] + 1  # 0..6 -> 1..7
    return d, ANES, "PID"


def bayes_vi(work, d, features, response, likelihood):
    csv = os.path.join(work, "data.csv")
    d[features + [response]].to_csv(csv, index=False)
    vague = {"normal": {"loc": 0, "scale": 100}}
    model = {"likelihood": likelihood, "priors": {"beta": vague}}
    if likelihood == "categorical_logit":
        model["intercept"] = True
        model["priors"]["alpha"] = vague
    else:
        model["priors"]["cutpoints"] = vague
    cfg = {"data": {"csv": csv, "response": response, "features": features}, "model": model,
           "inference": {"seed": 1}}
    path = os.path.join(work, "config.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    p = subprocess.run([BVI, "fit", path, "--quiet"], capture_output=True, text=True, check=True)
    s = json.loads(p.stdout)
    return s, [q["name"] for q in s["parameters"]]


def nuts(work, d, features, response, likelihood):
    y = d[response].astype(int).values
    write_rdump(os.path.join(work, "data.R"), {"N": len(y), "K": int(y.max()), "D": len(features),
                                               "X": d[features].values.astype(float), "y": y})
    with open(os.path.join(work, "model.stan"), "w") as f:
        f.write(CATEGORICAL_STAN if likelihood == "categorical_logit" else ORDINAL_STAN)
    with open(os.path.join(work, "run.R"), "w") as f:
        f.write(R_SCRIPT)
    subprocess.run(["Rscript", "run.R"], cwd=work, check=True, capture_output=True)
    t = pd.read_csv(os.path.join(work, "nuts.csv"), index_col=0)
    if likelihood == "categorical_logit":  # Stan: alpha[k], beta[j,k]; bayes-vi: alpha.(k+1), beta.(k+1).j
        rename = {"alpha[%d]" % k: "alpha.%d" % (k + 1) for k in range(1, y.max())}
        rename.update({"beta[%d,%d]" % (j, k): "beta.%d.%d" % (k + 1, j)
                       for j in range(1, len(features) + 1) for k in range(1, y.max())})
    else:
        rename = {"beta[%d]" % j: "beta.%d" % j for j in range(1, len(features) + 1)}
        rename.update({"c[%d]" % k: "cutpoints.%d" % k for k in range(1, y.max())})
    return t.rename(index=rename)


def mle(d, features, response, likelihood):
    import statsmodels.api as sm
    from statsmodels.miscmodels.ordinal_model import OrderedModel
    y = d[response].astype(int)
    if likelihood == "categorical_logit":
        m = sm.MNLogit(y, sm.add_constant(d[features])).fit(method="newton", disp=False, maxiter=200)
        out = {}
        for k in range(m.params.shape[1]):
            out["alpha.%d" % (k + 2)] = m.params.values[0, k]
            for j in range(len(features)):
                out["beta.%d.%d" % (k + 2, j + 1)] = m.params.values[j + 1, k]
        return out
    m = OrderedModel(y, d[features], distr="logit").fit(method="bfgs", disp=False, maxiter=5000)
    th = m.params.values[len(features):]
    cut = np.cumsum(np.r_[th[0], np.exp(th[1:])])
    out = {"beta.%d" % (j + 1): m.params.values[j] for j in range(len(features))}
    out.update({"cutpoints.%d" % (k + 1): v for k, v in enumerate(cut)})
    return out


def main():
    cases = sys.argv[1:] or ["fair_occupation", "fair_rating", "anes96_party"]
    for case in cases:
        d, features, response = load(case)
        likelihood = "categorical_logit" if case == "fair_occupation" else "ordinal_logit"
        with tempfile.TemporaryDirectory() as work:
            s, names = bayes_vi(work, d, features, response, likelihood)
            ref = nuts(work, d, features, response, likelihood)
        ml = mle(d, features, response, likelihood)
        params = {q["name"]: q for q in s["parameters"]}
        print("== %s: %s, %d rows, %s, %d steps, converged %s, k-hat %.2f"
              % (case, likelihood, len(d), s["algorithm"], s["iterations"], s["converged"], s["pareto_k"]))
        worst_z = worst_sd = worst_ml = 0.0
        for n in names:
            q, r = params[n], ref.loc[n]
            z = (q["mean"] - r["mean"]) / r["sd"]
            ratio = q["sd"] / r["sd"]
            zm = (q["mean"] - ml[n]) / q["sd"]
            worst_z, worst_sd, worst_ml = max(worst_z, abs(z)), max(worst_sd, abs(ratio - 1)), max(worst_ml, abs(zm))
            print("%-12s %10.5f (%.5f)  NUTS %10.5f (%.5f, R-hat %.3f)  %+.3f sd, sd x %.3f; MLE %+.3f sd"
                  % (n, q["mean"], q["sd"], r["mean"], r["sd"], r["Rhat"], z, ratio, zm))
        print("worst: %.3f NUTS sd, sds within %.1f %%, %.3f sd from the MLE" % (worst_z, 100 * worst_sd, worst_ml))


if __name__ == "__main__":
    main()
