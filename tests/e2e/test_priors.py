"""Every prior family end to end: `bayes-vi eval --grad` on the seed data against scipy.stats log
densities plus the Bernoulli-logit likelihood written here in numpy, values to 1e-9 relative and
gradients against a fourth-order central difference of that independent log joint. Each family is
run with numeric hyperparameters (scalars and per-coefficient arrays) and with every
hyperparameter a parameter (so the gradient with respect to each hyperparameter is checked), plus
the hierarchical shrinkage priors users write (beta ~ student_t(3, 0, tau), tau ~ half_cauchy ...).
Also: the positive-support and hyperparameter-range config errors, and the example configs in
configs/priors/ (check and a short fit)."""
import glob
import json
import math
import os
import unittest

from bvi_test import BinaryTestCase, SEED_CSV, SOURCE_DIR, read_csv_rows, run

try:
    import numpy as np
    from scipy import stats
except ImportError as e:  # pragma: no cover
    raise unittest.SkipTest("the references need numpy and scipy (%s); run with /usr/bin/python3" % e)

D = 10
BETA = ["beta.%d" % j for j in range(1, D + 1)]


def seed_data():
    a = np.loadtxt(SEED_CSV, delimiter=",", skiprows=1)
    return a[:, :D], a[:, D]


X, Y = seed_data()


def log_lik(beta):
    eta = X @ beta
    # log sigmoid(eta) = -logaddexp(0, -eta); log(1 - sigmoid(eta)) = -logaddexp(0, eta)
    return float(np.sum(np.where(Y == 1, -np.logaddexp(0, -eta), -np.logaddexp(0, eta))))


def half_t_logpdf(x, df, scale):
    return np.where(x >= 0, math.log(2) + stats.t.logpdf(x, df, 0, scale), -np.inf)


# The families in Stan's parameterization, mapped to scipy (the hyperparameters in config order).
SCIPY = {
    "normal": lambda x, loc, scale: stats.norm.logpdf(x, loc, scale),
    "student_t": lambda x, df, loc, scale: stats.t.logpdf(x, df, loc, scale),
    "cauchy": lambda x, loc, scale: stats.cauchy.logpdf(x, loc, scale),
    "laplace": lambda x, loc, scale: stats.laplace.logpdf(x, loc, scale),
    "logistic": lambda x, loc, scale: stats.logistic.logpdf(x, loc, scale),
    "half_normal": lambda x, scale: stats.halfnorm.logpdf(x, scale=scale),
    "half_cauchy": lambda x, scale: stats.halfcauchy.logpdf(x, scale=scale),
    "half_student_t": half_t_logpdf,
    "exponential": lambda x, rate: stats.expon.logpdf(x, scale=1 / rate),
    "gamma": lambda x, shape, rate: stats.gamma.logpdf(x, a=shape, scale=1 / rate),
    "lognormal": lambda x, loc, scale: stats.lognorm.logpdf(x, s=scale, scale=np.exp(loc)),
}
HYPERS = {"normal": ["loc", "scale"], "student_t": ["df", "loc", "scale"], "cauchy": ["loc", "scale"],
          "laplace": ["loc", "scale"], "logistic": ["loc", "scale"], "half_normal": ["scale"],
          "half_cauchy": ["scale"], "half_student_t": ["df", "scale"], "exponential": ["rate"],
          "gamma": ["shape", "rate"], "lognormal": ["loc", "scale"]}
POSITIVE = {"half_normal", "half_cauchy", "half_student_t", "exponential", "gamma", "lognormal"}
# Numeric hyperparameters: a mix of scalars and per-coefficient arrays.
NUMERIC = {
    "normal": {"loc": [0.1 * j - 0.3 for j in range(D)], "scale": 2.5},
    "student_t": {"df": [0.8 + 0.9 * j for j in range(D)], "loc": 0.2, "scale": [0.5 + 0.2 * j for j in range(D)]},
    "cauchy": {"loc": -0.1, "scale": [0.3 + 0.1 * j for j in range(D)]},
    "laplace": {"loc": [0.05 * j for j in range(D)], "scale": 0.7},
    "logistic": {"loc": 0.3, "scale": [0.2 + 0.15 * j for j in range(D)]},
    "half_normal": {"scale": [0.5 + 0.3 * j for j in range(D)]},
    "half_cauchy": {"scale": 1.5},
    "half_student_t": {"df": 3, "scale": [0.4 + 0.2 * j for j in range(D)]},
    "exponential": {"rate": [0.5 + 0.25 * j for j in range(D)]},
    "gamma": {"shape": [0.7 + 0.5 * j for j in range(D)], "rate": 1.3},
    "lognormal": {"loc": [0.1 * j - 0.5 for j in range(D)], "scale": 0.8},
}


