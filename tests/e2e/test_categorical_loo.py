"""`bayes-vi loo` and `compare` for categorical_logit (for the multinomial logit).

Three fits of 400 simulated rows (K = 3, 12 groups): y ~ x1 + x2 + (1 | g) and y ~ x2 + (1 | g)
with the first category the reference, and y ~ x1 + x2 with the second. Every row's log likelihood
at every draw is recomputed from draws.csv with numpy (categorical_models.py: the log softmax with
the reference's eta 0, group effects by their labels), and against it: lpd_i = elpd_loo_i + p_loo_i;
R's loo (loo_approximate_posterior and loo_compare on that same matrix with the draws' log_p__ and
log_g__) for the totals, every row's elpd_loo and Pareto k to 1e-8; compare ranks the model with
x1 first, its elpd_diff and se_diff the paired sums; subsampling LOO's approximation (the log
likelihood at the mean draw) and its sampled rows; the same bytes on 1 and 2 threads and on 1, 2
and 3 MPI ranks (5000 rows: two chunks). About 30 CPU-seconds."""
import json
import math
import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

import categorical_models as cm
from bvi_fit import load_json
from loo_files import pointwise_column, read_pointwise
from bvi_test import BINARY, BinaryTestCase, run
from test_loo import HAVE_R_LOO, r_loo

MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")

# name: (formula, features in beta's order, reference category)
MODELS = {"full": ("y ~ x1 + x2 + (1 | g)", ["x1", "x2"], 1),
          "no_x1": ("y ~ x2 + (1 | g)", ["x2"], 1),
          "ref2": ("y ~ x1 + x2", ["x1", "x2"], 2)}




