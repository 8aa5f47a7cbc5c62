"""Varying intercepts of the likelihoods against long NUTS runs: student_t, ordinal_logit,
ordinal_probit and beta_logit (negative_binomial_log, gamma_log and lognormal are in
test_multilevel_nuts.py, categorical_logit in test_categorical_groups_nuts.py).

Four simulated problems (tests/reference/multilevel/, made by make_problems.py), each y ~ x1 + x2
+ (1 | g) on 2000 rows in 30 groups of unequal sizes (10 to 421 rows): j, student_t (sigma 0.8,
nu 4; sigma ~ half_normal(2), brms's nu ~ gamma(2, 0.1)); k, ordinal_logit (K = 4, no intercept,
cutpoints ~ student_t(3, 0, 2.5)); l, beta_logit (phi 8 under brms's gamma(0.01, 0.01)); m,
ordinal_probit (K = 4, priors as k's). The references are rstan's NUTS on hand-written non-centred
Stan programs, 4 chains, R-hat <= 1.01, bulk ESS >= 1000, no divergences
(tests/reference/multilevel/fixtures/NAME.nuts.json, made by nuts_multilevel.py --min-ess 1000).

The targets for the default fit (bayes-vi fit CONFIG, nothing else set; auto picks the Monte
Carlo method's fullrank for student_t and the ordinal ones, P = 36, and the exact method's sparse
family for beta_logit): population effects, the likelihood's own parameters (sigma, nu, phi) and
the cutpoints within 0.1 NUTS posterior sd of NUTS's mean; the group sd within 10 % of NUTS's mean
(30 levels); the group effects within 0.2 NUTS sd on average. Measured: tests/reference/README.md."""
import json
import os
import statistics
import unittest

from bvi_test import SOURCE_DIR, BinaryTestCase, run

HERE = os.path.join(SOURCE_DIR, "tests", "reference", "multilevel")


def errors(summary, nuts):
    """(population: name -> |z|, sds: name -> relative error, effects: [|z|]), where z is the
    fit's mean minus NUTS's in NUTS posterior sds; every NUTS parameter must be in the summary."""
    got = {q["name"]: q for q in summary["parameters"]}
    pop, sds, effects = {}, {}, []
    for name, ref in nuts.items():
        q = got[name]
        z = abs(q["mean"] - ref["mean"]) / ref["sd"]
        if name.startswith("sd_"):
            sds[name] = abs(q["mean"] - ref["mean"]) / ref["mean"]
        elif name.startswith("r_"):
            effects.append(z)
        else:                     # alpha, beta.d, sigma, nu, phi, cutpoints.k
            pop[name] = z
    return pop, sds, effects


class LikelihoodVaryingInterceptsAgainstNuts(BinaryTestCase):
    def check_problem(self, name, method, extra):
        fixture = os.path.join(HERE, "fixtures", name + ".nuts.json")
        if not os.path.exists(fixture):
            self.skipTest("no NUTS reference for " + name)
        with open(fixture) as f:
            ref = json.load(f)
        self.assertTrue(ref["targets"]["met"], "the reference itself missed R-hat / ESS")
        self.assertEqual(ref["sampler"]["divergences"], 0)
        nuts = {p["name"]: p for p in ref["parameters"]}
        with open(os.path.join(HERE, name + ".json")) as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = os.path.join(HERE, cfg["data"]["csv"])
        p = run(["fit", self.write_config(cfg), "--quiet", "--threads", "1"], timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        summary = json.loads(p.stdout)
        self.assertEqual((summary["method"], summary["algorithm"]), method)
        if summary["method"] == "exact":
            self.assertTrue(summary["converged"], summary["convergence"])
        else:  # monte_carlo's default stops on tol_step (q stopped moving) or runs every iteration
            self.assertFalse(summary["interrupted"])
            self.assertEqual(summary["tol_step"], 0.05)
            if summary["converged"]:
                self.assertTrue(summary["convergence"].startswith("q stopped moving"), summary["convergence"])
            else:
                self.assertEqual(summary["iterations"], summary["max_iterations"])
        pop, sds, effects = errors(summary, nuts)
        for par in extra:                      # the likelihood's own parameters are compared
            self.assertIn(par, pop)
        self.assertEqual(list(sds), ["sd_g.1"])
        self.assertEqual(len(effects), 30)
        for par, z in pop.items():
            with self.subTest(parameter=par):
                self.assertLessEqual(z, 0.1, (name, par))
        self.assertLessEqual(sds["sd_g.1"], 0.10, name)
        self.assertLessEqual(statistics.mean(effects), 0.2, name)

    def test_student_t_varying_intercept(self):
        self.check_problem("j_student_t_varying_intercept", ("monte_carlo", "fullrank"),
                           ["alpha", "sigma", "nu"])

    def test_ordinal_varying_intercept(self):
        self.check_problem("k_ordinal_varying_intercept", ("monte_carlo", "fullrank"),
                           ["beta.1", "cutpoints.1", "cutpoints.2", "cutpoints.3"])

    def test_ordinal_probit_varying_intercept(self):
        self.check_problem("m_ordinal_probit_varying_intercept", ("monte_carlo", "fullrank"),
                           ["beta.1", "cutpoints.1", "cutpoints.2", "cutpoints.3"])

    def test_beta_varying_intercept(self):
        self.check_problem("l_beta_varying_intercept", ("exact", "sparse"), ["alpha", "phi"])


if __name__ == "__main__":
    unittest.main()