class Model:
    """A config and the same model as a Python function of a dict of constrained parameter values.
    `priors` maps a parameter to (family, {hyper: number | list | (factor, name)})."""

    def __init__(self, params, priors):
        self.params = params  # declared parameters: name -> declaration
        self.priors = priors
        self.sizes = {"beta": D}
        for name, decl in params.items():
            size = decl.get("size", 1)
            self.sizes[name] = D if size == "features" else size

    def config(self):
        def hyper_json(v):
            if isinstance(v, tuple):
                factor, name = v
                return name if factor == 1 else "%r * %s" % (factor, name)
            return v

        priors = {p: {fam: {k: hyper_json(v) for k, v in h.items()}} for p, (fam, h) in self.priors.items()}
        return {"data": {"csv": SEED_CSV, "response": "y"},
                "model": {"likelihood": "bernoulli_logit", "parameters": self.params, "priors": priors}}

    def names(self):
        out = []
        for p in ["beta"] + sorted(self.params):
            out += ["%s.%d" % (p, j) for j in range(1, self.sizes[p] + 1)] if self.vector(p) else [p]
        return out

    def vector(self, p):
        return p == "beta" or self.params[p].get("size", 1) != 1

    def unpack(self, values):
        it = iter(values)
        return {p: np.array([next(it) for _ in range(self.sizes[p])]) if self.vector(p) else np.array([next(it)])
                for p in ["beta"] + sorted(self.params)}

    def log_joint(self, values):
        v = self.unpack(values)
        total = log_lik(v["beta"])
        for p, (fam, h) in self.priors.items():
            args = [np.broadcast_to(np.asarray(h[k] if not isinstance(h[k], tuple) else h[k][0] * v[h[k][1]],
                                               dtype=float), v[p].shape) for k in HYPERS[fam]]
            total += float(np.sum(SCIPY[fam](v[p], *args)))
        return total

    def gradient(self, values):
        # Fourth-order central differences, steps relative to each value: truncation O(h^4) and
        # rounding ~1e-16 |log p| / h, both far below the 1e-6 tolerance.
        g = []
        for i, x in enumerate(values):
            h = 1e-4 * max(abs(x), 1e-2)

            def f(t):
                q = list(values)
                q[i] = x + t
                return self.log_joint(q)

            g.append((f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h))
        return g


def draw_points(model, rng, n=3):
    pts = []
    for _ in range(n):
        vals = []
        for p in ["beta"] + sorted(model.params):
            positive = p != "beta" and model.params[p].get("constraint") == "positive"
            for _ in range(model.sizes[p]):
                # Away from laplace's kink at loc and from 0 for the positive ones.
                vals.append(float(rng.lognormal(-0.3, 0.6)) if positive else float(rng.normal(0, 0.8)))
        pts.append(vals)
    return pts


