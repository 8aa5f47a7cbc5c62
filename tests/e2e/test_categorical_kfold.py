"""`bayes-vi kfold` for categorical_logit: K-fold and leave-group-out cross-validation by refitting.

On 240 simulated rows (K = 3, 6 groups; categorical_models.py): by row, each fold's held-out
log predictive densities recomputed from that fold's draws.csv with numpy (log mean_s softmax,
known groups' effects by label), elpd_kfold, its se and p_kfold from them as R's kfold computes
them, and the model with the predictor x1 ranked first by compare; leave-group-out (--group g) on
a model with group effects, where the held-out groups are new to their fold's fit: every level in
one fold, the folds' values files adding up to the document; and data whose third category occurs
in one group only, so that the fit holding that group out never sees it: every fold's config
carries the full data's K. About 60 CPU-seconds (17 small fits)."""
import csv
import json
import os
import unittest

import numpy as np

import categorical_models as cm
from bvi_test import BinaryTestCase, run


def read_folds(path):
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=int, ndmin=2)
    return a[:, 1] - 1


def read_values(path):
    with open(path) as f:
        return [(int(r["row"]) - 1, float(r["lpd"])) for r in csv.DictReader(f)]


class CategoricalKfold(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.data = cm.simulate(240, 6, seed=31)
        self.csv = cm.write_csv(self.path("d.csv"), self.data)

    def kfold(self, formula, out, *args, data_csv=None):
        cfg = self.write_config(cm.config(data_csv or self.csv, formula, output_draws=400),
                                os.path.basename(out) + ".json")
        p = run(["kfold", cfg, "--output", self.path(out)] + list(args), timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_by_row_against_numpy_and_compare(self):
        doc = self.kfold("y ~ x1 + x2 + (1 | g)", "full", "--folds", "3")
        out = self.path("full")
        self.assertEqual((doc["rows"], doc["folds"], doc["likelihood"]), (240, 3, "categorical_logit"))
        fold = read_folds(os.path.join(out, "folds.csv"))
        self.assertEqual(sorted(np.bincount(fold)), [80, 80, 80])
        n = len(self.data["y"])
        elpd = np.full(n, np.nan)
        for k in range(3):
            rows = np.flatnonzero(fold == k)
            fit = os.path.join(out, "fold_%d" % (k + 1), "fit")
            # Every group has rows in every fold's training data here: known groups' effects.
            elpd[rows] = cm.lpd(cm.log_lik(fit, self.data, ["x1", "x2"], rows=rows))
            got = dict(read_values(os.path.join(out, "fold_%d" % (k + 1), "values.csv")))
            np.testing.assert_allclose([got[i] for i in rows], elpd[rows], rtol=1e-9)
        lpd = cm.lpd(cm.log_lik(os.path.join(out, "full", "fit"), self.data, ["x1", "x2"]))
        self.assertAlmostEqual(doc["elpd_kfold"], elpd.sum(), delta=1e-9 * abs(elpd.sum()))
        self.assertAlmostEqual(doc["se_elpd_kfold"], np.sqrt(n) * np.std(elpd, ddof=1), delta=1e-8)
        self.assertAlmostEqual(doc["p_kfold"], lpd.sum() - elpd.sum(), delta=1e-8)
        self.assertAlmostEqual(doc["kfoldic"], -2 * elpd.sum(), delta=1e-8)
        pw = np.loadtxt(doc["pointwise_file"], delimiter=",", skiprows=1)
        np.testing.assert_allclose(pw[:, 1], elpd, rtol=1e-12)
        np.testing.assert_array_equal(pw[:, 4], fold + 1)
        self.assertGreater(doc["p_kfold"], 0)  # held-out rows are predicted worse than seen ones

        # Without x1 (which moves the odds by e^1.2) the model predicts worse: compare says so.
        small = self.kfold("y ~ x2 + (1 | g)", "small", "--folds", "3")
        p = run(["compare", os.path.join(out, "kfold.json"), self.path("small/kfold.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        models = json.loads(p.stdout)["models"]
        self.assertEqual([os.path.basename(os.path.dirname(m["model"])) for m in models], ["full", "small"])
        other = np.loadtxt(small["pointwise_file"], delimiter=",", skiprows=1)[:, 1]
        self.assertAlmostEqual(models[1]["elpd_diff"], (other - elpd).sum(), delta=1e-8)
        self.assertAlmostEqual(models[1]["se_diff"], np.sqrt(n) * np.std(other - elpd, ddof=1), delta=1e-8)
        self.assertLess(models[1]["elpd_diff"], -2 * models[1]["se_diff"])

    def test_leave_group_out(self):
        doc = self.kfold("y ~ x1 + x2 + (1 | g)", "lgo", "--group", "g", "--folds", "3")
        out = self.path("lgo")
        self.assertEqual((doc["folds"], doc["group"], doc["rows"]), (3, "g", 240))
        fold = read_folds(os.path.join(out, "folds.csv"))
        g = np.array(self.data["g"])
        for level in set(g):
            self.assertEqual(len(set(fold[g == level])), 1)
        self.assertEqual(len(set(fold)), 3)
        # The folds' values are the document's pointwise elpd, and add up to elpd_kfold.
        elpd = np.full(240, np.nan)
        for k in range(3):
            for row, v in read_values(os.path.join(out, "fold_%d" % (k + 1), "values.csv")):
                self.assertEqual(fold[row], k)
                elpd[row] = v
        self.assertFalse(np.isnan(elpd).any())
        pw = np.loadtxt(doc["pointwise_file"], delimiter=",", skiprows=1)
        np.testing.assert_array_equal(pw[:, 1], elpd)
        self.assertAlmostEqual(doc["elpd_kfold"], elpd.sum(), delta=1e-9 * abs(elpd.sum()))
        self.assertTrue(np.all(elpd < 0))

    def test_a_category_one_fold_never_sees(self):
        # Category 3 only in group g06: the fit that holds g06 out sees categories 1 and 2 alone.
        data = dict(self.data)
        data["y"] = np.where(np.array(data["g"]) == "g06", data["y"], np.minimum(data["y"], 2))
        self.assertEqual(set(data["y"][np.array(data["g"]) != "g06"]), {1, 2})
        csv_path = cm.write_csv(self.path("rare.csv"), data)
        doc = self.kfold("y ~ x1 + x2", "rare", "--group", "g", data_csv=csv_path)
        self.assertEqual(doc["folds"], 6)
        out = self.path("rare")
        for k in range(6):
            with open(os.path.join(out, "fold_%d" % (k + 1), "config.json")) as f:
                self.assertEqual(json.load(f)["model"]["categories"], 3)
        fold = read_folds(os.path.join(out, "folds.csv"))
        held = fold[np.flatnonzero(np.array(data["g"]) == "g06")[0]]
        rows = np.flatnonzero(fold == held)
        fit = os.path.join(out, "fold_%d" % (held + 1), "fit")
        want = cm.lpd(cm.log_lik(fit, data, ["x1", "x2"], rows=rows))
        got = dict(read_values(os.path.join(out, "fold_%d" % (held + 1), "values.csv")))
        np.testing.assert_allclose([got[i] for i in rows], want, rtol=1e-9)
        # Its category-3 rows are predicted by a fit whose rows never took it: badly.
        threes = data["y"][rows] == 3
        self.assertLess(np.mean(want[threes]), np.mean(want[~threes]))


if __name__ == "__main__":
    unittest.main()
