"""Declared parameters: constraints, hierarchical hyperparameters and the config errors around
them; eval on the constrained scale against an independent log joint; a hierarchical fit."""
import csv
import io
import json
import math
import unittest

from bvi_test import BinaryTestCase, SEED_CSV, read_csv_rows, run

NAMES = ["beta.%d" % i for i in range(1, 11)]


def seed_rows():
    with open(SEED_CSV) as f:
        rows = list(csv.DictReader(f))
    return [[float(r["x%d" % j]) for j in range(1, 11)] for r in rows], [float(r["y"]) for r in rows]


def norm_logpdf(x, loc, scale):
    return -0.5 * ((x - loc) / scale) ** 2 - math.log(scale) - 0.5 * math.log(2 * math.pi)


def log_lik(beta):
    xs, ys = seed_rows()
    total = 0.0
    for x, y in zip(xs, ys):
        eta = sum(a * b for a, b in zip(x, beta))
        # log sigmoid(eta) for y = 1, log sigmoid(-eta) for y = 0, stably
        z = eta if y == 1 else -eta
        total += -math.log1p(math.exp(-z)) if z > 0 else z - math.log1p(math.exp(z))
    return total


def hierarchical(extra_params=None, beta_scale="tau", tau_prior=None):
    params = {"tau": {"constraint": "positive"}}
    params.update(extra_params or {})
    return {"data": {"csv": SEED_CSV, "response": "y"},
            "model": {"likelihood": "bernoulli_logit", "parameters": params,
                      "priors": {"beta": {"normal": {"loc": 0, "scale": beta_scale}},
                                 "tau": tau_prior or {"normal": {"loc": 1, "scale": 0.5}}}}}


