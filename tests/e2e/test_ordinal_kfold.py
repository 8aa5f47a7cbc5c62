"""`bayes-vi kfold` for ordinal_logit and ordinal_probit: K-fold and leave-group-out
cross-validation by refitting.

On 180 simulated rows (K = 4, 6 groups; ordinal_models.py): by row (ordinal_logit), each fold's
held-out log predictive densities recomputed from that fold's draws.csv with scipy (log mean_s of
F(c_y - eta) - F(c_{y-1} - eta), known groups' effects by label), elpd_kfold, its se and p_kfold
from them as R's kfold computes them, and the model with the predictor x1 ranked first by compare;
leave-group-out (--group g, ordinal_probit, labels) where the held-out groups are new to their
fold's fit: every level in one fold, the folds' values adding up to the document; and data whose
top category occurs in one group only, so that the fit holding that group out never sees it:
every fold's config carries the full data's K (/model/categories), and 2 MPI ranks give one
process's bytes."""
import csv
import json
import os
import shutil
import subprocess
import unittest

import numpy as np

import ordinal_models as om
from bvi_test import BINARY, BinaryTestCase, run

ROWS = 180


def read_folds(path):
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=int, ndmin=2)
    return a[:, 1] - 1


def read_values(path):
    with open(path) as f:
        return [(int(r["row"]) - 1, float(r["lpd"])) for r in csv.DictReader(f)]


