"""The Monte Carlo method's sparse family (inference/optimizers/natural_sparse_step.hpp): a precision
on the posterior's pattern, its curvature from Hessian-vector products at the draws, the prior's
expectation in closed form. It must land where dense fullrank lands (fullrank's optimum is on the
pattern), be what auto takes for a model with group effects beyond fullrank's bounds (where
meanfield put an ordinal model's group sd at 0.16, simulated 0.60), and give the same bits for any
threads, ranks and a resumed run.

Problems: ordinal_logit y ~ x + (1 | g) with the group sd 0.6 (200 groups of 10 rows, and 600 of 5:
P = 605 > 500); nested factors (1 | a/b); categorical_logit with one group effect per category. Crossed factors:
test_monte_carlo_crossed.py."""
import json
import os
import shutil
import subprocess
import unittest

import numpy as np
from bvi_fit import RUN_KEYS, assert_same_posterior
from bvi_test import BINARY, BinaryTestCase, run

MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
CUTS = np.array([-1.5, -0.5, 0.2, 1.0])


def ordinal(rng, eta):
    return 1 + np.searchsorted(CUTS, eta + rng.logistic(size=eta.size))


def one_factor(groups, rows, seed):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, groups, rows)
    effects = 0.6 * rng.standard_normal(groups)
    x = rng.standard_normal(rows)
    y = ordinal(rng, 0.8 * x + effects[g])
    text = "y,x,g\n" + "".join("%d,%r,g%d\n" % (y[i], x[i], g[i]) for i in range(rows))
    return text, float(np.std(effects, ddof=1))


def nested(seed):
    rng = np.random.default_rng(seed)
    a = np.repeat(np.arange(12), 48)
    b = np.repeat(np.arange(96), 6)
    x = rng.standard_normal(a.size)
    y = ordinal(rng, 0.8 * x + 0.5 * rng.standard_normal(12)[a] + 0.4 * rng.standard_normal(96)[b])
    return "y,x,a,b\n" + "".join("%d,%r,a%d,b%d\n" % (y[i], x[i], a[i], b[i] % 8) for i in range(a.size))


def categorical(seed):
    rng = np.random.default_rng(seed)
    n, groups = 3000, 60
    g = rng.integers(0, groups, n)
    x = rng.standard_normal(n)
    e = 0.5 * rng.standard_normal((groups, 2))
    eta = np.stack([np.zeros(n), 0.8 * x + e[g, 0], -0.5 * x + e[g, 1]], 1)
    p = np.exp(eta)
    p /= p.sum(1, keepdims=True)
    y = 1 + (rng.random(n)[:, None] > np.cumsum(p, 1)).sum(1)
    return "y,x,g\n" + "".join("%d,%r,g%d\n" % (y[i], x[i], g[i]) for i in range(n))


def without(doc, keys):
    return {k: v for k, v in doc.items() if k not in keys}