class EvalAgainstScipy(BinaryTestCase):
    def check_model(self, model, seed=1):
        cfg = self.write_config(model.config())
        names = model.names()
        pts = draw_points(model, np.random.default_rng(seed))
        text = ",".join(names) + "\n" + "".join(",".join("%.17g" % v for v in p) + "\n" for p in pts)
        p = run(["eval", cfg, "--grad", "--params", self.write("p.csv", text)])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        self.assertEqual(len(rows), len(pts))
        for row, pt in zip(rows, pts):
            want = model.log_joint(pt)
            self.assertTrue(math.isfinite(want))
            self.assertLessEqual(abs(float(row["log_joint"]) - want), 1e-9 * abs(want), "log_joint")
            for name, g in zip(names, model.gradient(pt)):
                got = float(row["grad." + name])
                self.assertLessEqual(abs(got - g), 1e-6 * max(1.0, abs(g)), "grad.%s: %r vs %r" % (name, got, g))

    def test_numeric_hyperparameters(self):
        for fam in SCIPY:
            with self.subTest(family=fam):
                if fam in POSITIVE:
                    # A positive family goes on a positive parameter: per-coefficient scales of beta.
                    model = Model({"lam": {"size": "features", "constraint": "positive"}},
                                  {"beta": ("normal", {"loc": 0, "scale": (1, "lam")}), "lam": (fam, NUMERIC[fam])})
                else:
                    model = Model({}, {"beta": (fam, NUMERIC[fam])})
                self.check_model(model)

    def test_every_hyperparameter_a_parameter(self):
        # Each hyperparameter is a scalar parameter (positive where its range demands), so the
        # gradient with respect to each one of every family is checked; one of them carries a factor.
        for fam in SCIPY:
            with self.subTest(family=fam):
                params, priors, hyper = {}, {}, {}
                for k in HYPERS[fam]:
                    name = "h_" + k
                    if k == "loc":
                        params[name] = {}
                        priors[name] = ("normal", {"loc": 0, "scale": 1})
                    else:
                        params[name] = {"constraint": "positive"}
                        priors[name] = ("lognormal", {"loc": 0, "scale": 1})
                    hyper[k] = (0.5, name) if k == HYPERS[fam][-1] else (1, name)
                if fam in POSITIVE:
                    params["lam"] = {"size": "features", "constraint": "positive"}
                    priors["beta"] = ("normal", {"loc": 0, "scale": 2})
                    priors["lam"] = (fam, hyper)
                else:
                    priors["beta"] = (fam, hyper)
                self.check_model(Model(params, priors), seed=2)

    def test_hierarchical_shrinkage(self):
        for tau_prior in [("half_cauchy", {"scale": 1}), ("gamma", {"shape": 2, "rate": 1}),
                          ("lognormal", {"loc": 0, "scale": 1}), ("half_student_t", {"df": 3, "scale": 2}),
                          ("half_normal", {"scale": 1}), ("exponential", {"rate": 1})]:
            with self.subTest(tau=tau_prior[0]):
                model = Model({"tau": {"constraint": "positive"}},
                              {"beta": ("student_t", {"df": 3, "loc": 0, "scale": (1, "tau")}), "tau": tau_prior})
                self.check_model(model, seed=3)
        # A horseshoe-like prior with a learned df: every hyperparameter of student_t is a parameter.
        model = Model({"tau": {"constraint": "positive"}, "nu": {"constraint": "positive"},
                       "lam": {"size": "features", "constraint": "positive"}},
                      {"beta": ("student_t", {"df": (1, "nu"), "loc": 0, "scale": (1, "lam")}),
                       "nu": ("gamma", {"shape": 2, "rate": 0.1}),
                       "lam": ("half_cauchy", {"scale": (1, "tau")}), "tau": ("half_cauchy", {"scale": 1})})
        self.check_model(model, seed=4)

    def test_outside_the_support_is_minus_infinity(self):
        model = Model({"tau": {"lower": 0}},
                      {"beta": ("normal", {"loc": 0, "scale": 1}), "tau": ("exponential", {"rate": 1})})
        cfg = self.write_config(model.config())
        p = run(["eval", cfg, "--params", "-"], stdin=",".join(model.names()) + "\n" + ",".join(["0"] * D + ["-1"]) + "\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(float(read_csv_rows(p.stdout)[0]["log_joint"]), -math.inf)


class ConfigErrors(BinaryTestCase):
    def check_error(self, cfg, where, contains):
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where=where, contains=contains)

    def test_a_positive_family_on_a_real_parameter(self):
        for fam in POSITIVE:
            with self.subTest(family=fam):
                cfg = Model({}, {"beta": (fam, NUMERIC[fam])}).config()
                self.check_error(cfg, "/model/priors/beta/" + fam, "is for a positive parameter")
                cfg = Model({"tau": {"lower": -1}}, {"beta": ("normal", {"loc": 0, "scale": 1}),
                                                     "tau": (fam, NUMERIC[fam])}).config()
                for k, v in cfg["model"]["priors"]["tau"][fam].items():
                    if isinstance(v, list):
                        cfg["model"]["priors"]["tau"][fam][k] = v[0]
                self.check_error(cfg, "/model/priors/tau/" + fam, "is for a positive parameter")

    def test_out_of_range_hyperparameters(self):
        bad = {"scale": [0, -1], "df": [0, -2.5], "rate": [0, -1], "shape": [0, -1]}
        for fam in SCIPY:
            for k in HYPERS[fam]:
                for v in bad.get(k, []):
                    with self.subTest(family=fam, hyper=k, value=v):
                        h = dict(NUMERIC[fam])
                        h[k] = v
                        prior = {"lam" if fam in POSITIVE else "beta": (fam, h)}
                        params = {"lam": {"size": "features", "constraint": "positive"}} if fam in POSITIVE else {}
                        if fam in POSITIVE:
                            prior["beta"] = ("normal", {"loc": 0, "scale": 1})
                        p = "lam" if fam in POSITIVE else "beta"
                        self.check_error(Model(params, prior).config(), "/model/priors/%s/%s/%s" % (p, fam, k),
                                         "must be > 0")
                # One bad entry in an array is named by its index.
                if k in bad:
                    h = dict(NUMERIC[fam])
                    h[k] = [1.0] * 4 + [-1.0] + [1.0] * 5
                    prior = {"beta": (fam, h)} if fam not in POSITIVE else {
                        "beta": ("normal", {"loc": 0, "scale": 1}), "lam": (fam, h)}
                    params = {"lam": {"size": "features", "constraint": "positive"}} if fam in POSITIVE else {}
                    p = "lam" if fam in POSITIVE else "beta"
                    with self.subTest(family=fam, hyper=k, value="array"):
                        self.check_error(Model(params, prior).config(), "/model/priors/%s/%s/%s/4" % (p, fam, k),
                                         "must be > 0")

    def test_wrong_array_length(self):
        for fam in SCIPY:
            k = HYPERS[fam][-1]
            with self.subTest(family=fam):
                h = dict(NUMERIC[fam])
                h[k] = [1.0] * 3
                if fam in POSITIVE:
                    cfg = Model({"lam": {"size": "features", "constraint": "positive"}},
                                {"beta": ("normal", {"loc": 0, "scale": 1}), "lam": (fam, h)}).config()
                    where = "/model/priors/lam/%s/%s" % (fam, k)
                else:
                    cfg = Model({}, {"beta": (fam, h)}).config()
                    where = "/model/priors/beta/%s/%s" % (fam, k)
                self.check_error(cfg, where, "has 3 entries")

    def test_missing_and_unknown_hyperparameters(self):
        cfg = Model({}, {"beta": ("student_t", {"loc": 0, "scale": 1})}).config()
        self.check_error(cfg, "/model/priors/beta/student_t/df", "missing required key")
        cfg = Model({"tau": {"constraint": "positive"}},
                    {"beta": ("normal", {"loc": 0, "scale": 1}), "tau": ("gamma", {"shape": 2, "scale": 1})}).config()
        self.check_error(cfg, "/model/priors/tau/gamma/scale", "unknown key")


