"""`bayes-vi loo --subsample M`: subsampling PSIS-LOO (Magnusson, Riis Andersen, Jonasson and
Vehtari 2020), and `compare` of subsampled loo documents.

The numbers are checked against what the fit's files imply, recomputed here with numpy: the plpd
approximation log p(y_i | colMeans(draws)) of every row, the sampled rows' elpd_loo (those of the
full loo), and the difference estimator written again from the paper's formulas (not from the C++
code); and, when R's loo is installed, against loo_subsample() given the same rows. Then the
contract: threads and ranks give the same bytes, a seed fixes the rows, bad --subsample values are
usage errors (64), and compare refuses to mix subsampled and full loo documents (65)."""
import csv
import json
import math
import os
import subprocess
import unittest

import numpy as np

from bvi_fit import load_json
from loo_files import read_pointwise
from bvi_test import BINARY, SOURCE_DIR, run
from test_loo import HAVE_R_LOO, LooFits, seed_log_lik



def difference_estimator(approx, idx, y):
    """Magnusson et al. (2020), Sec. 3 (eqs. 7-9): the SRS difference estimator of sum_i y_i from
    approximations approx (every row) and exact values y on the rows idx, its subsampling variance,
    and the estimate of the population sum of squares sum_i (y_i - ybar)^2 (whose root is the se)."""
    N, m = len(approx), len(idx)
    e = y - approx[idx]
    total = approx.sum() + N * e.mean()
    v_sub = N * N * (1 - m / N) * e.var(ddof=1) / m
    sum_sq = (approx ** 2).sum() + N * (y ** 2 - approx[idx] ** 2).mean()  # estimates sum_i y_i^2
    sigma2 = sum_sq - (total ** 2 - v_sub) / N  # (sum y)^2 is estimated by total^2 - v_sub
    return total, math.sqrt(sigma2), math.sqrt(v_sub)