class MonteCarloSparse(BinaryTestCase):
    def config(self, text, formula, likelihood="ordinal_logit", name="c", priors=None, **inference):
        csv = self.write(name + ".csv", text)
        inf = {"seed": 1}
        inf.update(inference)
        cfg = {"data": {"csv": csv}, "model": {"likelihood": likelihood, "formula": formula}, "inference": inf}
        if priors:
            cfg["model"]["priors"] = priors
        return self.write_config(cfg, name + ".json")

    def fit(self, cfg, *args):
        p = run(["fit", cfg, "--quiet"] + list(args))
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    # Both are Monte Carlo fits: two seeds of one family differ by up to ~0.15 posterior sd in a
    # weakly identified group sd. Meanfield is off by more than a posterior sd in the sds and
    # halves the population effects' sds.
    def assert_same_posterior(self, sparse, fullrank, mean_tol=0.25, sd_tol=0.05):
        assert_same_posterior(self, sparse, fullrank, mean_tol, sd_tol)

    def test_it_lands_where_fullrank_lands(self):
        text, _ = one_factor(200, 2000, 5)
        sparse = self.fit(self.config(text, "y ~ x + (1 | g)", name="s", algorithm="sparse"))
        fullrank = self.fit(self.config(text, "y ~ x + (1 | g)", name="f", algorithm="fullrank"))
        self.assertEqual(sparse["algorithm"], "sparse")
        self.assertTrue(sparse["converged"], sparse["convergence"])
        # Fullrank runs its 200 steps here; sparse settles in a fraction of them.
        self.assertLess(sparse["iterations"], 100)
        self.assert_same_posterior(sparse, fullrank)

    def test_nested_factors_and_categorical_effects(self):
        # Nested factors: 1000 steps, the fixed point's test; in 200, 1 of 12 seeds of this problem
        # leaves a factor's sd in the funnel its first steps led it into (README; why auto keeps
        # fullrank within its bounds).
        for name, text, formula, likelihood, steps in (
                ("nested", nested(3), "y ~ x + (1 | a/b)", "ordinal_logit", 1000),
                ("categorical", categorical(4), "y ~ x + (1 | g)", "categorical_logit", 200)):
            with self.subTest(name):
                sparse = self.fit(self.config(text, formula, likelihood, name + "_s", algorithm="sparse",
                                              max_iterations=steps))
                fullrank = self.fit(self.config(text, formula, likelihood, name + "_f", algorithm="fullrank"))
                self.assert_same_posterior(sparse, fullrank)

    def test_a_strong_cutpoint_prior(self):
        # The cutpoints' prior is a function of several coordinates (the ordered transform): it is
        # sampled with the likelihood, where the per-coordinate quadrature of the other priors put
        # the first cutpoint's sd at 0.57 of fullrank's under normal(0, 0.3).
        text, _ = one_factor(40, 160, 3)
        priors = {"cutpoints": {"normal": {"loc": 0, "scale": 0.3}}}
        sparse = self.fit(self.config(text, "y ~ x + (1 | g)", name="cs", priors=priors, algorithm="sparse"))
        fullrank = self.fit(self.config(text, "y ~ x + (1 | g)", name="cf", priors=priors, algorithm="fullrank"))
        self.assert_same_posterior(sparse, fullrank)

    def test_auto_keeps_fullrank_within_its_bounds(self):
        s = self.fit(self.config(one_factor(120, 1200, 12)[0], "y ~ x + (1 | g)", name="narrow", max_iterations=2))
        self.assertEqual(s["algorithm"], "fullrank", s["algorithm_choice"])

    def test_auto_takes_it_beyond_fullrank_bounds_and_keeps_the_group_sd(self):
        text, realized = one_factor(600, 3000, 6)
        cfg = self.config(text, "y ~ x + (1 | g)", name="big")
        s = self.fit(cfg)
        self.assertEqual(s["algorithm"], "sparse", s["algorithm_choice"])
        self.assertIn("beyond fullrank's", s["algorithm_choice"])
        self.assertTrue(s["converged"], s["convergence"])
        sd = {q["name"]: q for q in s["parameters"]}["sd_g.1"]
        self.assertLess(abs(sd["mean"] - realized), 3 * sd["sd"], (sd, realized))
        # check says what fit will do: the pattern and its products per draw.
        p = run(["check", cfg])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("monte_carlo", p.stdout)
        self.assertIn("precision   sparse: ", p.stdout)
        # beta, four cutpoints, sd_g, and one for every group's effect
        self.assertIn("7 Hessian-vector products per draw", p.stdout)

    def test_threads_ranks_and_a_resumed_run_give_the_same_bits(self):
        text, _ = one_factor(200, 2000, 7)
        cfg = self.config(text, "y ~ x + (1 | g)", name="bits", algorithm="sparse")
        whole = self.fit(cfg, "--output", self.path("whole"), "--threads", "1")
        n = whole["iterations"]
        two = self.fit(cfg, "--threads", "2")
        self.assertEqual(without(two, RUN_KEYS), without(whole, RUN_KEYS))
        state = self.path("run.ckpt")
        self.fit(cfg, "--checkpoint", state, "--checkpoint-every", str(n // 2))
        resumed = self.fit(cfg, "--resume", state, "--output", self.path("resumed"))
        self.assertEqual(without(resumed, RUN_KEYS), without(whole, RUN_KEYS))
        with open(os.path.join(self.path("whole"), "draws.csv"), "rb") as a, \
                open(os.path.join(self.path("resumed"), "draws.csv"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        if MPIRUN:
            p = subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", BINARY, "fit", cfg, "--quiet", "--threads", "1"],
                               capture_output=True, text=True, timeout=300, env=MPI_ENV)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(without(json.loads(p.stdout), RUN_KEYS + ("ranks",)),
                             without(whole, RUN_KEYS + ("ranks",)))

    def test_it_needs_the_natural_optimizer_and_group_effects(self):
        text, _ = one_factor(20, 200, 9)
        p = run(["fit", self.config(text, "y ~ x + (1 | g)", name="adam", algorithm="sparse",
                                    optimizer={"name": "adam"}), "--quiet"])
        self.assert_error(p, 78, "/inference/algorithm", "natural optimizer")
        p = run(["fit", self.config(text, "y ~ x", name="flat", algorithm="sparse"), "--quiet"])
        self.assert_error(p, 78, "/inference/algorithm", "group effects")


if __name__ == "__main__":
    unittest.main()
