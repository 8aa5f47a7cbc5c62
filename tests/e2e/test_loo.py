"""`bayes-vi loo` and `bayes-vi compare` end to end.

The numbers are checked against what the files the fit wrote imply, recomputed here with numpy
from draws.csv and the data (the pointwise log likelihood, lpd_i = log mean_s p(y_i | theta_s),
the paired differences of compare), and, when R's loo package is installed, against
loo_approximate_posterior() and loo_compare() run on that same matrix (Debian r-cran-loo). Then
the contract: threads give the same bytes, outputs are written whole, and every bad input gets one
line and its exit code."""
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import unittest

import numpy as np

from bvi_fit import load_json, run_fit, seed_config
from bvi_test import BINARY, SEED_CSV, SOURCE_DIR, BinaryTestCase, run

LOO_KEYS = ("elpd_loo", "se_elpd_loo", "p_loo", "se_p_loo", "looic", "se_looic", "rows", "draws",
            "pareto_k_bands", "high_pareto_k", "method", "config", "fit", "likelihood", "response",
            "response_hash", "row_hash", "pointwise_file", "version")


def have_r_loo():
    try:
        p = subprocess.run(["Rscript", "-e", "suppressMessages(library(loo))"], capture_output=True, timeout=60)
        return p.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


HAVE_R_LOO = have_r_loo()


def model_config(features=None, prior_scale=1.0):
    cfg = seed_config(inference=None)
    cfg["model"]["priors"]["beta"]["normal"]["scale"] = prior_scale
    if features is not None:
        cfg["data"]["features"] = features
    return cfg


def read_draws(fit_dir):
    """log_p__, log_g__ and the parameter columns of draws.csv (mean row dropped)."""
    with open(os.path.join(fit_dir, "draws.csv")) as f:
        lines = [l for l in f if not l.startswith("#")]
    rows = list(csv.reader(lines))
    header, body = rows[0], np.array(rows[2:], dtype=float)
    return header, body


def seed_log_lik(fit_dir, features):
    """S x N log p(y_i | beta_s) of a bernoulli_logit fit of the seed data, from draws.csv."""
    header, body = read_draws(fit_dir)
    with open(SEED_CSV) as f:
        data = list(csv.DictReader(f))
    x = np.array([[float(r[c]) for c in features] for r in data])
    y = np.array([float(r["y"]) for r in data])
    beta = body[:, [header.index("beta.%d" % (j + 1)) for j in range(len(features))]]
    eta = beta @ x.T
    ll = y * eta - np.logaddexp(0.0, eta)
    return ll, body[:, 1], body[:, 2]


