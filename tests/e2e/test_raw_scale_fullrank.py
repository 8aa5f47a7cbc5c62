"""The Monte Carlo method's fullrank fit on a raw-scale design, as users pass one: features as
recorded (an age near 32, years married near 9 and correlated with it, schooling near 14, not
standardized) beside the intercept, and a rare reference category, as in statsmodels' `fair` data
(occupation ~ age + ...). The posterior is then strongly correlated (the intercepts with the age
coefficients, every category's intercept with the others' through the rare reference: the
covariance's condition number is 3e7), and on 5000 rows it is close to Gaussian, so the fit's sds
must be the Laplace approximation's and its means near the mode, computed here in numpy (Newton
on the softmax log posterior, independently of bayes-vi).

The natural step's curvature estimate was once symmetrized in place (m = (m + m^T) / 2 read
entries it had overwritten), which on this design fed the estimate's antisymmetric part, ~1e6 along
the flat direction, into q's precision: sds came out 0.4 of the Laplace ones and the run did not
converge. Under a CPU-second."""
import json
import os
import tempfile
import unittest

import numpy as np

from bvi_test import BinaryTestCase, run

ROWS, LEVELS, PRIOR_SD = 5000, 4, 100.0
FEATURES = ["age", "years", "school"]


def simulate(seed=7):
    rng = np.random.default_rng(seed)
    age = rng.normal(32.0, 7.0, ROWS)
    years = np.clip(0.8 * (age - 20.0) + rng.normal(0.0, 3.0, ROWS), 0.5, None)
    school = np.round(rng.normal(14.0, 2.2, ROWS))
    X = np.column_stack([np.ones(ROWS), age, years, school])
    # Category 1 (the reference) rare: its logit sits ~4 below the others'.
    B = np.array([[4.0, 3.0, 2.5],
                  [0.02, 0.03, 0.01],
                  [-0.01, 0.0, 0.02],
                  [-0.05, 0.05, 0.1]])
    eta = np.hstack([np.zeros((ROWS, 1)), X @ B])
    p = np.exp(eta - eta.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    u = rng.random(ROWS)
    y = 1 + (u[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    return X, np.minimum(y, LEVELS)


def laplace(X, y):
    """Mode and covariance of the log posterior in B (columns: categories 2..K), N(0, PRIOR_SD^2)
    priors on every coefficient."""
    N, D = X.shape
    K1 = LEVELS - 1
    Y = np.zeros((N, LEVELS))
    Y[np.arange(N), y - 1] = 1.0
    B = np.zeros((D, K1))

    def parts(B):
        eta = np.hstack([np.zeros((N, 1)), X @ B])
        p = np.exp(eta - eta.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        g = X.T @ (Y - p)[:, 1:] - B / PRIOR_SD ** 2
        H = np.zeros((D * K1, D * K1))
        for a in range(K1):
            for b in range(K1):
                w = p[:, a + 1] * ((a == b) - p[:, b + 1])
                H[a * D:(a + 1) * D, b * D:(b + 1) * D] = -(X.T * w) @ X
        return g, H - np.eye(D * K1) / PRIOR_SD ** 2

    for _ in range(100):
        g, H = parts(B)
        step = np.linalg.solve(H, -g.T.ravel())  # category-major: (k, j) at k D + j
        B += step.reshape(K1, D).T
        if np.abs(step).max() < 1e-12:
            break
    g, H = parts(B)
    return B, np.linalg.inv(-H)


class RawScaleFullrank(BinaryTestCase):
    def test_categorical_raw_features_match_laplace(self):
        X, y = simulate()
        self.assertGreater((y == 1).sum(), 20)
        self.assertLess((y == 1).mean(), 0.05)
        mode, cov = laplace(X, y)
        sd = np.sqrt(np.diag(cov))
        with tempfile.TemporaryDirectory() as tmp:
            csv = os.path.join(tmp, "d.csv")
            with open(csv, "w") as f:
                f.write(",".join(FEATURES + ["y"]) + "\n")
                for i in range(ROWS):
                    f.write("%r,%r,%r,%d\n" % (X[i, 1], X[i, 2], X[i, 3], y[i]))
            cfg = {"data": {"csv": csv, "response": "y", "features": FEATURES},
                   "model": {"likelihood": "categorical_logit", "intercept": True,
                             "priors": {"alpha": {"normal": {"loc": 0, "scale": PRIOR_SD}},
                                        "beta": {"normal": {"loc": 0, "scale": PRIOR_SD}}}},
                   "inference": {"seed": 1}}
            path = os.path.join(tmp, "c.json")
            with open(path, "w") as f:
                json.dump(cfg, f)
            p = run(["fit", path, "--output", os.path.join(tmp, "fit"), "--threads", "2"])
            self.assertEqual(p.returncode, 0, p.stderr)
            summary = json.loads(p.stdout)
        self.assertEqual(summary["algorithm"], "fullrank")
        self.assertTrue(summary["converged"], summary["convergence"])
        self.assertLess(summary["pareto_k"], 0.7)
        params = {q["name"]: q for q in summary["parameters"]}
        D = X.shape[1]
        worst_z, ratios = 0.0, []
        for k in range(LEVELS - 1):
            for j in range(D):
                name = "alpha.%d" % (k + 2) if j == 0 else "beta.%d.%d" % (k + 2, j)
                i = k * D + j
                q = params[name]
                worst_z = max(worst_z, abs(q["mean"] - mode[j, k]) / sd[i])
                ratios.append(q["sd"] / sd[i])
        # Measured (seeds 1-3): means within 0.054-0.067 sd of the mode (a posterior mean is not the
        # mode), sds 0.96 to 0.99 of Laplace's; before the fix 0.42 to 0.87 and runs that did not stop.
        self.assertLess(worst_z, 0.15)
        self.assertGreater(min(ratios), 0.9, ratios)
        self.assertLess(max(ratios), 1.1, ratios)


if __name__ == "__main__":
    unittest.main()
