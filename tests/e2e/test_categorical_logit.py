"""categorical_logit end to end (multinomial logit: brms's categorical, statsmodels' MNLogit):
eval's log joint and gradient against a softmax written here in numpy (priors as scipy.stats
logpdfs), for the first and another reference category, with explicit and default priors (the
default intercept prior centered at the column means, category by category) and hierarchical,
per-term and per-category ones; K = 2 against bernoulli_logit on y - 1 (value and gradient); what check reports
(K, rows per category, the parameter names); the Monte Carlo fit of the example data covering the
truth it was drawn from (data/make_likelihood_data.py), under auto (fullrank) and meanfield;
predict's probabilities, metrics and replicates against numbers computed from draws.csv;
simulate's data fitted back; the same bits on 1 and 2 ranks, float32 features; labels in /data/levels
give the integer coding's bits and name the parameters, check's counts and predict's columns; and
the errors: text without /data/levels or a label not in it, a category that is not an integer >= 1, or above
/model/categories, is exit 65 at FILE:LINE; offset, the exact method, a reference
category beyond K or on another likelihood are exit 78 (loo and kfold: test_categorical_loo.py).
About 10 CPU-seconds."""
import collections
import csv
import json
import os
import shutil
import subprocess
import unittest

import numpy as np
from scipy import special, stats

from bvi_test import BINARY, BinaryTestCase, SOURCE_DIR, read_csv_rows, run

FEATURES = ["x1", "x2", "x3"]
# data/make_likelihood_data.py: categories 2 and 3 against the reference 1.
TRUE_ALPHA = {2: 0.5, 3: -0.3}
TRUE_BETA = {2: [1.0, -0.5, 0.25], 3: [-0.75, 0.5, 0.0]}
CSV = SOURCE_DIR + "/data/lik_categorical_logit.csv"
MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")


def numbers(text):
    return {k: v for k, v in json.loads(text).items() if k not in ("seconds", "threads", "ranks")}


def example_config():
    with open(SOURCE_DIR + "/configs/likelihoods/categorical_logit.json") as f:
        cfg = json.load(f)
    cfg["data"]["csv"] = CSV
    return cfg


def load():
    data = np.genfromtxt(CSV, delimiter=",", names=True)
    return np.column_stack([data[f] for f in FEATURES]), data["y"].astype(int)


def names(K, ref, D=3, intercept=True):
    cats = [k for k in range(1, K + 1) if k != ref]
    out = ["alpha.%d" % k for k in cats] if intercept else []
    return out + ["beta.%d.%d" % (k, j) for j in range(1, D + 1) for k in cats]


def log_lik(x, y, alpha, beta, ref):
    """alpha: {k: a}, beta: {k: [b_1..b_D]} for the non-reference categories."""
    K = len(alpha) + 1
    eta = np.zeros((len(y), K))
    for k in alpha:
        eta[:, k - 1] = alpha[k] + x @ np.array(beta[k])
    return (eta[np.arange(len(y)), y - 1] - special.logsumexp(eta, axis=1)).sum()


def unpack(theta, K, ref, D=3):
    cats = [k for k in range(1, K + 1) if k != ref]
    C = len(cats)
    alpha = {k: theta[c] for c, k in enumerate(cats)}
    beta = {k: [theta[C + j * C + c] for j in range(D)] for c, k in enumerate(cats)}
    return alpha, beta