class Evaluation(BinaryTestCase):
    def test_eval_is_the_log_joint_on_the_constrained_scale(self):
        cfg = self.write_config(hierarchical())
        points = [[0.7] + [0.1 * j - 0.4 for j in range(10)], [2.5] + [-0.2] * 10]
        text = "tau," + ",".join(NAMES) + "\n" + "".join(",".join("%.17g" % v for v in p) + "\n" for p in points)
        p = run(["eval", cfg, "--params", self.write("p.csv", text)])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = [float(r["log_joint"]) for r in read_csv_rows(p.stdout)]
        for g, point in zip(got, points):
            tau, beta = point[0], point[1:]
            # No Jacobian: eval reports the density of the parameters as the user gives them.
            want = norm_logpdf(tau, 1, 0.5) + sum(norm_logpdf(b, 0, tau) for b in beta) + log_lik(beta)
            self.assertAlmostEqual(g, want, delta=1e-9 * abs(want))

    def test_gradient_of_a_hierarchical_prior(self):
        cfg = self.write_config(hierarchical(beta_scale="0.5 * tau"))
        point = [0.8] + [0.1 * j - 0.3 for j in range(10)]
        names = ["tau"] + NAMES
        p = run(["eval", cfg, "--grad", "--params", "-"],
                stdin=",".join(names) + "\n" + ",".join("%.17g" % v for v in point) + "\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        row = read_csv_rows(p.stdout)[0]
        h = 1e-6
        lines = [",".join(names)]
        for i in range(len(names)):
            for sign in (1, -1):
                q = list(point)
                q[i] += sign * h
                lines.append(",".join("%.17g" % v for v in q))
        vals = [float(r["log_joint"]) for r in
                read_csv_rows(run(["eval", cfg, "--params", "-"], stdin="\n".join(lines) + "\n").stdout)]
        for i, n in enumerate(names):
            fd = (vals[2 * i] - vals[2 * i + 1]) / (2 * h)
            self.assertLess(abs(fd - float(row["grad." + n])), 1e-6 * max(1, abs(fd)), n)

    def test_a_point_outside_the_constraint_has_no_finite_density(self):
        cfg = self.write_config(hierarchical())
        p = run(["eval", cfg, "--params", "-"], stdin="tau," + ",".join(NAMES) + "\n-1," + ",".join(["0"] * 10) + "\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(math.isfinite(float(read_csv_rows(p.stdout)[0]["log_joint"])))


class Fitting(BinaryTestCase):
    def test_hierarchical_fit_reports_constrained_values(self):
        cfg = self.write_config(hierarchical(extra_params={"rho": {"lower": -1, "upper": 1}},
                                             tau_prior={"normal": {"loc": 1, "scale": 1}}) |
                                {"inference": {"max_iterations": 150, "output_draws": 300}})
        with open(cfg) as f:
            c = json.load(f)
        c["model"]["priors"]["rho"] = {"normal": {"loc": 0, "scale": 1}}
        with open(cfg, "w") as f:
            json.dump(c, f)
        p = run(["fit", cfg, "--quiet", "--output", self.path("out")])
        self.assertEqual(p.returncode, 0, p.stderr)
        s = json.loads(p.stdout)
        by = {q["name"]: q for q in s["parameters"]}
        self.assertEqual([q["name"] for q in s["parameters"]], NAMES + ["rho", "tau"])
        tau, rho = by["tau"], by["rho"]
        self.assertTrue(0 < tau["q05"] < tau["q50"] < tau["q95"])
        self.assertTrue(tau["q05"] < tau["mean"] < tau["q95"])
        self.assertTrue(-1 < rho["q05"] < rho["q50"] < rho["q95"] < 1)
        with open(self.path("out/draws.csv")) as f:
            rows = [l for l in f if not l.startswith("#")]
        header = rows[0].strip().split(",")
        draws = [dict(zip(header, map(float, r.split(",")))) for r in rows[2:]]
        self.assertTrue(all(d["tau"] > 0 for d in draws))
        self.assertTrue(all(-1 < d["rho"] < 1 for d in draws))
        # The summary's mean of tau is the Monte Carlo mean on the constrained scale.
        m = sum(d["tau"] for d in draws) / len(draws)
        self.assertAlmostEqual(m, tau["mean"], delta=4 * tau["sd"] / math.sqrt(len(draws)))


class ConfigErrors(BinaryTestCase):
    def check_error(self, cfg, where, contains):
        path = self.write_config(cfg)
        self.assert_error(run(["check", path]), 78, where=where, contains=contains)

    def test_unknown_parameter_in_a_hyperparameter(self):
        self.check_error(hierarchical(beta_scale="tua"), "/model/priors/beta/normal/scale", "did you mean 'tau'")

    def test_a_prior_cannot_depend_on_itself(self):
        self.check_error(hierarchical(tau_prior={"normal": {"loc": 0, "scale": "tau"}}),
                         "/model/priors/tau/normal/scale", "cannot depend on itself")

    def test_a_cycle_between_priors(self):
        cfg = hierarchical(extra_params={"lam": {"constraint": "positive"}},
                           tau_prior={"normal": {"loc": 1, "scale": "lam"}})
        cfg["model"]["priors"]["lam"] = {"normal": {"loc": 1, "scale": "tau"}}
        path = self.write_config(cfg)
        p = run(["check", path])
        self.assert_error(p, 78, contains="depend on each other in a cycle")

    def test_a_scale_must_come_from_a_positive_parameter(self):
        cfg = hierarchical(extra_params={"tau": {}})
        self.check_error(cfg, "/model/priors/beta/normal/scale", "declare 'tau' with \"constraint\": \"positive\"")

    def test_a_vector_hyperparameter_must_fit_the_parameter(self):
        cfg = hierarchical(extra_params={"v": {"size": 3, "constraint": "positive"}}, beta_scale="v")
        cfg["model"]["priors"]["v"] = {"normal": {"loc": 1, "scale": 1}}
        self.check_error(cfg, "/model/priors/beta/normal/scale", "'v' has 3 entries and 'beta' has 10")

    def test_size_features_gives_one_per_coefficient(self):
        cfg = hierarchical(extra_params={"lam": {"size": "features", "constraint": "positive"}},
                           beta_scale="tau * lam")
        cfg["model"]["priors"]["lam"] = {"normal": {"loc": 1, "scale": 1}}
        p = run(["check", self.write_config(cfg)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("parameters  21: beta.1", p.stdout)
        self.assertIn("beta ~ normal(loc=0, scale=tau * lam)", p.stdout)

    def test_declaration_errors(self):
        for params, where, contains in [
            ({"beta": {}}, "/model/parameters/beta", "already a parameter"),
            ({"2x": {}}, "/model/parameters/2x", "a parameter name is"),
            ({"t": {"constraint": "positive", "lower": 0}}, "/model/parameters/t/lower", "bounds go with"),
            ({"t": {"lower": 2, "upper": 1}}, "/model/parameters/t/upper", "greater than lower"),
            ({"t": {"size": 0}}, "/model/parameters/t/size", "must be"),
            ({"t": {"size": "many"}}, "/model/parameters/t/size", "\"features\""),
            ({"t": {"constraint": "negative"}}, "/model/parameters/t/constraint", "unknown value"),
            ({"t": {"shape": 2}}, "/model/parameters/t/shape", "unknown key"),
        ]:
            cfg = hierarchical()
            cfg["model"]["parameters"].update(params)
            with self.subTest(params=params):
                self.check_error(cfg, where, contains)

    def test_every_declared_parameter_needs_a_prior(self):
        cfg = hierarchical(extra_params={"extra": {}})
        self.check_error(cfg, "/model/priors", "missing prior for 'extra'")

    def test_a_quoted_number_is_not_an_expression(self):
        self.check_error(hierarchical(beta_scale="2.5"), "/model/priors/beta/normal/scale", "got a string")


if __name__ == "__main__":
    unittest.main()
