"""ordinal_logit and ordinal_probit end to end (cumulative ordinal regression, brms's cumulative,
stan_polr): eval's log joint and gradient against an independent scipy formula (the category
probabilities as differences of scipy.stats.logistic / norm CDFs, the priors as scipy.stats
logpdfs); what check reports (K, rows per category, the cutpoints and their default prior); the
Monte Carlo fit of the example data covering the truth it was drawn from
(data/make_likelihood_data.py), with a varying intercept too; a fullrank fit against rstan's NUTS
(tests/reference/ordinal_nuts.py); predict's probabilities, metrics and replicates against numbers
computed from draws.csv; simulate's data fitted back; the same bits on 1 and 2 ranks; and the
errors: a category that is not an integer >= 1 is exit 65 at FILE:LINE, /model/intercept true,
the exact method is exit 78, /model/categories
bounds the categories; labels in /data/levels give the integer coding's bits,
name the cutpoints, check's counts and predict's columns, and bad labels (65) and bad lists (78)
are refused. Small data: about 10 CPU-seconds."""
import collections
import csv
import json
import os
import shutil
import subprocess
import unittest

import numpy as np
from scipy import stats

from bvi_test import BINARY, BinaryTestCase, SOURCE_DIR, read_csv_rows, run

FEATURES = ["x1", "x2", "x3"]
TRUE_BETA, TRUE_CUTPOINTS = [1.0, -0.5, 0.25], [-1.0, 0.0, 1.2]
CDF = {"ordinal_logit": stats.logistic.cdf, "ordinal_probit": stats.norm.cdf}
MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")


def numbers(text):
    return {k: v for k, v in json.loads(text).items() if k not in ("seconds", "threads", "ranks")}


def example_config(link):
    with open(SOURCE_DIR + "/configs/likelihoods/%s.json" % link) as f:
        cfg = json.load(f)
    cfg["data"]["csv"] = SOURCE_DIR + "/data/lik_%s.csv" % link
    return cfg


def load(link):
    data = np.genfromtxt(SOURCE_DIR + "/data/lik_%s.csv" % link, delimiter=",", names=True)
    return np.column_stack([data[f] for f in FEATURES]), data["y"].astype(int)


def log_joint(link, x, y, beta, cut):
    """Every constant: the likelihood and the example config's priors (beta ~ normal(0, 2.5),
    cutpoints ~ student_t(3, 0, 2.5)); the ordered transform's Jacobian is not in eval's value."""
    eta = x @ beta
    c = np.concatenate([[-np.inf], cut, [np.inf]])
    p = CDF[link](c[y] - eta) - CDF[link](c[y - 1] - eta)
    return (np.log(p).sum() + stats.norm.logpdf(beta, 0, 2.5).sum()
            + stats.t.logpdf(cut, 3, 0, 2.5).sum())


