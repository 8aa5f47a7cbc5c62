"""Where fits start, for a response far from the link's unit scale (costs, scores, incomes in the
thousands): the likelihood's scale starts at the response's sd, and for the likelihoods whose scale
is the response's sd on eta's scale (normal, lognormal, student_t) so do the group sds, as lme4
starts its relative covariance factor sd / sigma at 1 (models/model.hpp: start_group_scales).

From sd 1 the group effects' prior held them at 0 (the funnel) and the residual sd took the
groups' spread: the default exact fit of a normal y ~ x + (1 | g) with y around 5000 put the group
sd at 1.3 where it is 490, after 200 iterations; the Monte Carlo method's student_t fits the same.
And the Monte Carlo sparse step keeps Lambda' - Lambda / 4 positive definite
(natural_sparse_step.cpp): student_t's convex tails gave its curvature nearly flat directions far
from the optimum, and without the floor an 800-group fit ends with the group sd at 1.16 (0.48)."""
import json
import unittest

import numpy as np
from bvi_test import BinaryTestCase, run


def grouped(groups, rows, seed, residual, scale=1000.0, shift=5000.0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, groups, rows)
    x = rng.standard_normal(rows)
    effects = 0.5 * rng.standard_normal(groups)
    noise = 0.7 * rng.standard_t(4, size=rows) if residual == "t" else rng.standard_normal(rows)
    y = shift + scale * (0.8 * x + effects[g] + noise)
    text = "y,x,g\n" + "".join("%r,%r,g%d\n" % (y[k], x[k], g[k]) for k in range(rows))
    return text, scale * float(np.std(effects, ddof=1))


class StartAtResponseScale(BinaryTestCase):
    def fit(self, text, likelihood, name, **inference):
        inf = {"seed": 1}
        inf.update(inference)
        cfg = {"data": {"csv": self.write(name + ".csv", text)},
               "model": {"likelihood": likelihood, "formula": "y ~ x + (1 | g)"}, "inference": inf}
        p = run(["fit", self.write_config(cfg, name + ".json"), "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def assert_group_sd(self, s, realized):
        sd = {q["name"]: q for q in s["parameters"]}["sd_g.1"]
        self.assertLess(abs(sd["mean"] - realized), 3 * sd["sd"], (sd, realized))

    def test_a_normal_response_in_the_thousands(self):
        text, realized = grouped(200, 3000, 3, "normal")
        exact = self.fit(text, "normal", "exact")  # the default: exact method, sparse
        self.assertTrue(exact["converged"], exact.get("convergence"))
        self.assert_group_sd(exact, realized)
        self.assert_group_sd(self.fit(text, "normal", "mc", method="monte_carlo"), realized)

    def test_a_student_t_response_in_the_thousands(self):
        text, realized = grouped(200, 3000, 3, "t")
        for algorithm in ("fullrank", "sparse"):
            with self.subTest(algorithm=algorithm):
                self.assert_group_sd(self.fit(text, "student_t", algorithm, algorithm=algorithm), realized)

    def test_student_t_sparse_beyond_fullrank_bounds(self):
        # 800 groups of 10 rows (P = 805): auto's sparse.
        text, realized = grouped(800, 8000, 5, "t", scale=1.0, shift=1.0)
        s = self.fit(text, "student_t", "big")
        self.assertEqual(s["algorithm"], "sparse", s["algorithm_choice"])
        self.assert_group_sd(s, realized)
        nu = {q["name"]: q for q in s["parameters"]}["nu"]
        self.assertLess(abs(nu["mean"] - 4.0), 4 * nu["sd"] + 0.5, nu)


if __name__ == "__main__":
    unittest.main()
