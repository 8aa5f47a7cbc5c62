"""categorical_logit's Gaussian approximation on a large, nearly Gaussian posterior: its means sit on
the posterior mean, which is not the maximum likelihood estimate (the "within 0.05 sd of
MNLogit at 10^5 rows").

For a posterior log p with mode m, Hessian H and third derivatives T, the posterior mean is
m - H^-1 (1/2) T:Sigma + O(n^-1) sds (Sigma = -H^-1), and a Gaussian q = N(mu, S) whose expected
gradient vanishes (the variational fixed point) has mu = m - H^-1 (1/2) T:S to the same order.
The shift is O(1/n) in the parameters but grows with their number P: in posterior sds it is
O(P / sqrt(n)), 0.066 sd at 20,000 x 10 with K = 4 (P = 30), 0.077 at 10^5 x 20 (P = 60), where
bayes-vi's means were 0.076 sd from MNLogit's estimates and within 0.001 sd of this mean.

Here, computed in numpy independently of bayes-vi (softmax, Newton to the mode, T:S by symmetric
second differences of the gradient along the columns of S's Cholesky factor, exact for a cubic
log density): the fullrank fit (the default) within 0.01 sd of m - H^-1 (1/2) T:Sigma and its sds
within 2 % of Sigma's; the meanfield fit within 0.01 sd of m - H^-1 (1/2) T:S_mf, S_mf =
diag(1 / -H_jj) (meanfield's fixed point to this order). The mode itself is more than 0.04 sd
from both, so the test tells the posterior mean from the MLE (measured: fullrank 0.002 sd from its
mean and 0.068 from the mode, sds within 0.2 %; meanfield 0.0006 and 0.091). About 14 CPU-seconds."""
import json
import os
import unittest

import numpy as np

from bvi_test import BinaryTestCase, run

ROWS, FEATURES, LEVELS, PRIOR_SD = 20000, 10, 4, 10.0


def softmax_gradient(X, Y, B):
    """The log posterior's gradient in B (D x (K - 1), category 1 the reference), N(0, PRIOR_SD^2)
    priors, and the category probabilities."""
    eta = np.hstack([np.zeros((X.shape[0], 1)), X @ B])
    eta -= eta.max(axis=1, keepdims=True)
    p = np.exp(eta)
    p /= p.sum(axis=1, keepdims=True)
    return X.T @ (Y - p)[:, 1:] - B / PRIOR_SD ** 2, p


def hessian(X, p):
    D, K1 = X.shape[1], p.shape[1] - 1
    H = np.zeros((D * K1, D * K1))
    for a in range(K1):
        for b in range(K1):
            w = p[:, a + 1] * ((a == b) - p[:, b + 1])
            H[a * D:(a + 1) * D, b * D:(b + 1) * D] = -(X.T * w) @ X
    return H - np.eye(D * K1) / PRIOR_SD ** 2


class CategoricalPosteriorMean(BinaryTestCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._data = tempfile.TemporaryDirectory()
        cls.csv = os.path.join(cls._data.name, "d.csv")
        p = run(["simulate", "--rows", str(ROWS), "--features", str(FEATURES), "--seed", "3",
                 "--likelihood", "categorical_logit", "--levels", str(LEVELS), "--output", cls.csv])
        assert p.returncode == 0, p.stderr
        raw = np.genfromtxt(cls.csv, delimiter=",", names=True)
        X = np.column_stack([raw["x%d" % j] for j in range(1, FEATURES + 1)])
        y = raw["y"].astype(int)
        Y = np.zeros((ROWS, LEVELS))
        Y[np.arange(ROWS), y - 1] = 1.0
        # Newton to the mode, parameters category-major: (k, j) at (k - 2) D + j - 1.
        D, K1 = FEATURES, LEVELS - 1
        B = np.zeros((D, K1))
        for _ in range(50):
            g, p = softmax_gradient(X, Y, B)
            H = hessian(X, p)
            step = np.linalg.solve(H, -g.T.ravel())
            B += step.reshape(K1, D).T
            if np.abs(step).max() < 1e-12:
                break
        g, p = softmax_gradient(X, Y, B)
        H = hessian(X, p)
        cls.mode = B.T.ravel()
        cls.Sigma = np.linalg.inv(-H)

        def mean_for(S):
            """m - H^-1 (1/2) T:S."""
            L = np.linalg.cholesky(S)
            TS = np.zeros(D * K1)
            for j in range(D * K1):
                V = L[:, j].reshape(K1, D).T
                TS += (softmax_gradient(X, Y, B + V)[0] + softmax_gradient(X, Y, B - V)[0] - 2 * g).T.ravel()
            return cls.mode - np.linalg.solve(H, 0.5 * TS)

        cls.mean = {"fullrank": mean_for(cls.Sigma), "meanfield": mean_for(np.diag(-1.0 / np.diag(H)))}

    @classmethod
    def tearDownClass(cls):
        cls._data.cleanup()

    def fit(self, algorithm):
        cfg = {"data": {"csv": self.csv, "response": "y"},
               "model": {"likelihood": "categorical_logit", "intercept": False,
                         "priors": {"beta": {"normal": {"loc": 0, "scale": PRIOR_SD}}}},
               "inference": {"seed": 11, "algorithm": algorithm}}
        p = run(["fit", self.write_config(cfg), "--quiet", "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        summary = json.loads(p.stdout)
        by_name = {q["name"]: q for q in summary["parameters"]}
        qs = [by_name["beta.%d.%d" % (k, j)] for k in range(2, LEVELS + 1) for j in range(1, FEATURES + 1)]
        return np.array([q["mean"] for q in qs]), np.array([q["sd"] for q in qs])

    def check(self, algorithm, sd_reference):
        mean, sd = self.fit(algorithm)
        to_mean = np.abs(mean - self.mean[algorithm]) / sd
        to_mode = np.abs(mean - self.mode) / sd
        self.assertLess(to_mean.max(), 0.01, "%s: means %.4f sd from the posterior mean (%.4f from the mode)"
                        % (algorithm, to_mean.max(), to_mode.max()))
        self.assertGreater(to_mode.max(), 0.04, "the problem should tell the posterior mean from the mode")
        if sd_reference is not None:
            self.assertLess(np.abs(sd / sd_reference - 1).max(), 0.02)

    def test_fullrank_means_on_the_posterior_mean(self):
        self.check("fullrank", np.sqrt(np.diag(self.Sigma)))

    def test_meanfield_means_on_its_fixed_point(self):
        self.check("meanfield", None)


if __name__ == "__main__":
    unittest.main()