class Categorical(BinaryTestCase):
    def eval_against(self, cfg, ref, log_joint):
        x, y = load()
        K = 3
        cols = names(K, ref)
        points = [np.array([0.4, -0.2, 0.9, -0.6, -0.4, 0.5, 0.2, 0.1]),
                  np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
                  np.array([3.0, -2.0, 1.5, -1.0, 0.3, 2.0, -0.7, 0.0])]
        text = ",".join(cols) + "\n" + "".join(",".join(repr(v) for v in t) + "\n" for t in points)
        p = run(["eval", self.write_config(cfg), "--params", self.write("p.csv", text), "--grad"])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        for theta, row in zip(points, rows):
            f = lambda t: log_joint(x, y, t)
            want = f(theta)
            with self.subTest(ref=ref, point=list(theta)):
                self.assertAlmostEqual(float(row["log_joint"]), want, delta=1e-9 * abs(want))
                for j, name in enumerate(cols):
                    h = np.zeros(len(theta))
                    h[j] = 1e-6
                    fd = (f(theta + h) - f(theta - h)) / 2e-6
                    self.assertAlmostEqual(float(row["grad." + name]), fd, delta=1e-5 * max(1, abs(fd)))

    def test_eval_matches_numpy(self):
        for ref in (1, 2):
            cfg = example_config()
            if ref != 1:
                cfg["model"]["reference_category"] = ref

            def log_joint(x, y, t, ref=ref):
                a, b = unpack(t, 3, ref)
                return (log_lik(x, y, a, b, ref) + stats.norm.logpdf(t[:2], 0, 2.5).sum()
                        + stats.norm.logpdf(t[2:], 0, 2.5).sum())
            self.eval_against(cfg, ref, log_joint)

    def test_eval_default_priors(self):
        # brms-like defaults: alpha.k ~ student_t(3, 0, 2.5) on the intercept at the column means
        # (alpha.k + mean(x) . beta.k), beta.k.j ~ normal(0, 2.5 / sd(x_j)).
        cfg = example_config()
        del cfg["model"]["priors"]
        x, _ = load()
        mean, sd = x.mean(axis=0), x.std(axis=0, ddof=1)

        def log_joint(x_, y, t):
            a, b = unpack(t, 3, 1)
            lp = sum(stats.t.logpdf(a[k] + mean @ np.array(b[k]), 3, 0, 2.5) for k in (2, 3))
            lp += sum(stats.norm.logpdf(np.array(b[k]), 0, 2.5 / sd).sum() for k in (2, 3))
            return log_lik(x_, y, a, b, 1) + lp
        self.eval_against(cfg, 1, log_joint)

    def test_eval_priors_per_feature_term_and_category(self):
        # beta ~ normal(0, tau * lam) (lam one per feature), beta[x2] ~ student_t(3, 0, 1), alpha ~
        # normal([0, 1], 2.5) (one loc per non-reference category): each feature's prior applies to
        # every category's coefficient of it. fit too (its preflight builds the model before K is
        # read: the alpha array's length must not fail it).
        cfg = example_config()
        cfg["data"]["features"] = FEATURES
        cfg["model"]["parameters"] = {"tau": {"size": 1, "constraint": "positive"},
                                      "lam": {"size": "features", "constraint": "positive"}}
        cfg["model"]["priors"] = {"alpha": {"normal": {"loc": [0, 1], "scale": 2.5}},
                                  "beta": {"normal": {"loc": 0, "scale": "tau * lam"}},
                                  "beta[x2]": {"student_t": {"df": 3, "loc": 0, "scale": 1}},
                                  "tau": {"half_normal": {"scale": 1}}, "lam": {"half_normal": {"scale": 1}}}
        x, y = load()
        tau, lam = 1.5, np.array([0.5, 2.0, 3.0])
        theta = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
        a, b = unpack(theta, 3, 1)
        want = (log_lik(x, y, a, b, 1) + stats.norm.logpdf([0.1, 0.2], [0, 1], 2.5).sum()
                + stats.halfnorm.logpdf(tau) + stats.halfnorm.logpdf(lam).sum())
        for k in (2, 3):
            want += stats.norm.logpdf(np.array(b[k])[[0, 2]], 0, tau * lam[[0, 2]]).sum()
            want += stats.t.logpdf(b[k][1], 3, 0, 1)
        text = ",".join(names(3, 1) + ["tau", "lam.1", "lam.2", "lam.3"]) + "\n" + ",".join(
            repr(v) for v in list(theta) + [tau] + list(lam)) + "\n"
        config = self.write_config(cfg)
        p = run(["eval", config, "--params", self.write("p.csv", text)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertAlmostEqual(float(read_csv_rows(p.stdout)[0]["log_joint"]), want, delta=1e-10 * abs(want))
        cfg["inference"]["output_draws"] = 20
        p = run(["fit", self.write_config(cfg, "fit.json"), "--quiet", "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_two_categories_are_bernoulli_logit(self):
        # K = 2, reference 1: P(y = 2) = expit(alpha.2 + x . beta.2), bernoulli_logit's on y - 1.
        with open(SOURCE_DIR + "/data/lik_bernoulli_logit.csv") as f:
            rows = list(csv.DictReader(f))
        shifted = self.write("two.csv", "x1,x2,x3,y\n" + "".join(
            "%s,%s,%s,%d\n" % (r["x1"], r["x2"], r["x3"], int(r["y"]) + 1) for r in rows))
        priors = {"alpha": {"normal": {"loc": 0, "scale": 2.5}}, "beta": {"normal": {"loc": 0, "scale": 2.5}}}
        point = [0.3, -0.8, 0.45, 1.2]
        got = {}
        for lik, csv_path, cols in (("categorical_logit", shifted, ["alpha.2", "beta.2.1", "beta.2.2", "beta.2.3"]),
                                    ("bernoulli_logit", SOURCE_DIR + "/data/lik_bernoulli_logit.csv",
                                     ["alpha", "beta.1", "beta.2", "beta.3"])):
            cfg = {"data": {"csv": csv_path, "response": "y"},
                   "model": {"likelihood": lik, "intercept": True, "priors": priors}}
            text = ",".join(cols) + "\n" + ",".join(repr(v) for v in point) + "\n"
            p = run(["eval", self.write_config(cfg, lik + ".json"), "--params", self.write(lik + ".csv", text),
                     "--grad"])
            self.assertEqual(p.returncode, 0, p.stderr)
            row = read_csv_rows(p.stdout)[0]
            got[lik] = [float(row["log_joint"])] + [float(row["grad." + c]) for c in cols]
        np.testing.assert_allclose(got["categorical_logit"], got["bernoulli_logit"], rtol=1e-12)

    def test_check_reports_categories(self):
        p = run(["check", self.write_config(example_config())])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(CSV) as f:
            counts = collections.Counter(int(r["y"]) for r in csv.DictReader(f))
        self.assertIn("y: 3 unordered categories (reference 1); rows per category: " +
                      ", ".join("%d: %d" % (k, counts[k]) for k in range(1, 4)), p.stdout)
        self.assertIn("parameters  8: " + " ".join(names(3, 1)), p.stdout)
        self.assertIn("monte_carlo", p.stdout)

    def test_fit_covers_the_truth(self):
        for algorithm in ("auto", "meanfield"):
            cfg = example_config()
            cfg["inference"]["algorithm"] = algorithm
            p = run(["fit", self.write_config(cfg), "--quiet", "--threads", "1"])
            self.assertEqual(p.returncode, 0, p.stderr)
            s = json.loads(p.stdout)
            self.assertEqual(s["method"], "monte_carlo")
            self.assertEqual(s["algorithm"], "fullrank" if algorithm == "auto" else "meanfield")
            got = {q["name"]: q for q in s["parameters"]}
            truth = {"alpha.%d" % k: v for k, v in TRUE_ALPHA.items()}
            truth.update({"beta.%d.%d" % (k, j + 1): TRUE_BETA[k][j] for k in (2, 3) for j in range(3)})
            self.assertEqual(sorted(got), sorted(truth))
            self.assertEqual(got["beta.3.2"]["label"], "mu3_x2")
            for name, value in truth.items():
                with self.subTest(algorithm=algorithm, parameter=name):
                    self.assertLessEqual(abs(got[name]["mean"] - value), 3.5 * got[name]["sd"], got[name])

    def test_predict_from_the_draws(self):
        cfg = example_config()
        cfg["inference"]["output_draws"] = 200
        config = self.write_config(cfg)
        out = self.path("fit")
        p = run(["fit", config, "--quiet", "--threads", "1", "--output", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "draws.csv")) as f:
            lines = [l for l in f if not l.startswith("#")]
        header = lines[0].strip().split(",")
        draws = np.array([[float(v) for v in l.split(",")] for l in lines[2:]])  # row 1: q's mean
        x, y = load()
        eta = np.zeros((len(draws), len(y), 3))
        for k in (2, 3):
            a = draws[:, header.index("alpha.%d" % k)]
            b = draws[:, [header.index("beta.%d.%d" % (k, j)) for j in (1, 2, 3)]]
            eta[:, :, k - 1] = a[:, None] + b @ x.T
        want = special.softmax(eta, axis=2).mean(axis=0)  # rows x K
        p = run(["predict", config, "--fit", out, "--metrics", self.path("m.json"), "--replicates", "50",
                 self.path("rep.csv")])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        self.assertEqual(list(rows[0]), ["p_1", "p_2", "p_3", "category"])
        got = np.array([[float(r["p_%d" % (k + 1)]) for k in range(3)] for r in rows])
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
        self.assertEqual([int(r["category"]) for r in rows], list(want.argmax(axis=1) + 1))
        with open(self.path("m.json")) as f:
            metrics = json.load(f)
        onehot = np.eye(3)[y - 1]
        self.assertAlmostEqual(metrics["log_loss"], -np.log(want[np.arange(len(y)), y - 1]).mean(), places=9)
        self.assertAlmostEqual(metrics["accuracy"], (want.argmax(axis=1) + 1 == y).mean(), places=12)
        self.assertAlmostEqual(metrics["brier_score"], ((want - onehot) ** 2).sum(axis=1).mean(), places=9)
        reps = np.loadtxt(self.path("rep.csv"), delimiter=",", skiprows=1)
        self.assertEqual(reps.shape, (50, 200))
        self.assertTrue(set(np.unique(reps)) <= {1, 2, 3})
        for k in range(3):
            self.assertLess(abs((reps == k + 1).mean() - want[:, k].mean()), 0.03)
        bad = self.write("new.csv", "x1,x2,x3,y\n0.1,0.2,0.3,2\n0.1,0.2,0.3,4\n")
        self.assert_error(run(["predict", config, "--fit", out, "--data", bad]), 65, where=bad + ":3",
                          contains="(the model's K)")
        # loo runs (its numbers: test_categorical_loo.py).
        p = run(["loo", config, "--fit", out])
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_simulated_data_fit_back(self):
        data = self.path("sim.csv")
        p = run(["simulate", "--rows", "1500", "--features", "2", "--seed", "5", "--likelihood",
                 "categorical_logit", "--levels", "4", "--intercept", "0.3", "--output", data])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("sim.truth.csv")) as f:
            truth = dict(l.strip().split(",") for l in f.readlines()[1:])
        self.assertEqual(list(truth), names(4, 1, D=2))
        with open(data) as f:
            self.assertEqual(set(int(r["y"]) for r in csv.DictReader(f)), {1, 2, 3, 4})
        cfg = {"data": {"csv": data}, "model": {"likelihood": "categorical_logit", "formula": "y ~ x1 + x2"},
               "inference": {"seed": 2}}
        p = run(["fit", self.write_config(cfg), "--quiet", "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = {q["name"]: q for q in json.loads(p.stdout)["parameters"]}
        for name, value in truth.items():
            with self.subTest(parameter=name):
                self.assertLessEqual(abs(got[name]["mean"] - float(value)), 4 * got[name]["sd"], got[name])

    def test_ranks_and_float32(self):
        # The same bits on 1 and 2 ranks (K from the largest category on any rank); float32 features
        # (single-precision GEMMs) agree to float's digits.
        cfg = example_config()
        cfg["inference"]["output_draws"] = 100
        one = run(["fit", self.write_config(cfg), "--quiet", "--threads", "1"])
        self.assertEqual(one.returncode, 0, one.stderr)
        if MPIRUN:
            two = subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", BINARY, "fit", self.write_config(cfg),
                                  "--quiet", "--threads", "1"], capture_output=True, text=True, timeout=120,
                                 env=MPI_ENV)
            self.assertEqual(two.returncode, 0, two.stderr)
            self.assertEqual(numbers(one.stdout), numbers(two.stdout))
        cfg["data"]["dtype"] = "float32"
        f32 = run(["fit", self.write_config(cfg, "f32.json"), "--quiet", "--threads", "1"])
        self.assertEqual(f32.returncode, 0, f32.stderr)
        for a, b in zip(json.loads(one.stdout)["parameters"], json.loads(f32.stdout)["parameters"]):
            self.assertEqual(a["name"], b["name"])
            self.assertAlmostEqual(a["mean"], b["mean"], delta=1e-4 * a["sd"])

    def test_categories_from_the_config(self):
        # K = 4 though no row takes 4: a fourth category's coefficients (identified by the prior).
        cfg = example_config()
        cfg["model"]["categories"] = 4
        p = run(["check", self.write_config(cfg)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("parameters  12: " + " ".join(names(4, 1)), p.stdout)
        self.assertIn("y: 4 unordered categories (reference 1); rows per category: 1: 45, 2: 102, 3: 53, 4: 0",
                      p.stdout)
        cfg["model"]["reference_category"] = 2
        p = run(["check", self.write_config(cfg)])
        self.assertIn("y: 4 unordered categories (reference 2)", p.stdout)
        self.assertIn("parameters  12: " + " ".join(names(4, 2)), p.stdout)

    def labelled(self, names, name="labels.csv"):
        x, y = load()
        rows = ["x1,x2,x3,y"] + ["%r,%r,%r,%s" % (a, b, c, names[v]) for (a, b, c), v in zip(x, y)]
        return self.write(name, "\n".join(rows) + "\n")

    def test_labels_give_the_integer_fit(self):
        # /data/levels: the response as labels (brms's factor response), read as their positions,
        # the reference first by default. The same rows as integers give the same bits; labels
        # name the parameters as brms does (muvan_Intercept), check's counts and predict's columns.
        labels = ["bus", "car", "van"]
        base = example_config()
        base["inference"]["output_draws"] = 100
        named = dict(base, data={"csv": self.labelled({1: "bus", 2: " car ", 3: "van"}), "levels": labels,
                                 "response": "y"})
        sb = self.assert_same_fit(base, named, self.path("fit"))
        got = {q["name"]: q["label"] for q in sb["parameters"]}
        self.assertEqual(got["alpha.3"], "muvan_Intercept")
        self.assertEqual(got["beta.2.1"], "mucar_x1")
        _, y = load()
        counts = collections.Counter(y)
        p = run(["check", self.write_config(named, "named.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("y: 3 unordered categories (reference bus); rows per category: " +
                      ", ".join("%s: %d" % (labels[k - 1], counts[k]) for k in (1, 2, 3)), p.stdout)
        self.assert_labelled_predictions(self.write_config(named, "named.json"), self.path("fit"), labels,
                                         ("van", "bus"), "truck")
        # Another reference by its position in the list; a fourth level no row takes is a category.
        other = json.loads(json.dumps(named))
        other["data"]["levels"] = labels + ["taxi"]
        other["model"]["reference_category"] = 3
        p = run(["check", self.write_config(other, "other.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("y: 4 unordered categories (reference van)", p.stdout)
        self.assertIn("taxi: 0", p.stdout)
        self.assertIn("parameters  12: " + " ".join(names(4, 3)), p.stdout)

    def test_label_errors(self):
        # Text without /data/levels says what is missing; a label not in the list is 65 at its
        # line; /model/categories and /model/reference_category must fit the list (78).
        text = self.labelled({1: "bus", 2: "car", 3: "van"})
        cfg = dict(example_config(), data={"csv": text, "response": "y"})
        self.assert_error(run(["check", self.write_config(cfg)]), 65, where=text + ":2",
                          contains="categories as text need /data/levels")
        cfg["data"]["levels"] = ["bus", "car"]
        self.assert_error(run(["check", self.write_config(cfg)]), 65, contains="'van' is not one of the categories")
        cfg["data"]["levels"] = ["bus", "car", "van"]
        cfg["model"] = dict(cfg["model"], categories=4)
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/model/categories",
                          contains="/data/levels has 3 categories")
        cfg["model"] = dict(cfg["model"], categories=None, reference_category=4)
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/model/reference_category",
                          contains="/data/levels has 3 categories")

    def test_errors(self):
        base = example_config()
        for value, line, what in (("0", 3, "got 0"), ("2.5", 4, "got 2.5"), ("b", 2, "'b'")):
            lines = ["x1,x2,x3,y"] + ["0.1,0.2,0.3,2"] * 4
            lines[line - 1] = "0.1,0.2,0.3," + value
            bad = self.write("bad.csv", "\n".join(lines) + "\n")
            cfg = dict(base, data={"csv": bad, "response": "y"})
            with self.subTest(value=value):
                self.assert_error(run(["check", self.write_config(cfg)]), 65, where=bad + ":%d" % line)
        lines = ["x1,x2,x3,y", "0.1,0.2,0.3,1", "0.1,0.2,0.3,3"]
        bad = self.write("above.csv", "\n".join(lines) + "\n")
        cfg = json.loads(json.dumps(base))
        cfg["data"]["csv"] = bad
        cfg["model"]["categories"] = 2
        self.assert_error(run(["check", self.write_config(cfg)]), 65, where=bad + ":3", contains="(the model's K)")

        def refused(change, where, contains):
            cfg = json.loads(json.dumps(base))
            change(cfg)
            self.assert_error(run(["check", self.write_config(cfg)]), 78, where=where, contains=contains)
        refused(lambda c: c["model"].update(reference_category=4), "/model/reference_category", "3 categories")
        refused(lambda c: c["model"].update(categories=3, reference_category=5), "/model/reference_category",
                "/model/categories is 3")
        refused(lambda c: c.update(model={"likelihood": "bernoulli_logit", "reference_category": 2}),
                "/model/reference_category", "categorical_logit likelihood only")
        refused(lambda c: c.update(model={"likelihood": "bernoulli_logit", "categories": 3}),
                "/model/categories", "ordinal_probit likelihoods only")
        refused(lambda c: c["inference"].update(method="exact"), "/inference/method", "monte_carlo")
        refused(lambda c: c["data"].update(offset="x3"), "/data/offset", "takes no offset")


if __name__ == "__main__":
    unittest.main()
