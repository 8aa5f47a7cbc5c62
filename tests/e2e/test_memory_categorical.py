"""The memory estimate of categorical_logit fits against their peak resident set (VmHWM), within
the 25 % test_memory_budget.py holds the other likelihoods to. Its K - 1 non-reference categories
each have their coefficients, group effects, linear predictors and gradients, so an estimate made
as for one linear predictor (and with K unknown before the load, as the preflight once had it)
was about half the peak with group effects. Cases: 2 x 10^4 rows, 10 features, K = 4, with
(1 | g) over 20 groups (P = 96: fullrank, 4P + 32 draws per step, float64 and float32) and with
(1 + x1 | g) over 100 groups (P = 642: the sparse family, two log joints), and without group effects. About 25 CPU-seconds."""
import os
import unittest

import numpy as np
from scipy import special

from bvi_errors import ErrorTestCase
from test_memory_budget import estimate_in, peak_of

ROWS, FEATURES, K = 20000, 10, 4


def categorical_csv(path, groups, seed=3):
    """x1 ... x10 ~ N(0, 1), g in 1 ... groups, y from a softmax over K categories with varying
    intercepts."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.standard_normal((ROWS, FEATURES)), 4)
    g = rng.integers(1, groups + 1, ROWS)
    eta = np.zeros((ROWS, K))
    for k in range(1, K):
        eta[:, k] = 0.3 * (-1) ** k * x[:, :3].sum(axis=1) + 0.5 * rng.standard_normal(groups + 1)[g]
    y = 1 + (rng.random(ROWS)[:, None] > np.cumsum(special.softmax(eta, axis=1), axis=1)).sum(axis=1)
    header = ",".join(["x%d" % (j + 1) for j in range(FEATURES)] + ["g", "y"])
    np.savetxt(path, np.column_stack([x, g, y]), delimiter=",", header=header, comments="",
               fmt=["%.4f"] * FEATURES + ["%d", "%d"])
    return path


class CategoricalEstimateAgainstPeak(ErrorTestCase):
    def check(self, csv, formula, label, dtype="float64"):
        cfg = self.write_json({"data": {"csv": csv, "dtype": dtype, "categorical": ["g"]},
                               "model": {"likelihood": "categorical_logit", "formula": formula},
                               "inference": {"max_iterations": 3}}, "c.json")
        rc, err, peak, _ = peak_of(["fit", cfg, "--threads", "2", "--log-level", "debug",
                                    "--output", self.path("out")])
        self.assertEqual(rc, 0, err[-2000:])
        estimate = estimate_in(err)
        print("%s: estimate %.1f MB, peak %.1f MB (%+.1f %%)" %
              (label, estimate / 1e6, peak / 1e6, 100 * (estimate / peak - 1)))
        self.assertLess(abs(estimate - peak), 0.25 * peak)

    def test_with_and_without_group_effects(self):
        xs = " + ".join("x%d" % (j + 1) for j in range(FEATURES))
        few = categorical_csv(self.path("few.csv"), 20)
        many = categorical_csv(self.path("many.csv"), 100)
        for csv, formula, dtype in ((few, "y ~ %s + (1 | g)" % xs, "float64"),
                                    (few, "y ~ %s + (1 | g)" % xs, "float32"),
                                    (many, "y ~ %s + (1 + x1 | g)" % xs, "float64"),
                                    (few, "y ~ %s" % xs, "float64")):
            with self.subTest(formula=formula[-12:], dtype=dtype):
                self.check(csv, formula, "categorical K = 4 %s %s" % (formula[-12:], dtype), dtype)


if __name__ == "__main__":
    unittest.main()
