"""student_t (robust linear regression) end to end, beyond what the shared likelihood tests cover
(eval against scipy with gradients, replicates: those run it through likelihood_models.py with
the other likelihoods): what check reports (the response as for normal, sigma and nu with their
defaults: exponential(1 / sd y) as normal's sigma, brms's gamma(2, 0.1) for nu), that `method:
auto` resolves to monte_carlo and an explicit `exact` is one line and exit 78, a fit of the
example data (10 % gross outliers) whose coefficients cover the truth where a normal fit's are
pulled away, predict's columns against numpy/scipy from draws.csv (mean eta, predictive sd
sigma sqrt(nu / (nu - 2)), inf where a draw has nu <= 2, log predictive density from
scipy.stats.t), a varying intercept (1 | g), and simulate --likelihood student_t with --nu."""
import json
import math
import unittest

import numpy as np
from scipy import special, stats

import likelihood_models as lm
from bvi_test import BinaryTestCase, SOURCE_DIR, read_csv_rows, run

FEATURES = ["x1", "x2", "x3"]
TRUTH = {"alpha": 0.5, "beta.1": 1.0, "beta.2": -0.5, "beta.3": 0.25}  # make_likelihood_data.py


def example():
    with open(SOURCE_DIR + "/configs/likelihoods/student_t.json") as f:
        cfg = json.load(f)
    cfg["data"]["csv"] = SOURCE_DIR + "/data/lik_student_t.csv"
    return cfg


def read_draws(path):
    with open(path) as f:
        lines = [l.strip() for l in f if not l.startswith("#")]
    header = lines[0].split(",")
    values = np.array([[float(v) for v in l.split(",")] for l in lines[2:]])  # lines[1]: the mean
    return {h: values[:, j] for j, h in enumerate(header)}