def r_loo(tmp, lls, log_ps, log_gs):
    """R loo's loo_approximate_posterior of each model and loo_compare of them all."""
    paths = []
    for k, (ll, lp, lg) in enumerate(zip(lls, log_ps, log_gs)):
        p = os.path.join(tmp, "r_in_%d.csv" % k)
        np.savetxt(p, np.column_stack([lp, lg, ll]), delimiter=",", fmt="%.17g")
        paths.append(p)
    script = """
suppressMessages(library(loo))
args <- commandArgs(TRUE)
fits <- lapply(args, function(p) {
  m <- as.matrix(read.csv(p, header = FALSE))
  suppressWarnings(loo_approximate_posterior(m[, -(1:2)], m[, 1], m[, 2]))
})
names(fits) <- paste0("m", seq_along(fits))
out <- lapply(fits, function(l) list(estimates = as.list(c(l$estimates)), k = pareto_k_values(l),
                                     elpd_i = l$pointwise[, "elpd_loo"], p_i = l$pointwise[, "p_loo"]))
if (length(fits) > 1) {
  cmp <- loo_compare(fits)
  out$compare <- list(order = rownames(cmp), elpd_diff = cmp[, "elpd_diff"], se_diff = cmp[, "se_diff"])
}
cat(jsonlite_free <- paste0("{", paste(sapply(names(out), function(n) {
  o <- out[[n]]
  paste0('"', n, '": {', paste(sapply(names(o), function(k) {
    v <- unlist(o[[k]])
    if (is.character(v)) paste0('"', k, '": ["', paste(v, collapse = '", "'), '"]')
    else paste0('"', k, '": [', paste(sprintf("%.17g", v), collapse = ", "), "]")
  }), collapse = ", "), "}")
}), collapse = ", "), "}"))
"""
    sp = os.path.join(tmp, "r_loo.R")
    with open(sp, "w") as f:
        f.write(script)
    p = subprocess.run(["Rscript", sp] + paths, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise AssertionError("Rscript failed: " + p.stderr)
    return json.loads(p.stdout)


class LooFits(BinaryTestCase):
    """Two fits of the seed data made once for the class: all ten features, and three."""

    FEATURES_A = ["x%d" % j for j in range(1, 11)]
    FEATURES_B = ["x1", "x2", "x3"]

    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._class_tmp = tempfile.TemporaryDirectory()
        tmp = cls._class_tmp.name
        cls.fits = {}
        for name, feats in (("a", cls.FEATURES_A), ("b", cls.FEATURES_B)):
            cfg_path = os.path.join(tmp, "config_%s.json" % name)
            with open(cfg_path, "w") as f:
                json.dump(model_config(feats), f)
            out = os.path.join(tmp, "fit_" + name)
            p = run_fit([cfg_path, "--output", out, "--quiet"])
            if p.returncode != 0:
                raise AssertionError("fit failed: " + p.stderr)
            cls.fits[name] = (cfg_path, out, feats)

    @classmethod
    def tearDownClass(cls):
        cls._class_tmp.cleanup()

    def loo(self, name, *extra):
        cfg, fit, _ = self.fits[name]
        p = run(["loo", cfg, "--fit", fit] + list(extra))
        self.assertEqual(p.returncode, 0, p.stderr)
        return p


class TestLoo(LooFits):
    def test_document_keys_and_totals(self):
        d = json.loads(self.loo("a").stdout)
        self.assertEqual(tuple(d.keys()), LOO_KEYS)
        self.assertEqual(d["rows"], 100)
        self.assertEqual(d["draws"], 1000)
        self.assertEqual(sum(d["pareto_k_bands"].values()), 100)
        self.assertEqual(len(d["high_pareto_k"]), d["pareto_k_bands"]["bad"] + d["pareto_k_bands"]["very_bad"])
        self.assertAlmostEqual(d["looic"], -2 * d["elpd_loo"], places=9)
        self.assertAlmostEqual(d["se_looic"], 2 * d["se_elpd_loo"], places=9)
        self.assertEqual(d["method"], "psis_loo_approximate_posterior")
        self.assertEqual(d["likelihood"], "bernoulli_logit")
        self.assertIsNone(d["pointwise_file"])
        # The fit's summary carries the same response hash.
        summary = load_json(os.path.join(self.fits["a"][1], "summary.json"))
        self.assertEqual(summary["data"]["response_hash"], d["response_hash"])

    def test_pointwise_against_numpy(self):
        pw = self.path("pw.csv")
        d = json.loads(self.loo("a", "--pointwise", pw).stdout)
        self.assertEqual(d["pointwise_file"], os.path.abspath(pw))
        with open(pw) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(list(rows[0].keys()),
                         ["row", "elpd_loo", "p_loo", "looic", "pareto_k", "influence_pareto_k"])
        self.assertEqual([int(r["row"]) for r in rows], list(range(1, 101)))
        elpd = np.array([float(r["elpd_loo"]) for r in rows])
        p_loo = np.array([float(r["p_loo"]) for r in rows])
        ll, _, _ = seed_log_lik(self.fits["a"][1], self.FEATURES_A)
        # lpd_i = elpd_loo_i + p_loo_i = log mean_s p(y_i | theta_s), independent of the weights.
        lpd = np.logaddexp.reduce(ll, axis=0) - math.log(ll.shape[0])
        np.testing.assert_allclose(elpd + p_loo, lpd, rtol=1e-9, atol=1e-12)
        # The totals are the pointwise sums with se sqrt(N) sd.
        self.assertAlmostEqual(d["elpd_loo"], elpd.sum(), delta=1e-9 * abs(elpd.sum()))
        self.assertAlmostEqual(d["se_elpd_loo"], math.sqrt(100) * elpd.std(ddof=1), delta=1e-9)
        # A row's elpd_loo is a weighted mean of its likelihoods: within their range.
        self.assertTrue(np.all(elpd <= ll.max(axis=0) + 1e-12) and np.all(elpd >= ll.min(axis=0) - 1e-12))

    @unittest.skipUnless(HAVE_R_LOO, "R's loo package is not installed (apt-get install r-cran-loo)")
    def test_equals_r_loo_on_the_same_draws(self):
        pws = []
        for name in ("a", "b"):
            pw = self.path("pw_%s.csv" % name)
            out = self.path("loo_%s.json" % name)
            self.loo(name, "--pointwise", pw, "--output", out)
            with open(pw) as f:
                pws.append((load_json(out), list(csv.DictReader(f))))
        lls, lps, lgs = zip(*(seed_log_lik(self.fits[n][1], self.fits[n][2]) for n in ("a", "b")))
        r = r_loo(self.tmp, lls, lps, lgs)
        for k, (d, rows) in enumerate(pws):
            ref = r["m%d" % (k + 1)]
            # R's estimates matrix, column by column: elpd_loo, p_loo, looic, then their se.
            ours = [d[key] for key in ("elpd_loo", "p_loo", "looic", "se_elpd_loo", "se_p_loo", "se_looic")]
            np.testing.assert_allclose(ours, ref["estimates"], rtol=1e-8)
            np.testing.assert_allclose([float(x["pareto_k"]) for x in rows], ref["k"], rtol=1e-8)
            np.testing.assert_allclose([float(x["elpd_loo"]) for x in rows], ref["elpd_i"], rtol=1e-8)
            np.testing.assert_allclose([float(x["p_loo"]) for x in rows], ref["p_i"], rtol=1e-6, atol=1e-10)
        cmp = json.loads(run(["compare", self.path("loo_a.json"), self.path("loo_b.json")]).stdout)
        order = {"m1": self.path("loo_a.json"), "m2": self.path("loo_b.json")}
        self.assertEqual([m["model"] for m in cmp["models"]], [order[m] for m in r["compare"]["order"]])
        np.testing.assert_allclose([m["elpd_diff"] for m in cmp["models"]], r["compare"]["elpd_diff"], atol=1e-9)
        np.testing.assert_allclose([m["se_diff"] for m in cmp["models"]], r["compare"]["se_diff"], rtol=1e-8, atol=1e-12)

    def test_threads_give_the_same_bytes(self):
        pw1, pw2 = self.path("pw1.csv"), self.path("pw2.csv")
        one = self.loo("a", "--threads", "1", "--pointwise", pw1)
        two = self.loo("a", "--threads", "2", "--pointwise", pw2)
        self.assertEqual(one.stdout.replace(pw1, ""), two.stdout.replace(pw2, ""))
        with open(pw1) as f1, open(pw2) as f2:
            self.assertEqual(f1.read(), f2.read())

    def test_output_file_is_the_stdout_document(self):
        out = self.path("loo.json")
        p = self.loo("a", "--output", out)
        with open(out) as f:
            self.assertEqual(f.read(), p.stdout)

    def test_draws_option_uses_the_first_draws(self):
        d = json.loads(self.loo("a", "--draws", "200").stdout)
        self.assertEqual(d["draws"], 200)
        p = self.loo("a", "--draws", "5000")
        self.assertEqual(json.loads(p.stdout)["draws"], 1000)
        self.assertIn("has 1000 draws", p.stderr)

    def test_a_count_model(self):
        cfg = os.path.join(SOURCE_DIR, "configs", "likelihoods", "poisson_log.json")
        out = self.path("fit_pois")
        p = run_fit([cfg, "--output", out, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["loo", cfg, "--fit", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        d = json.loads(p.stdout)
        self.assertEqual(d["likelihood"], "poisson_log")
        self.assertTrue(math.isfinite(d["elpd_loo"]) and d["elpd_loo"] < 0)
        self.assertTrue(0 < d["p_loo"] < 10, d["p_loo"])  # about the 4 parameters


class TestLooModels(BinaryTestCase):
    def fit_and_loo(self, config):
        cfg = os.path.join(SOURCE_DIR, "configs", config)
        out = self.path("fit")
        p = run_fit([cfg, "--output", out, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        pw = self.path("pw.csv")
        p = run(["loo", cfg, "--fit", out, "--pointwise", pw])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(pw) as f:
            rows = list(csv.DictReader(f))
        return json.loads(p.stdout), load_json(os.path.join(out, "summary.json")), rows

    def test_multilevel_model(self):
        d, summary, rows = self.fit_and_loo(os.path.join("multilevel", "varying_intercept.json"))
        self.assertEqual(d["rows"], summary["rows"])
        self.assertEqual(d["likelihood"], "normal")
        self.assertTrue(math.isfinite(d["elpd_loo"]))
        # p_loo: more than the population-level parameters, fewer than all the group effects.
        n_params = len(summary["parameters"])
        self.assertTrue(2 < d["p_loo"] < n_params, (d["p_loo"], n_params))

    def test_dropped_rows_are_left_out(self):
        d, summary, rows = self.fit_and_loo(os.path.join("multilevel", "missing_values.json"))
        self.assertGreater(summary["dropped_rows"], 0)
        self.assertEqual(d["rows"], summary["rows"])
        self.assertEqual(len(rows), summary["rows"])
        numbers = [int(r["row"]) for r in rows]
        self.assertEqual(numbers, sorted(numbers))
        self.assertEqual(len(set(numbers)), len(numbers))
        self.assertGreater(numbers[-1], len(numbers))  # some data rows were skipped

    @unittest.skipUnless(shutil.which("mpirun"), "mpirun not installed")
    def test_mpi_fit_records_the_same_response_hash_and_loo_is_the_same(self):
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1")

        def mpirun(n, args):
            return subprocess.run(["mpirun", "--oversubscribe", "-n", str(n), BINARY] + args,
                                  capture_output=True, text=True, timeout=300, env=env)

        # 10000 rows: three chunks of 4096 records, so ranks share them out.
        data = self.path("sim.csv")
        self.assertEqual(run(["simulate", "--rows", "10000", "--features", "4", "--seed", "5",
                              "--output", data]).returncode, 0)
        cfg = model_config()
        cfg["data"] = {"csv": data, "response": "y"}
        cfg = self.write_config(cfg)
        serial, ranks = self.path("serial"), self.path("ranks")
        self.assertEqual(run_fit([cfg, "--output", serial, "--quiet"]).returncode, 0)
        p = mpirun(3, ["fit", cfg, "--output", ranks, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        a = load_json(os.path.join(serial, "summary.json"))["data"]
        b = load_json(os.path.join(ranks, "summary.json"))["data"]
        self.assertEqual(a["response_hash"], b["response_hash"])
        self.assertEqual(a["row_hash"], b["row_hash"])
        pw1, pw2, pw3 = self.path("pw1.csv"), self.path("pw2.csv"), self.path("pw3.csv")
        one = run(["loo", cfg, "--fit", serial, "--draws", "200", "--pointwise", pw1])
        self.assertEqual(one.returncode, 0, one.stderr)
        for n, pw in ((2, pw2), (3, pw3)):
            q = mpirun(n, ["loo", cfg, "--fit", serial, "--draws", "200", "--pointwise", pw, "--threads", "1"])
            self.assertEqual(q.returncode, 0, q.stderr)
            self.assertEqual(one.stdout.replace(pw1, pw), q.stdout)
            with open(pw1) as f1, open(pw) as f2:
                self.assertEqual(f1.read(), f2.read())
        # An error is reported once, by rank 0, with its exit code.
        q = mpirun(2, ["loo", cfg, "--fit", self.path("nope")])
        self.assertEqual(q.returncode, 66, q.stderr)
        self.assertEqual(len([l for l in q.stderr.splitlines() if l.startswith("bayes-vi: error")]), 1, q.stderr)


class TestLooMemory(BinaryTestCase):
    def peak_kb(self, args):
        """The peak resident memory of one `bayes-vi ARGS` run, measured in a fresh process."""
        code = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True); "
                "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", code, BINARY] + args, capture_output=True, text=True,
                             timeout=600).stdout.split()
        self.assertEqual(out[0], "0")
        return int(out[1])

    def test_memory_does_not_grow_with_the_rows(self):
        peaks = []
        for rows in (20000, 200000):
            data = self.path("sim%d.csv" % rows)
            self.assertEqual(run(["simulate", "--rows", str(rows), "--features", "5", "--seed", "3",
                                  "--output", data]).returncode, 0)
            cfg = model_config()
            cfg["data"] = {"csv": data, "response": "y"}
            cp = self.write_config(cfg, "sim%d.json" % rows)
            fit = self.path("fit%d" % rows)
            self.assertEqual(run_fit([cp, "--output", fit, "--quiet"]).returncode, 0)
            peaks.append(self.peak_kb(["loo", cp, "--fit", fit, "--draws", "100", "--threads", "1"]))
        # 180000 more rows would hold 7 MB of features alone (and 20 MB of CSV text) if kept.
        self.assertLess(peaks[1] - peaks[0], 3000, peaks)


class TestCompare(LooFits):
    def loo_doc(self, name):
        pw, out = self.path("pw_%s.csv" % name), self.path("loo_%s.json" % name)
        self.loo(name, "--pointwise", pw, "--output", out)
        return out, pw

    def test_compare_documents_and_fits_agree(self):
        a, pw_a = self.loo_doc("a")
        b, pw_b = self.loo_doc("b")
        p = run(["compare", a, b])
        self.assertEqual(p.returncode, 0, p.stderr)
        docs = json.loads(p.stdout)
        models = docs["models"]
        self.assertEqual(docs["rows"], 100)
        self.assertEqual(models[0]["elpd_diff"], 0.0)
        self.assertEqual(models[0]["se_diff"], 0.0)
        self.assertGreaterEqual(models[0]["elpd_loo"], models[1]["elpd_loo"])
        # The paired se from the pointwise files, with numpy.
        e = {}
        for path, pw in ((a, pw_a), (b, pw_b)):
            with open(pw) as f:
                e[path] = np.array([float(r["elpd_loo"]) for r in csv.DictReader(f)])
        diff = e[models[1]["model"]] - e[models[0]["model"]]
        self.assertAlmostEqual(models[1]["elpd_diff"], diff.sum(), delta=1e-9)
        self.assertAlmostEqual(models[1]["se_diff"], math.sqrt(100) * diff.std(ddof=1), delta=1e-9)
        # The table went to stderr, best model first.
        lines = p.stderr.splitlines()
        self.assertEqual(lines[0].split(), ["elpd_diff", "se_diff", "elpd_loo", "se_elpd_loo", "p_loo",
                                            "se_p_loo", "looic", "se_looic"])
        self.assertTrue(lines[1].startswith(models[0]["model"]))
        # Fit folders: loo computed with the configs their summaries record, same numbers.
        q = run(["compare", self.fits["a"][1], self.fits["b"][1]])
        self.assertEqual(q.returncode, 0, q.stderr)
        by_fit = json.loads(q.stdout)["models"]
        for m, n in zip(models, by_fit):
            for k in ("elpd_diff", "se_diff", "elpd_loo", "se_elpd_loo", "p_loo", "looic"):
                self.assertEqual(m[k], n[k], k)

    def test_non_nested_models_of_other_likelihoods(self):
        # logit and probit links on the same rows: the same data, so they compare; three models.
        probit = model_config(self.FEATURES_B)
        probit["model"]["likelihood"] = "bernoulli_probit"
        cp = self.write_config(probit, "probit.json")
        fit = self.path("fit_probit")
        self.assertEqual(run_fit([cp, "--output", fit, "--quiet"]).returncode, 0)
        p = run(["compare", self.fits["a"][1], self.fits["b"][1], fit])
        self.assertEqual(p.returncode, 0, p.stderr)
        models = json.loads(p.stdout)["models"]
        self.assertEqual(len(models), 3)
        self.assertEqual(sorted(m["model"] for m in models), sorted([self.fits["a"][1], self.fits["b"][1], fit]))
        elpd = [m["elpd_loo"] for m in models]
        self.assertEqual(elpd, sorted(elpd, reverse=True))
        best = models[0]["elpd_loo"]
        for m in models:
            self.assertAlmostEqual(m["elpd_diff"], m["elpd_loo"] - best, delta=1e-9)
            self.assertGreaterEqual(m["se_diff"], 0.0)

    def test_table_format_and_stacking(self):
        a, _ = self.loo_doc("a")
        b, _ = self.loo_doc("b")
        p = run(["compare", a, b, "--format", "table", "--weights", "stacking"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), 3)
        self.assertEqual(lines[0].split()[-1], "weight")
        weights = [float(l.split()[-1]) for l in lines[1:]]
        self.assertAlmostEqual(sum(weights), 1.0, delta=2e-3)
        j = json.loads(run(["compare", a, b, "--weights", "stacking"]).stdout)
        self.assertAlmostEqual(sum(m["stacking_weight"] for m in j["models"]), 1.0, delta=1e-12)
        self.assertEqual(j["weights"], "stacking")


class TestLooErrors(LooFits):
    def test_missing_fit_folder(self):
        p = run(["loo", self.fits["a"][0], "--fit", self.path("nope")])
        self.assert_error(p, 66)

    def test_fit_of_another_config(self):
        # The config of model b with the fit of model a: other terms.
        p = run(["loo", self.fits["b"][0], "--fit", self.fits["a"][1]])
        self.assert_error(p, 78)

    def test_fit_of_other_data(self):
        # The same model on other responses (y flipped on a few rows): the hashes differ.
        with open(SEED_CSV) as f:
            lines = f.read().splitlines()
        head, body = lines[0], lines[1:]
        for i in (3, 10, 50):
            cells = body[i].split(",")
            cells[-1] = "1" if cells[-1] == "0" else "0"
            body[i] = ",".join(cells)
        other = self.write("other.csv", "\n".join([head] + body) + "\n")
        cfg = model_config(self.FEATURES_A)
        cfg["data"]["csv"] = other
        p = run(["loo", self.write_config(cfg), "--fit", self.fits["a"][1]])
        self.assert_error(p, 65, contains="other values of the response")
        # And fewer rows.
        short = self.write("short.csv", "\n".join([head] + body[:60]) + "\n")
        cfg["data"]["csv"] = short
        p = run(["loo", self.write_config(cfg, "c2.json"), "--fit", self.fits["a"][1]])
        self.assert_error(p, 65, contains="rows")

    def test_bad_command_lines(self):
        self.assert_error(run(["loo", self.fits["a"][0]]), 64)
        self.assert_error(run(["loo", self.fits["a"][0], "--fit", self.fits["a"][1], "--draws", "0"]), 64)
        self.assert_error(run(["compare", self.fits["a"][1]]), 64)
        self.assert_error(run(["compare", self.fits["a"][1], self.fits["b"][1], "--format", "xml"]), 64)

    def test_output_that_cannot_be_created(self):
        p = run(["loo", self.fits["a"][0], "--fit", self.fits["a"][1], "--output", self.path("no/dir/loo.json")])
        self.assert_error(p, 73)

    def test_corrupt_documents(self):
        bad = self.write("bad.json", "{ not json")
        self.assert_error(run(["compare", bad, bad]), 65, where=bad)
        no_pw = self.path("nopw.json")
        self.loo("a", "--output", no_pw)
        self.assert_error(run(["compare", no_pw, no_pw]), 65, where=no_pw, contains="--pointwise")
        self.assert_error(run(["compare", self.path("missing.json"), bad]), 66)
        # A loo document whose pointwise file is gone.
        doc, pw = self.path("gone.json"), self.path("gone.csv")
        self.loo("a", "--output", doc, "--pointwise", pw)
        os.remove(pw)
        self.assert_error(run(["compare", doc, doc]), 66, where=pw)

    def test_fit_folder_without_a_recorded_config(self):
        # A fit made before fits recorded their config: compare cannot compute its loo.
        old = self.path("old_fit")
        shutil.copytree(self.fits["a"][1], old)
        summary = load_json(os.path.join(old, "summary.json"))
        del summary["data"]["config"]
        with open(os.path.join(old, "summary.json"), "w") as f:
            json.dump(summary, f)
        where = os.path.join(old, "summary.json")
        self.assert_error(run(["compare", old, self.fits["b"][1]]), 65, where=where, contains="records no config")
        # loo with the config still works (the response hash is checked).
        self.assertEqual(run(["loo", self.fits["a"][0], "--fit", old]).returncode, 0)

    def test_compare_refuses_other_data(self):
        # A loo of model a on 60 rows (a fit of those rows) against one on all 100.
        with open(SEED_CSV) as f:
            lines = f.read().splitlines()
        short = self.write("short.csv", "\n".join(lines[:61]) + "\n")
        cfg = model_config(self.FEATURES_A)
        cfg["data"]["csv"] = short
        cp = self.write_config(cfg, "short.json")
        fit = self.path("fit_short")
        self.assertEqual(run_fit([cp, "--output", fit, "--quiet"]).returncode, 0)
        self.assert_error(run(["compare", fit, self.fits["a"][1]]), 65, contains="different data")
        # Same number of rows, other responses.
        body = lines[1:61]
        flipped = [l[:-1] + ("1" if l[-1] == "0" else "0") for l in body]
        other = self.write("other60.csv", "\n".join([lines[0]] + flipped) + "\n")
        cfg["data"]["csv"] = other
        cp2 = self.write_config(cfg, "other60.json")
        fit2 = self.path("fit_other60")
        self.assertEqual(run_fit([cp2, "--output", fit2, "--quiet"]).returncode, 0)
        self.assert_error(run(["compare", fit, fit2]), 65, contains="other responses")


if __name__ == "__main__":
    unittest.main()