class Ordinal(BinaryTestCase):
    def test_eval_matches_scipy(self):
        for link in ("ordinal_logit", "ordinal_probit"):
            x, y = load(link)
            points = [([0.8, -0.3, 0.1], [-1.2, 0.1, 1.0]), ([0.0, 0.0, 0.0], [-0.5, -0.4, 3.0])]
            text = "beta.1,beta.2,beta.3,cutpoints.1,cutpoints.2,cutpoints.3\n" + "".join(
                ",".join(repr(v) for v in b + c) + "\n" for b, c in points)
            p = run(["eval", self.write_config(example_config(link)), "--params", self.write("p.csv", text),
                     "--grad"])
            self.assertEqual(p.returncode, 0, p.stderr)
            rows = read_csv_rows(p.stdout)
            for (b, c), row in zip(points, rows):
                want = log_joint(link, x, y, np.array(b), np.array(c))
                with self.subTest(link=link, point=(b, c)):
                    self.assertAlmostEqual(float(row["log_joint"]), want, delta=1e-9 * abs(want))
                    theta = np.array(b + c)
                    for j, name in enumerate(["beta.1", "beta.2", "beta.3", "cutpoints.1", "cutpoints.2",
                                              "cutpoints.3"]):
                        h = np.zeros(6)
                        h[j] = 1e-6
                        f = lambda t: log_joint(link, x, y, t[:3], t[3:])
                        fd = (f(theta + h) - f(theta - h)) / 2e-6
                        self.assertAlmostEqual(float(row["grad." + name]), fd, delta=1e-5 * max(1, abs(fd)))

    def test_eval_with_cutpoints_tied_at_eta(self):
        # Two cutpoints equal at a row's eta give that category probability 0: log joint -inf, for
        # either link, with or without --grad. Ties at eta = 0 (beta = 0) once sent the probit's
        # reflection into endless recursion (a stack overflow, exit 139).
        for link in ("ordinal_logit", "ordinal_probit"):
            x, y = load(link)
            cfg = self.write_config(example_config(link))
            points = [[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1], [0, 0, 0, -1, 0, 0], [0, 0, 0, 0.5, 0.5, 0.5],
                      [0, 0, 0, -1.2, 0.1, 1.0]]
            text = "beta.1,beta.2,beta.3,cutpoints.1,cutpoints.2,cutpoints.3\n" + "".join(
                ",".join(repr(v) for v in row) + "\n" for row in points)
            params = self.write("tied.csv", text)
            for grad in ([], ["--grad"]):
                with self.subTest(link=link, grad=grad):
                    p = run(["eval", cfg, "--params", params] + grad, timeout=60)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    rows = read_csv_rows(p.stdout)
                    self.assertEqual(len(rows), len(points))
                    for point, row in zip(points, rows):
                        if len(set(point[3:])) < 3:  # tied
                            self.assertEqual(float(row["log_joint"]), -np.inf, point)
                        else:
                            want = log_joint(link, x, y, np.array(point[:3], float), np.array(point[3:], float))
                            self.assertAlmostEqual(float(row["log_joint"]), want, delta=1e-9 * abs(want))

    def test_check_reports_categories_and_cutpoints(self):
        cfg = example_config("ordinal_logit")
        del cfg["model"]["priors"]["cutpoints"]
        p = run(["check", self.write_config(cfg)])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(cfg["data"]["csv"]) as f:
            counts = collections.Counter(int(r["y"]) for r in csv.DictReader(f))
        self.assertIn("y: 4 ordered categories; rows per category: " +
                      ", ".join("%d: %d" % (k, counts[k]) for k in range(1, 5)), p.stdout)
        self.assertIn("parameters  6: beta.1 beta.2 beta.3 cutpoints.1 cutpoints.2 cutpoints.3", p.stdout)
        self.assertIn("prior       cutpoints ~ student_t(df=3, loc=0, scale=2.5) on the cutpoints at the feature means "
                      "(centered) (default)", p.stdout)
        self.assertIn("monte_carlo", p.stdout)

    def test_cutpoints_prior_per_cutpoint(self):
        # One entry per cutpoint (K - 1 = 3 here): the fit checks the config before it reads the
        # data, when K is not known yet, and must not refuse the arrays there; the wrong length is
        # refused once the data says K.
        cfg = example_config("ordinal_logit")
        cfg["model"]["priors"]["cutpoints"] = {"normal": {"loc": [-1, 0, 1], "scale": [2, 2, 2]}}
        p = run(["fit", self.write_config(cfg), "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([q["name"] for q in json.loads(p.stdout)["parameters"]][-3:],
                         ["cutpoints.1", "cutpoints.2", "cutpoints.3"])
        cfg["model"]["priors"]["cutpoints"] = {"normal": {"loc": [-1, 0, 1, 2], "scale": 2}}
        self.assert_error(run(["fit", self.write_config(cfg), "--quiet"]), 78,
                          where="/model/priors/cutpoints/normal/loc", contains="cutpoints has 3 entries")

    def test_fit_covers_the_truth(self):
        for link in ("ordinal_logit", "ordinal_probit"):
            p = run(["fit", self.write_config(example_config(link)), "--quiet", "--threads", "1"])
            self.assertEqual(p.returncode, 0, p.stderr)
            s = json.loads(p.stdout)
            self.assertEqual(s["method"], "monte_carlo")
            got = {q["name"]: q for q in s["parameters"]}
            truth = dict(zip(["beta.1", "beta.2", "beta.3", "cutpoints.1", "cutpoints.2", "cutpoints.3"],
                             TRUE_BETA + TRUE_CUTPOINTS))
            self.assertEqual(sorted(got), sorted(truth))
            for name, value in truth.items():
                with self.subTest(link=link, parameter=name):
                    self.assertLessEqual(abs(got[name]["mean"] - value), 3.5 * got[name]["sd"], got[name])
            means = [got["cutpoints.%d" % k]["mean"] for k in (1, 2, 3)]
            self.assertEqual(means, sorted(means))

    def test_varying_intercept(self):
        x, y = load("ordinal_logit")
        g = np.arange(len(y)) % 5
        rows = ["x1,x2,x3,g,y"] + ["%r,%r,%r,g%d,%d" % (a, b, c, k, v) for (a, b, c), k, v in zip(x, g, y)]
        csv = self.write("grouped.csv", "\n".join(rows) + "\n")
        cfg = {"data": {"csv": csv}, "model": {"formula": "y ~ x1 + x2 + x3 + (1 | g)",
                                               "likelihood": "ordinal_logit"},
               "inference": {"seed": 3}}
        p = run(["fit", self.write_config(cfg), "--quiet", "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        names = [q["name"] for q in json.loads(p.stdout)["parameters"]]
        self.assertIn("sd_g.1", names)
        self.assertIn("r_g.5.1", names)
        self.assertIn("cutpoints.3", names)
        self.assertNotIn("alpha", names)  # the formula's implicit intercept is dropped, as brms does

    def test_factor_coded_against_the_cutpoints(self):
        # The cutpoints are the model's intercept: a factor gets one column per level but the
        # first, as polr and brms code it (every level would leave the cutpoints' level and the
        # factor's unidentified: posterior sds of ~3, no convergence). Truth relative to level a.
        rng = np.random.default_rng(11)
        n = 1500
        f = rng.integers(0, 3, n)
        x = rng.normal(size=n)
        eta = 0.7 * x + np.array([0.0, 0.8, -0.6])[f]
        cut = np.array([-0.8, 0.6])
        y = 1 + (rng.logistic(size=n) + eta > cut[:, None]).sum(axis=0)
        rows = ["x,f,y"] + ["%r,%s,%d" % (a, "abc"[k], v) for a, k, v in zip(x, f, y)]
        csv = self.write("factor.csv", "\n".join(rows) + "\n")
        cfg = {"data": {"csv": csv, "categorical": ["f"]},
               "model": {"formula": "y ~ x + f", "likelihood": "ordinal_logit"}, "inference": {"seed": 5}}
        p = run(["fit", self.write_config(cfg), "--quiet", "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        s = json.loads(p.stdout)
        self.assertTrue(s["converged"])
        got = {q["label"]: q for q in s["parameters"]}
        truth = {"x": 0.7, "f[b]": 0.8, "f[c]": -0.6, "1|2": -0.8, "2|3": 0.6}
        self.assertEqual(sorted(got), sorted(truth))
        for name, value in truth.items():
            with self.subTest(parameter=name):
                self.assertLess(got[name]["sd"], 0.2)
                self.assertLessEqual(abs(got[name]["mean"] - value), 3.5 * got[name]["sd"], got[name])

    def test_predict_from_the_draws(self):
        # p_k the mean over draws of F(c_k - eta) - F(c_{k-1} - eta), computed here from draws.csv;
        # the metrics and the replicates from those numbers.
        link = "ordinal_probit"
        cfg = example_config(link)
        cfg["inference"]["output_draws"] = 200
        config = self.write_config(cfg)
        out = self.path("fit")
        p = run(["fit", config, "--quiet", "--threads", "1", "--output", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "draws.csv")) as f:
            lines = [l for l in f if not l.startswith("#")]
        header = lines[0].strip().split(",")
        draws = np.array([[float(v) for v in l.split(",")] for l in lines[2:]])  # row 1: q's mean
        beta = draws[:, [header.index("beta.%d" % j) for j in (1, 2, 3)]]
        cut = draws[:, [header.index("cutpoints.%d" % k) for k in (1, 2, 3)]]
        x, y = load(link)
        eta = x @ beta.T  # rows x draws
        c = np.concatenate([np.full((len(cut), 1), -np.inf), cut, np.full((len(cut), 1), np.inf)], axis=1)
        want = np.stack([(CDF[link](c[:, k + 1][None, :] - eta) - CDF[link](c[:, k][None, :] - eta)).mean(axis=1)
                         for k in range(4)], axis=1)
        p = run(["predict", config, "--fit", out, "--metrics", self.path("m.json"), "--replicates", "50",
                 self.path("rep.csv")])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        self.assertEqual(list(rows[0]), ["p_1", "p_2", "p_3", "p_4", "category"])
        got = np.array([[float(r["p_%d" % (k + 1)]) for k in range(4)] for r in rows])
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
        self.assertEqual([int(r["category"]) for r in rows], list(want.argmax(axis=1) + 1))
        with open(self.path("m.json")) as f:
            metrics = json.load(f)
        cum = np.cumsum(want, axis=1)[:, :3]
        rps = ((cum - (y[:, None] <= np.arange(1, 4)[None, :])) ** 2).sum(axis=1) / 3
        self.assertAlmostEqual(metrics["log_loss"], -np.log(want[np.arange(len(y)), y - 1]).mean(), places=9)
        self.assertAlmostEqual(metrics["accuracy"], (want.argmax(axis=1) + 1 == y).mean(), places=12)
        self.assertAlmostEqual(metrics["ranked_probability_score"], rps.mean(), places=9)
        reps = np.loadtxt(self.path("rep.csv"), delimiter=",", skiprows=1)
        self.assertEqual(reps.shape, (50, 200))
        self.assertTrue(set(np.unique(reps)) <= {1, 2, 3, 4})
        # Replicated categories are as frequent as predicted (50 x 200 draws: within 0.03).
        for k in range(4):
            self.assertLess(abs((reps == k + 1).mean() - want[:, k].mean()), 0.03)
        # New rows with a category above the fit's K: exit 65 at the line.
        bad = self.write("new.csv", "x1,x2,x3,y\n0.1,0.2,0.3,2\n0.1,0.2,0.3,5\n")
        self.assert_error(run(["predict", config, "--fit", out, "--data", bad]), 65, where=bad + ":3",
                          contains="(the model's K)")

    def test_simulated_data_fit_back(self):
        data = self.path("sim.csv")
        p = run(["simulate", "--rows", "800", "--features", "3", "--seed", "5", "--likelihood", "ordinal_logit",
                 "--levels", "5", "--output", data])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("sim.truth.csv")) as f:
            truth = dict(l.strip().split(",") for l in f.readlines()[1:])
        self.assertEqual(sorted(truth), ["beta.1", "beta.2", "beta.3"] + ["cutpoints.%d" % k for k in range(1, 5)])
        # F^-1(k / K) for the logit: log(k / (K - k)).
        for k in range(1, 5):
            self.assertAlmostEqual(float(truth["cutpoints.%d" % k]), np.log(k / (5 - k)), places=6)
        cfg = example_config("ordinal_logit")
        cfg["data"]["csv"] = data
        p = run(["fit", self.write_config(cfg), "--quiet", "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = {q["name"]: q for q in json.loads(p.stdout)["parameters"]}
        for name, value in truth.items():
            with self.subTest(parameter=name):
                self.assertLessEqual(abs(got[name]["mean"] - float(value)), 4 * got[name]["sd"], got[name])

    def test_ranks_give_the_same_bits(self):
        # K from the largest category on any rank, the per-category counts summed over ranks.
        cfg = example_config("ordinal_logit")
        cfg["inference"]["output_draws"] = 100
        config = self.write_config(cfg)
        one = run(["fit", config, "--quiet", "--threads", "1"])
        self.assertEqual(one.returncode, 0, one.stderr)
        if MPIRUN:
            ranks = subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", BINARY, "fit", config, "--quiet",
                                    "--threads", "1"], capture_output=True, text=True, timeout=120, env=MPI_ENV)
            self.assertEqual(ranks.returncode, 0, ranks.stderr)
            self.assertEqual(numbers(one.stdout), numbers(ranks.stdout))
            check_three = subprocess.run([MPIRUN, "--oversubscribe", "-n", "3", BINARY, "check", config],
                                         capture_output=True, text=True, timeout=60, env=MPI_ENV).stdout
            self.assertEqual(run(["check", config]).stdout, check_three)

    def test_fullrank_fit_against_nuts(self):
        # tests/reference/ordinal_nuts.py: 1000 simulated rows, K = 5, rstan NUTS 4 x (1000 + 5000).
        # Measured: means within 0.04 NUTS sd, sds within 2.5 %; meanfield's cutpoint sds are off by up
        # to 32 % (the cutpoints are sums of correlated gaps), so the reference is held under fullrank.
        reference = os.path.join(SOURCE_DIR, "tests", "reference")
        with open(os.path.join(reference, "fixtures", "sim_ordinal.nuts.json")) as f:
            nuts = {q["name"]: q for q in json.load(f)["parameters"]}
        with open(os.path.join(reference, "sim_ordinal.json")) as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = os.path.join(reference, cfg["data"]["csv"])
        cfg["inference"] = {"algorithm": "fullrank", "output_draws": 100}
        p = run(["fit", self.write_config(cfg), "--quiet", "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = json.loads(p.stdout)["parameters"]
        self.assertEqual(sorted(q["name"] for q in got), sorted(nuts))
        for q in got:
            ref = nuts[q["name"]]
            with self.subTest(parameter=q["name"]):
                self.assertLessEqual(abs(q["mean"] - ref["mean"]), 0.1 * ref["sd"], (q, ref))
                self.assertLessEqual(abs(q["sd"] / ref["sd"] - 1), 0.10, (q, ref))

    def labelled(self, y, names, name="labels.csv"):
        x, _ = load("ordinal_logit")
        rows = ["x1,x2,x3,y"] + ["%r,%r,%r,%s" % (a, b, c, names[v]) for (a, b, c), v in zip(x, y)]
        return self.write(name, "\n".join(rows) + "\n")

    def test_labels_give_the_integer_fit(self):
        # /data/levels: the response as labels, read as their positions. The same rows as integers
        # give the same bits; a level no row takes (here the lowest) still has its cutpoint, as the
        # integers 2 ... 5 do (K = 5, category 1 never observed).
        _, y = load("ordinal_logit")
        labels = ["none", "poor", "fair", "good", "great"]
        base = example_config("ordinal_logit")
        base["inference"]["output_draws"] = 100
        shifted = dict(base, data={"csv": self.labelled(y, {k: str(k + 1) for k in range(1, 5)}, "ints.csv"),
                                   "response": "y"})
        named = dict(base, data={"csv": self.labelled(y, {k: " %s " % labels[k] if k == 2 else labels[k]
                                                          for k in range(1, 5)}),
                                 "response": "y", "levels": labels})
        sb = self.assert_same_fit(shifted, named, self.path("fit"))
        self.assertEqual(len([q for q in sb["parameters"] if q["name"].startswith("cutpoints.")]), 4)
        counts = collections.Counter(y)
        p = run(["check", self.write_config(named, "named.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("y: 5 ordered categories; rows per category: none: 0, " +
                      ", ".join("%s: %d" % (labels[k], counts[k]) for k in range(1, 5)), p.stdout)
        # predict names its columns and categories by the labels; a label not in the list is 65.
        new = self.assert_labelled_predictions(self.write_config(named, "named.json"), self.path("fit"), labels,
                                               ("good", "poor"), "excellent")
        # The fit's list and the config's must agree.
        other = json.loads(json.dumps(named))
        other["data"]["levels"] = labels[::-1]
        self.assert_error(run(["predict", self.write_config(other, "other.json"), "--fit", self.path("fit"),
                               "--data", new]), 78, where="/data/levels", contains="was made with the levels")

    def test_label_errors(self):
        _, y = load("ordinal_logit")
        names = {1: "low", 2: "mid", 3: "high", 4: "top"}
        base = example_config("ordinal_probit")
        good = ["low", "mid", "high", "top"]
        y = y.copy()
        y[6] = 0  # line 8: a label not in the list
        names[0] = "medium"
        csv = self.labelled(y, names)
        cfg = dict(base, data={"csv": csv, "response": "y", "levels": good})
        self.assert_error(run(["check", self.write_config(cfg)]), 65, where=csv + ":8",
                          contains="'medium' is not one of the categories in /data/levels")
        for levels, where, what in ((["low", "mid", "low"], "/data/levels/2", "listed twice"),
                                    (["low"], "/data/levels", "at least 2"),
                                    ([], "/data/levels", "must not be empty"),
                                    (["low", "NA"], "/data/levels/1", "missing cell"),
                                    (["low", " mid"], "/data/levels/1", "surrounding spaces")):
            cfg = dict(base, data={"csv": csv, "response": "y", "levels": levels})
            with self.subTest(levels=levels):
                self.assert_error(run(["check", self.write_config(cfg)]), 78, where=where, contains=what)
        cfg = {"data": {"csv": csv, "response": "y", "levels": good}, "model": {"likelihood": "poisson_log"}}
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/data/levels",
                          contains="takes no levels")
        # The binary likelihoods take exactly two (tests/e2e/test_binary_labels.py).
        cfg["model"]["likelihood"] = "bernoulli_logit"
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/data/levels",
                          contains="a binary response has 2 labels")
        # Integer data with a config that has levels: the integers are not labels of the list.
        cfg = dict(base, data={"csv": base["data"]["csv"], "response": "y", "levels": good})
        self.assert_error(run(["check", self.write_config(cfg)]), 65, where=base["data"]["csv"] + ":2",
                          contains="is not one of the categories")

    def test_errors(self):
        base = example_config("ordinal_probit")
        for value, line, what in (("0", 3, "got 0"), ("2.5", 4, "got 2.5"), ("high", 2, "high")):
            lines = ["x1,x2,x3,y"] + ["0.1,0.2,0.3,2"] * 4
            lines[line - 1] = "0.1,0.2,0.3," + value
            csv = self.write("bad.csv", "\n".join(lines) + "\n")
            cfg = dict(base, data={"csv": csv, "response": "y"})
            p = run(["check", self.write_config(cfg)])
            with self.subTest(value=value):
                self.assert_error(p, 65, where=csv + ":%d" % line, contains=what)
        cfg = json.loads(json.dumps(base))
        cfg["model"]["intercept"] = True
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/model/intercept",
                          contains="cutpoints take its place")
        # /model/categories (kfold writes the full data's K into each fold's config): a category
        # above it is exit 65 at its line; with /data/levels it must be their number.
        cfg = json.loads(json.dumps(base))
        cfg["model"]["categories"] = 3
        lines = ["x1,x2,x3,y", "0.1,0.2,0.3,2", "0.1,0.2,0.3,4"]
        cfg["data"] = {"csv": self.write("four.csv", "\n".join(lines) + "\n"), "response": "y"}
        self.assert_error(run(["check", self.write_config(cfg)]), 65, where=cfg["data"]["csv"] + ":3",
                          contains="(the model's K)")
        cfg["data"]["levels"] = ["a", "b"]
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/model/categories",
                          contains="/data/levels has 2")
        cfg = json.loads(json.dumps(base))
        cfg["inference"]["method"] = "exact"
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/inference/method",
                          contains="monte_carlo")


if __name__ == "__main__":
    unittest.main()