class StudentT(BinaryTestCase):
    def test_check_reports_the_response_and_default_priors(self):
        cfg = example()
        del cfg["model"]["priors"]
        p = run(["check", self.write_config(cfg)])
        self.assertEqual(p.returncode, 0, p.stderr)
        y = np.loadtxt(cfg["data"]["csv"], delimiter=",", skiprows=1)[:, 3]
        self.assertIn("mean %.4g, sd %.4g, range %.4g to %.4g" % (y.mean(), y.std(ddof=1), y.min(), y.max()), p.stdout)
        self.assertIn("model       student_t, with intercept", p.stdout)
        self.assertIn("parameters  6: alpha beta.1 beta.2 beta.3 sigma nu", p.stdout)
        self.assertIn("inference   monte_carlo (auto: monte_carlo (the student_t likelihood has no exact ELBO)", p.stdout)
        p = run(["check", self.write_config(cfg), "--explain"])
        self.assertEqual(p.returncode, 0, p.stderr)
        resolved = json.loads(p.stdout)
        priors = resolved["model"]["priors"]
        s = y.std(ddof=1)
        self.assertAlmostEqual(priors["sigma"]["exponential"]["rate"], 1 / s, delta=1e-12 / s)
        self.assertEqual(priors["nu"], {"gamma": {"rate": 0.1, "shape": 2.0}})
        self.assertAlmostEqual(priors["alpha"]["student_t"]["loc"], y.mean(), delta=1e-12)
        self.assertEqual(resolved["inference"]["method"], "monte_carlo")

    def test_auto_family_is_fullrank_while_p_is_small(self):
        # A likelihood only the Monte Carlo method fits: fullrank up to P = 100, meanfield beyond.
        cfg = example()
        p = run(["check", self.write_config(cfg)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("), fullrank, natural", p.stdout)
        rng = np.random.default_rng(5)
        x = rng.standard_normal((30, 99))
        lines = [",".join(["x%d" % (j + 1) for j in range(99)] + ["y"])]
        lines += [",".join("%.3f" % v for v in list(row) + [row[0] + rng.standard_t(4)]) for row in x]
        self.write("wide.csv", "\n".join(lines) + "\n")
        wide = {"data": {"csv": self.path("wide.csv"), "response": "y"}, "model": {"likelihood": "student_t"}}
        p = run(["check", self.write_config(wide, "wide.json")])  # P = 99 + alpha + sigma + nu = 102
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("), meanfield, natural", p.stdout)

    def test_exact_is_a_config_error(self):
        cfg = example()
        cfg["inference"] = {"method": "exact"}
        p = run(["fit", self.write_config(cfg), "--quiet"])
        self.assert_error(p, 78, "/inference/method", "exact does not fit the student_t likelihood")

    def fit_example(self, likelihood, output=None):
        cfg = example()
        cfg["model"]["likelihood"] = likelihood
        if likelihood == "normal":
            del cfg["model"]["priors"]["nu"]
        cfg["inference"] = {"seed": 3, "output_draws": 400}
        path = self.write_config(cfg, likelihood + ".json")
        p = run(["fit", path, "--quiet"] + (["--output", output] if output else []))
        self.assertEqual(p.returncode, 0, p.stderr)
        s = json.loads(p.stdout)
        return path, s, {q["name"]: q for q in s["parameters"]}

    def test_fit_resists_outliers_and_predict_matches_the_draws(self):
        cfg, s, got = self.fit_example("student_t", self.path("fit"))
        self.assertEqual(s["method"], "monte_carlo")
        for name, t in TRUTH.items():
            self.assertLessEqual(abs(got[name]["mean"] - t), 4 * got[name]["sd"], (name, got[name], t))
        self.assertLess(got["nu"]["mean"], 5.0)  # 10 % of the rows shifted by 8: heavy tails
        # The outliers (+8 on every tenth row) pull a normal fit's intercept by about 0.8.
        _, _, normal = self.fit_example("normal")
        self.assertGreater(abs(normal["alpha"]["mean"] - 0.5), 0.5, normal["alpha"])
        self.assertLess(abs(got["alpha"]["mean"] - 0.5), 0.2, got["alpha"])

        # predict on new rows, recomputed from draws.csv
        new = lm.simulate("student_t", 30, 0.5, [1.0, -0.5, 0.25], seed=5, sigma=0.8)
        lm.write_csv(self.path("new.csv"), new)
        p = run(["predict", cfg, "--fit", self.path("fit"), "--data", self.path("new.csv"),
                 "--metrics", self.path("m.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        with open(self.path("m.json")) as f:
            m = json.load(f)
        d = read_draws(self.path("fit/draws.csv"))
        x = np.column_stack([new[f] for f in FEATURES])
        eta = d["alpha"][:, None] + np.column_stack([d["beta.%d" % j] for j in (1, 2, 3)]) @ x.T
        sigma, nu = d["sigma"][:, None], d["nu"][:, None]
        var = np.where(nu > 2, sigma**2 * nu / np.where(nu > 2, nu - 2, 1.0), np.inf)
        mean = eta.mean(axis=0)
        psd = np.sqrt(eta.var(axis=0) + var.mean(axis=0))
        for i, row in enumerate(rows):
            self.assertLessEqual(abs(float(row["mean"]) - mean[i]), 1e-10 * max(1, abs(mean[i])))
            if math.isinf(psd[i]):
                self.assertEqual(float(row["predictive_sd"]), math.inf)
            else:
                self.assertLessEqual(abs(float(row["predictive_sd"]) - psd[i]), 1e-8 * psd[i])
        logp = stats.t.logpdf(new["y"], nu, eta, sigma)
        lpd = special.logsumexp(logp, axis=0) - np.log(logp.shape[0])
        self.assertLessEqual(abs(m["mean_log_predictive_density"] - lpd.mean()), 1e-9 * abs(lpd.mean()))
        self.assertAlmostEqual(m["rmse"], np.sqrt(np.mean((mean - new["y"]) ** 2)), delta=1e-10 * max(1, m["rmse"]))
        self.assertAlmostEqual(m["mae"], np.mean(np.abs(mean - new["y"])), delta=1e-10 * max(1, m["mae"]))

    def test_varying_intercept(self):
        rng = np.random.default_rng(19)
        n, G = 400, 8
        x1 = rng.standard_normal(n)
        g = rng.integers(0, G, n)
        r = 0.8 * rng.standard_normal(G)
        y = 0.3 + 0.7 * x1 + r[g] + 0.5 * rng.standard_t(3.0, n)
        with open(self.path("ml.csv"), "w") as f:
            f.write("y,x1,g\n")
            for i in range(n):
                f.write("%r,%r,g%d\n" % (y[i], x1[i], g[i]))
        cfg = {"data": {"csv": self.path("ml.csv")},
               "model": {"likelihood": "student_t", "formula": "y ~ x1 + (1 | g)"},
               "inference": {"seed": 2}}
        p = run(["fit", self.write_config(cfg), "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = {q["name"]: q for q in json.loads(p.stdout)["parameters"]}
        beta = got["beta"] if "beta" in got else got["beta.1"]
        self.assertLessEqual(abs(beta["mean"] - 0.7), 4 * beta["sd"], beta)
        self.assertLessEqual(abs(got["sigma"]["mean"] - 0.5), 4 * got["sigma"]["sd"], got["sigma"])
        sd = got["sd_g.1"]
        self.assertLessEqual(abs(sd["mean"] - 0.8), 4 * sd["sd"], sd)
        # The group effects follow the true ones (alpha absorbs their mean).
        effects = [got["r_g.%d.1" % (k + 1)] for k in range(G)]
        self.assertEqual([e["label"] for e in effects], ["g[g%d]:(Intercept)" % k for k in range(G)])
        self.assertGreater(np.corrcoef([e["mean"] for e in effects], r)[0, 1], 0.95)

    def test_simulate_then_fit(self):
        p = run(["simulate", "--rows", "300", "--features", "2", "--seed", "4", "--likelihood", "student_t",
                 "--intercept", "0.5", "--sigma", "0.7", "--nu", "3", "--output", self.path("s.csv")])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("s.truth.csv")) as f:
            truth = dict(l.strip().split(",") for l in f.readlines()[1:])
        self.assertEqual((float(truth["sigma"]), float(truth["nu"])), (0.7, 3.0))
        cfg = {"data": {"csv": self.path("s.csv"), "response": "y"},
               "model": {"likelihood": "student_t", "intercept": True}, "inference": {"seed": 1}}
        p = run(["fit", self.write_config(cfg), "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = {q["name"]: q for q in json.loads(p.stdout)["parameters"]}
        for name, t in truth.items():
            with self.subTest(parameter=name):
                self.assertLessEqual(abs(got[name]["mean"] - float(t)), 4 * got[name]["sd"], (got[name], t))
        p = run(["simulate", "--rows", "5", "--features", "1", "--seed", "1", "--likelihood", "normal", "--nu", "3"])
        self.assert_error(p, 64, None, "--nu applies to --likelihood student_t only")


if __name__ == "__main__":
    unittest.main()