class CategoricalLoo(BinaryTestCase):
    @classmethod
    def setUpClass(cls):
        cls._class_tmp = tempfile.TemporaryDirectory()
        tmp = cls._class_tmp.name
        cls.data = cm.simulate(400, 12, seed=21)
        csv_path = cm.write_csv(os.path.join(tmp, "d.csv"), cls.data)
        cls.fits = {}
        for name, (formula, _, ref) in MODELS.items():
            cfg = os.path.join(tmp, name + ".json")
            with open(cfg, "w") as f:
                json.dump(cm.config(csv_path, formula, ref), f)
            out = os.path.join(tmp, "fit_" + name)
            p = run(["fit", cfg, "--output", out, "--quiet"])
            if p.returncode != 0:
                raise AssertionError("fit failed: " + p.stderr)
            cls.fits[name] = (cfg, out)

    @classmethod
    def tearDownClass(cls):
        cls._class_tmp.cleanup()

    def loo(self, name, *extra):
        cfg, fit = self.fits[name]
        p = run(["loo", cfg, "--fit", fit] + list(extra))
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def loo_files(self, name, *extra):
        pw, out = self.path("pw_%s.csv" % name), self.path("loo_%s.json" % name)
        self.loo(name, "--pointwise", pw, "--output", out, *extra)
        return load_json(out), read_pointwise(pw), out

    def log_lik(self, name):
        _, features, ref = MODELS[name]
        return cm.log_lik(self.fits[name][1], self.data, features, reference=ref)

    def test_pointwise_against_numpy(self):
        for name in MODELS:
            with self.subTest(model=name):
                d, rows, _ = self.loo_files(name)
                self.assertEqual((d["rows"], d["draws"], d["likelihood"]), (400, 1000, "categorical_logit"))
                self.assertEqual([int(r["row"]) for r in rows], list(range(1, 401)))
                elpd, p_loo = pointwise_column(rows, "elpd_loo"), pointwise_column(rows, "p_loo")
                ll = self.log_lik(name)
                # elpd_loo_i + p_loo_i = lpd_i whatever the weights; elpd_loo_i is a weighted mean of
                # the row's log likelihoods, within their range.
                np.testing.assert_allclose(elpd + p_loo, cm.lpd(ll), rtol=1e-9, atol=1e-12)
                self.assertTrue(np.all(elpd <= ll.max(axis=0) + 1e-12) and np.all(elpd >= ll.min(axis=0) - 1e-12))
                self.assertAlmostEqual(d["elpd_loo"], elpd.sum(), delta=1e-9 * abs(elpd.sum()))
                self.assertAlmostEqual(d["se_elpd_loo"], math.sqrt(400) * elpd.std(ddof=1), delta=1e-9)
                # Far better than guessing among the 3 categories, and p_loo about the parameters
                # that matter (6 or 4 population-level ones, shrunken group effects).
                self.assertGreater(d["elpd_loo"], 400 * math.log(1 / 3))
                self.assertTrue(2 < d["p_loo"] < 30, d["p_loo"])

    @unittest.skipUnless(HAVE_R_LOO, "R's loo package is not installed (apt-get install r-cran-loo)")
    def test_equals_r_loo_on_the_same_draws(self):
        names = list(MODELS)
        got = [self.loo_files(n) for n in names]
        lls, lps, lgs = [], [], []
        for n in names:
            draws = cm.read_draws(self.fits[n][1])
            lls.append(self.log_lik(n))
            lps.append(draws["log_p__"])
            lgs.append(draws["log_g__"])
        r = r_loo(self.tmp, lls, lps, lgs)
        for k, (d, rows, _) in enumerate(got):
            with self.subTest(model=names[k]):
                ref = r["m%d" % (k + 1)]
                ours = [d[key] for key in ("elpd_loo", "p_loo", "looic", "se_elpd_loo", "se_p_loo", "se_looic")]
                np.testing.assert_allclose(ours, ref["estimates"], rtol=1e-8)
                np.testing.assert_allclose(pointwise_column(rows, "pareto_k"), ref["k"], rtol=1e-8)
                np.testing.assert_allclose(pointwise_column(rows, "elpd_loo"), ref["elpd_i"], rtol=1e-8)
                np.testing.assert_allclose(pointwise_column(rows, "p_loo"), ref["p_i"], rtol=1e-6, atol=1e-10)
        cmp = json.loads(run(["compare"] + [out for _, _, out in got]).stdout)
        order = {"m%d" % (k + 1): got[k][2] for k in range(len(names))}
        self.assertEqual([m["model"] for m in cmp["models"]], [order[m] for m in r["compare"]["order"]])
        np.testing.assert_allclose([m["elpd_diff"] for m in cmp["models"]], r["compare"]["elpd_diff"], atol=1e-9)
        np.testing.assert_allclose([m["se_diff"] for m in cmp["models"]], r["compare"]["se_diff"], rtol=1e-8,
                                   atol=1e-12)

    def test_compare_ranks_the_model_with_the_predictor_first(self):
        a, rows_a, doc_a = self.loo_files("full")
        b, rows_b, doc_b = self.loo_files("no_x1")
        for args in ([doc_a, doc_b], [self.fits["no_x1"][1], self.fits["full"][1]]):
            with self.subTest(args="fit folders" if args[0] == self.fits["no_x1"][1] else "loo documents"):
                p = run(["compare"] + args)
                self.assertEqual(p.returncode, 0, p.stderr)
                models = json.loads(p.stdout)["models"]
                self.assertIn("full", os.path.basename(models[0]["model"]))
                self.assertIn("no_x1", os.path.basename(models[1]["model"]))
                diff = pointwise_column(rows_b, "elpd_loo") - pointwise_column(rows_a, "elpd_loo")
                self.assertAlmostEqual(models[1]["elpd_diff"], diff.sum(), delta=1e-9)
                self.assertAlmostEqual(models[1]["se_diff"], math.sqrt(400) * diff.std(ddof=1), delta=1e-9)
                # x1 moves the categories' odds by e^1.2: dropping it costs many standard errors.
                self.assertLess(models[1]["elpd_diff"], -4 * models[1]["se_diff"])

    def test_subsampling_loo(self):
        _, full_rows, _ = self.loo_files("full")
        pw = self.path("sub.csv")
        d = json.loads(self.loo("full", "--subsample", "100", "--pointwise", pw).stdout)
        self.assertEqual(d["subsample"]["rows"], 100)
        rows = read_pointwise(pw)
        # The approximation: every row's log likelihood at the draws' mean.
        draws = cm.read_draws(self.fits["full"][1])
        mean = {k: np.array([v.mean()]) for k, v in draws.items()}
        at_mean = cm.log_lik(self.fits["full"][1], self.data, ["x1", "x2"], draws=mean)[0]
        np.testing.assert_allclose(pointwise_column(rows, "elpd_loo_approx"), at_mean, rtol=1e-10, atol=1e-12)
        # The sampled rows' PSIS-LOO is the full run's for those rows.
        sampled = pointwise_column(rows, "subsampled") == 1
        self.assertEqual(sampled.sum(), 100)
        np.testing.assert_allclose(pointwise_column(rows, "elpd_loo")[sampled], pointwise_column(full_rows, "elpd_loo")[sampled],
                                   rtol=1e-12)
        np.testing.assert_allclose(pointwise_column(rows, "pareto_k")[sampled], pointwise_column(full_rows, "pareto_k")[sampled],
                                   rtol=1e-9, atol=1e-12)
        self.assertLess(abs(d["elpd_loo"] - sum(float(r["elpd_loo"]) for r in full_rows)),
                        3 * d["subsampling_se_elpd_loo"] + 1e-9)

    def test_threads_give_the_same_bytes(self):
        outs = []
        for threads in ("1", "2"):
            pw = self.path("pw%s.csv" % threads)
            p = self.loo("full", "--threads", threads, "--pointwise", pw)
            with open(pw) as f:
                outs.append((p.stdout.replace(pw, ""), f.read()))
        self.assertEqual(outs[0], outs[1])


class CategoricalLooRanks(BinaryTestCase):
    @unittest.skipUnless(MPIRUN, "mpirun not installed")
    def test_ranks_give_the_same_bytes(self):
        # 5000 rows: two chunks of rows (4096 each), so the ranks share them out.
        data = cm.simulate(5000, 8, seed=22)
        cfg = self.write_config(cm.config(cm.write_csv(self.path("d.csv"), data), "y ~ x1 + x2 + (1 | g)",
                                          max_iterations=60, output_draws=200))
        fit = self.path("fit")
        p = run(["fit", cfg, "--output", fit, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        pw1 = self.path("pw1.csv")
        one = run(["loo", cfg, "--fit", fit, "--pointwise", pw1])
        self.assertEqual(one.returncode, 0, one.stderr)
        with open(pw1) as f:
            want = f.read()
        for n in (2, 3):
            pw = self.path("pw%d.csv" % n)
            q = subprocess.run([MPIRUN, "--oversubscribe", "-n", str(n), BINARY, "loo", cfg, "--fit", fit,
                                "--pointwise", pw, "--threads", "1"], capture_output=True, text=True, timeout=300,
                               env=MPI_ENV)
            self.assertEqual(q.returncode, 0, q.stderr)
            self.assertEqual(one.stdout.replace(pw1, pw), q.stdout)
            with open(pw) as f:
                self.assertEqual(f.read(), want)


if __name__ == "__main__":
    unittest.main()