class TestLooSubsample(LooFits):
    def plpd(self, name):
        """log p(y_i | colMeans(draws)) for the seed data, and the S x N log likelihood."""
        _, fit, feats = self.fits[name]
        from test_loo import read_draws, SEED_CSV
        header, body = read_draws(fit)
        with open(SEED_CSV) as f:
            data = list(csv.DictReader(f))
        x = np.array([[float(r[c]) for c in feats] for r in data])
        y = np.array([float(r["y"]) for r in data])
        beta = body[:, [header.index("beta.%d" % (j + 1)) for j in range(len(feats))]].mean(axis=0)
        eta = x @ beta
        return y * eta - np.logaddexp(0.0, eta)

    def subsample(self, name, m, *extra):
        pw, out = self.path("ss_%s_%s.csv" % (name, m)), self.path("ss_%s_%s.json" % (name, m))
        p = self.loo(name, "--subsample", str(m), "--pointwise", pw, "--output", out, *extra)
        return json.loads(p.stdout), read_pointwise(pw), out, p

    def test_estimates_against_numpy(self):
        d, rows, _, _ = self.subsample("a", 30)
        full_pw = self.path("full.csv")
        self.loo("a", "--pointwise", full_pw)
        full = read_pointwise(full_pw)
        self.assertEqual(d["rows"], 100)
        cfg_seed = load_json(self.fits["a"][0]).get("inference", {}).get("seed")
        self.assertEqual(d["subsample"]["rows"], 30)
        self.assertEqual(d["subsample"]["requested"], 30)
        self.assertEqual((d["subsample"]["approximation"], d["subsample"]["estimator"]), ("plpd", "diff_srs"))
        if cfg_seed is not None:
            self.assertEqual(d["subsample"]["seed"], cfg_seed)
        self.assertEqual(sum(d["pareto_k_bands"].values()), 30)
        self.assertEqual(len(rows), 100)
        approx = np.array([float(r["elpd_loo_approx"]) for r in rows])
        np.testing.assert_allclose(approx, self.plpd("a"), rtol=1e-12)
        idx = np.array([i for i, r in enumerate(rows) if r["subsampled"] == "1"])
        self.assertEqual(len(idx), 30)
        self.assertTrue(all(rows[i]["elpd_loo"] == "NA" for i in range(100) if i not in set(idx)))
        # The sampled rows' values are the full loo's, to the digit.
        for i in idx:
            for k in ("elpd_loo", "p_loo", "pareto_k"):
                self.assertEqual(rows[i][k], full[i][k])
        y = np.array([float(rows[i]["elpd_loo"]) for i in idx])
        total, se, sub_se = difference_estimator(approx, idx, y)
        self.assertAlmostEqual(d["elpd_loo"], total, delta=1e-9 * abs(total))
        self.assertAlmostEqual(d["se_elpd_loo"], se, delta=1e-9 * se)
        self.assertAlmostEqual(d["subsampling_se_elpd_loo"], sub_se, delta=1e-9 * sub_se)
        self.assertAlmostEqual(d["looic"], -2 * total, delta=2e-9 * abs(total))
        self.assertAlmostEqual(d["subsampling_se_looic"], 2 * sub_se, delta=2e-9 * sub_se)
        p = np.array([float(rows[i]["p_loo"]) for i in idx])
        self.assertAlmostEqual(d["p_loo"], 100 * p.mean(), delta=1e-9)
        self.assertAlmostEqual(d["se_p_loo"], math.sqrt(100 * p.var(ddof=1)), delta=1e-9)
        # The full estimate is within 2 subsampling se (m = 30 of 100 rows).
        full_doc = json.loads(self.loo("a").stdout)
        self.assertLess(abs(d["elpd_loo"] - full_doc["elpd_loo"]), 2 * d["subsampling_se_elpd_loo"])

    def test_every_row_sampled_is_the_full_loo(self):
        d, _, _, _ = self.subsample("b", 100)
        full = json.loads(self.loo("b").stdout)
        self.assertAlmostEqual(d["elpd_loo"], full["elpd_loo"], delta=1e-9)
        self.assertEqual(d["subsampling_se_elpd_loo"], 0.0)
        self.assertAlmostEqual(d["p_loo"], full["p_loo"], delta=1e-9)
        # The estimator's se divides by N where loo's divides by N - 1.
        self.assertAlmostEqual(d["se_elpd_loo"], full["se_elpd_loo"] * math.sqrt(99 / 100), delta=1e-9)

    def test_seed_threads_and_bytes(self):
        one = self.loo("a", "--subsample", "20", "--seed", "7", "--threads", "1").stdout
        two = self.loo("a", "--subsample", "20", "--seed", "7", "--threads", "2").stdout
        self.assertEqual(one, two)
        other = json.loads(self.loo("a", "--subsample", "20", "--seed", "8").stdout)
        self.assertEqual(json.loads(one)["subsample"]["seed"], 7)
        self.assertNotEqual(json.loads(one)["elpd_loo"], other["elpd_loo"])

    def test_bad_subsample_values(self):
        cfg, fit, _ = self.fits["a"]
        for bad in ("0", "1", "101", "-3", "abc", "2.5"):
            self.assert_error(run(["loo", cfg, "--fit", fit, "--subsample", bad]), 64)
        self.assert_error(run(["loo", cfg, "--fit", fit, "--seed", "3"]), 64)

    def test_compare_subsampled_documents(self):
        da, ra, a, _ = self.subsample("a", 40)
        db, rb, b, _ = self.subsample("b", 40)
        p = run(["compare", a, b])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertTrue(doc["subsampled"])
        best, other = doc["models"]
        self.assertGreaterEqual(best["elpd_loo"], other["elpd_loo"])
        rows = {a: ra, b: rb}
        approx = {k: np.array([float(r["elpd_loo_approx"]) for r in v]) for k, v in rows.items()}
        idx = np.array([i for i, r in enumerate(ra) if r["subsampled"] == "1"])
        ys = {k: np.array([float(v[i]["elpd_loo"]) for i in idx]) for k, v in rows.items()}
        total, se, sub_se = difference_estimator(approx[other["model"]] - approx[best["model"]], idx,
                                                 ys[other["model"]] - ys[best["model"]])
        self.assertAlmostEqual(other["elpd_diff"], total, delta=1e-9)
        self.assertAlmostEqual(other["se_diff"], se, delta=1e-9)
        self.assertAlmostEqual(other["subsampling_se_diff"], sub_se, delta=1e-9)
        self.assertIn("subsampled", p.stderr)
        self.assertIn("subsampling_se_diff", p.stderr.splitlines()[0])
        # Different rows: the naive difference, with a warning.
        c = self.subsample("b", 41)[2]
        q = run(["compare", a, c])
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertIn("different rows", q.stderr)
        # A full loo document among subsampled ones, or stacking weights: refused.
        full_out, full_pw = self.path("full_a.json"), self.path("full_a.csv")
        self.loo("a", "--output", full_out, "--pointwise", full_pw)
        self.assert_error(run(["compare", full_out, b]), 65, contains="is a full loo and others are subsampled")
        self.assert_error(run(["compare", a, b, "--weights", "stacking"]), 64)

    def test_mpi_ranks_give_the_same_bytes(self):
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1")
        cfg, fit, _ = self.fits["a"]
        one = self.loo("a", "--subsample", "25", "--draws", "300").stdout
        q = subprocess.run(["mpirun", "--oversubscribe", "-n", "2", BINARY, "loo", cfg, "--fit", fit,
                            "--subsample", "25", "--draws", "300", "--threads", "1"],
                           capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertEqual(one, q.stdout)

    @unittest.skipUnless(HAVE_R_LOO, "R's loo package is not installed")
    def test_equals_r_loo_subsample_on_the_same_rows(self):
        d, rows, _, _ = self.subsample("a", 30)
        ll, lp, lg = seed_log_lik(self.fits["a"][1], self.fits["a"][2])
        idx = [i + 1 for i, r in enumerate(rows) if r["subsampled"] == "1"]
        approx = self.plpd("a")
        # loo_subsample with a log-likelihood function over the precomputed matrix: draws are the
        # draw indices, so the plpd (the function at colMeans(draws)) is given as a column instead.
        inp = self.path("r_ss.csv")
        np.savetxt(inp, np.column_stack([lp, lg, ll]), delimiter=",", fmt="%.17g")
        approx_path = self.path("r_approx.csv")
        np.savetxt(approx_path, approx, fmt="%.17g")
        script = """
suppressMessages(library(loo))
args <- commandArgs(TRUE)
m <- as.matrix(read.csv(args[1], header = FALSE))
approx <- scan(args[2], quiet = TRUE)
idx <- as.integer(strsplit(args[3], ",")[[1]])
l <- suppressWarnings(loo_approximate_posterior(m[, -(1:2)][, idx], m[, 1], m[, 2]))
est <- loo:::srs_diff_est(approx, l$pointwise[, "elpd_loo"], idx)
p <- loo:::srs_est(l$pointwise[, "p_loo"], approx)
cat(sprintf("%.17g", c(est$y_hat, sqrt(est$hat_v_y), sqrt(est$v_y_hat), p$y_hat, sqrt(p$hat_v_y), sqrt(p$v_y_hat))))
"""
        r = subprocess.run(["Rscript", "-e", script, inp, approx_path, ",".join(map(str, idx))],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        ref = [float(v) for v in r.stdout.split()]
        ours = [d["elpd_loo"], d["se_elpd_loo"], d["subsampling_se_elpd_loo"], d["p_loo"], d["se_p_loo"],
                d["subsampling_se_p_loo"]]
        np.testing.assert_allclose(ours, ref, rtol=1e-8)


if __name__ == "__main__":
    unittest.main()