class OrdinalKfold(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.data = om.simulate(ROWS, 6, seed=51)
        self.csv = om.write_csv(self.path("d.csv"), self.data)

    def kfold(self, formula, out, *args, link="ordinal_logit", data_csv=None, labels=False):
        cfg = self.write_config(om.config(data_csv or self.csv, formula, link, labels=labels, output_draws=200),
                                os.path.basename(out) + ".json")
        p = run(["kfold", cfg, "--output", self.path(out)] + list(args), timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_by_row_against_scipy_and_compare(self):
        doc = self.kfold("y ~ x1 + x2 + (1 | g)", "full", "--folds", "3")
        out = self.path("full")
        self.assertEqual((doc["rows"], doc["folds"], doc["likelihood"]), (ROWS, 3, "ordinal_logit"))
        fold = read_folds(os.path.join(out, "folds.csv"))
        elpd = np.full(ROWS, np.nan)
        for k in range(3):
            rows = np.flatnonzero(fold == k)
            fit = os.path.join(out, "fold_%d" % (k + 1), "fit")
            # Every group has rows in every fold's training data here: known groups' effects.
            elpd[rows] = om.lpd(om.log_lik(fit, self.data, ["x1", "x2"], "ordinal_logit", rows=rows))
            got = dict(read_values(os.path.join(out, "fold_%d" % (k + 1), "values.csv")))
            np.testing.assert_allclose([got[i] for i in rows], elpd[rows], rtol=1e-9)
        lpd = om.lpd(om.log_lik(os.path.join(out, "full", "fit"), self.data, ["x1", "x2"], "ordinal_logit"))
        self.assertAlmostEqual(doc["elpd_kfold"], elpd.sum(), delta=1e-9 * abs(elpd.sum()))
        self.assertAlmostEqual(doc["se_elpd_kfold"], np.sqrt(ROWS) * np.std(elpd, ddof=1), delta=1e-8)
        self.assertAlmostEqual(doc["p_kfold"], lpd.sum() - elpd.sum(), delta=1e-8)
        self.assertAlmostEqual(doc["kfoldic"], -2 * elpd.sum(), delta=1e-8)
        pw = np.loadtxt(doc["pointwise_file"], delimiter=",", skiprows=1)
        np.testing.assert_allclose(pw[:, 1], elpd, rtol=1e-12)
        self.assertGreater(doc["p_kfold"], 0)  # held-out rows are predicted worse than seen ones

        # Without x1 the model predicts worse: compare says so.
        small = self.kfold("y ~ x2 + (1 | g)", "small", "--folds", "3")
        p = run(["compare", os.path.join(out, "kfold.json"), self.path("small/kfold.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        models = json.loads(p.stdout)["models"]
        self.assertEqual([os.path.basename(os.path.dirname(m["model"])) for m in models], ["full", "small"])
        other = np.loadtxt(small["pointwise_file"], delimiter=",", skiprows=1)[:, 1]
        self.assertAlmostEqual(models[1]["elpd_diff"], (other - elpd).sum(), delta=1e-8)
        self.assertLess(models[1]["elpd_diff"], -2 * models[1]["se_diff"])

    def test_leave_group_out_probit_labels(self):
        csv_path = om.write_csv(self.path("labels.csv"), self.data, labels=True)
        doc = self.kfold("y ~ x1 + x2 + (1 | g)", "lgo", "--group", "g", "--folds", "3", link="ordinal_probit",
                         data_csv=csv_path, labels=True)
        out = self.path("lgo")
        self.assertEqual((doc["folds"], doc["group"], doc["rows"], doc["likelihood"]),
                         (3, "g", ROWS, "ordinal_probit"))
        fold = read_folds(os.path.join(out, "folds.csv"))
        g = np.array(self.data["g"])
        for level in set(g):
            self.assertEqual(len(set(fold[g == level])), 1)
        elpd = np.full(ROWS, np.nan)
        for k in range(3):
            for row, v in read_values(os.path.join(out, "fold_%d" % (k + 1), "values.csv")):
                self.assertEqual(fold[row], k)
                elpd[row] = v
            # The levels fix K: no /model/categories written.
            with open(os.path.join(out, "fold_%d" % (k + 1), "config.json")) as f:
                self.assertNotIn("categories", json.load(f)["model"])
        self.assertFalse(np.isnan(elpd).any())
        pw = np.loadtxt(doc["pointwise_file"], delimiter=",", skiprows=1)
        np.testing.assert_array_equal(pw[:, 1], elpd)
        self.assertAlmostEqual(doc["elpd_kfold"], elpd.sum(), delta=1e-9 * abs(elpd.sum()))
        # New groups predicted with the population's effects: worse than chance is not allowed.
        self.assertGreater(doc["elpd_kfold"], ROWS * np.log(1 / 4))

    def test_a_category_one_fold_never_sees(self):
        # Category 4 only in group g06: the fit that holds g06 out sees categories 1 ... 3 alone.
        data = dict(self.data)
        data["y"] = np.where(np.array(data["g"]) == "g06", data["y"], np.minimum(data["y"], 3))
        self.assertEqual(set(data["y"][np.array(data["g"]) != "g06"]), {1, 2, 3})
        self.assertIn(4, set(data["y"]))
        csv_path = om.write_csv(self.path("rare.csv"), data)
        doc = self.kfold("y ~ x1 + x2", "rare", "--group", "g", "--folds", "3", data_csv=csv_path)
        self.assertEqual(doc["folds"], 3)
        out = self.path("rare")
        for k in range(3):
            with open(os.path.join(out, "fold_%d" % (k + 1), "config.json")) as f:
                self.assertEqual(json.load(f)["model"]["categories"], 4)
        fold = read_folds(os.path.join(out, "folds.csv"))
        held = fold[np.flatnonzero(np.array(data["g"]) == "g06")[0]]
        rows = np.flatnonzero(fold == held)
        fit = os.path.join(out, "fold_%d" % (held + 1), "fit")
        want = om.lpd(om.log_lik(fit, data, ["x1", "x2"], "ordinal_logit", rows=rows))
        got = dict(read_values(os.path.join(out, "fold_%d" % (held + 1), "values.csv")))
        np.testing.assert_allclose([got[i] for i in rows], want, rtol=1e-9)
        # Its category-4 rows are predicted by a fit whose rows never took it: badly.
        fours = data["y"][rows] == 4
        self.assertLess(np.mean(want[fours]), np.mean(want[~fours]))

        # Under mpirun -n 2 (the root's K broadcast to the rank that refits the other folds): the
        # same document and bytes.
        if shutil.which("mpirun"):
            env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                       OMPI_MCA_rmaps_base_oversubscribe="1")
            cfg = self.path("rare.json")
            mpi = self.path("rare_mpi")
            q = subprocess.run(["mpirun", "--oversubscribe", "-n", "2", BINARY, "kfold", cfg, "--group", "g",
                                "--folds", "3", "--output", mpi, "--threads", "1"],
                               capture_output=True, text=True, timeout=600, env=env)
            self.assertEqual(q.returncode, 0, q.stderr)
            strip = lambda d: {k: v for k, v in d.items() if k != "pointwise_file"}
            self.assertEqual(strip(json.loads(q.stdout)), strip(doc))
            for name in ["pointwise.csv"] + ["fold_%d/values.csv" % (k + 1) for k in range(3)]:
                with open(os.path.join(out, name), "rb") as a, open(os.path.join(mpi, name), "rb") as b:
                    self.assertEqual(a.read(), b.read(), name)


if __name__ == "__main__":
    unittest.main()