class ExampleConfigs(BinaryTestCase):
    """configs/priors/: one example per family, each valid and quick to fit."""

    def configs(self):
        found = sorted(glob.glob(os.path.join(SOURCE_DIR, "configs", "priors", "*.json")))
        self.assertTrue(found)
        return found

    def test_one_example_per_family(self):
        used = set()
        for path in self.configs():
            with open(path) as f:
                for prior in json.load(f)["model"]["priors"].values():
                    used.update(prior)
        self.assertEqual(used, set(SCIPY))

    def test_check_and_fit_each(self):
        for path in self.configs():
            with self.subTest(config=os.path.basename(path)):
                p = run(["check", path])
                self.assertEqual(p.returncode, 0, p.stderr)
                p = run(["fit", path, "--quiet", "--threads", "1"])
                self.assertEqual(p.returncode, 0, p.stderr)
                s = json.loads(p.stdout)
                self.assertTrue(math.isfinite(s["elbo"]))
                self.assertTrue(all(math.isfinite(q["mean"]) and q["sd"] > 0 for q in s["parameters"]))


    def test_check_prints_hyperparameters_in_the_family_order(self):
        p = run(["check", os.path.join(SOURCE_DIR, "configs", "priors", "gamma.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("beta ~ student_t(df=nu, loc=0, scale=2.5)", p.stdout)
        self.assertIn("nu ~ gamma(shape=2, rate=0.1)", p.stdout)

    def test_student_t_coefficients_with_a_heavy_tailed_scale_prior_fit(self):
        # log p is nearly linear in log tau on both sides of its mode here; the natural optimizer
        # once stepped to tau = e^-38 and failed with exit 70 on all of these.
        for tau_prior in [{"half_cauchy": {"scale": 1}}, {"half_student_t": {"df": 3, "scale": 2.5}},
                          {"gamma": {"shape": 2, "rate": 1}}, {"lognormal": {"loc": 0, "scale": 1}}]:
            with self.subTest(tau=tau_prior):
                cfg = Model({"tau": {"constraint": "positive"}},
                            {"beta": ("student_t", {"df": 3, "loc": 0, "scale": (1, "tau")})}).config()
                cfg["model"]["priors"]["tau"] = tau_prior
                p = run(["fit", self.write_config(cfg), "--quiet", "--threads", "1"])
                self.assertEqual(p.returncode, 0, p.stderr)
                tau = [q for q in json.loads(p.stdout)["parameters"] if q["name"] == "tau"][0]
                self.assertTrue(0.1 < tau["q05"] < tau["q50"] < tau["q95"] < 10, tau)


if __name__ == "__main__":
    unittest.main()
