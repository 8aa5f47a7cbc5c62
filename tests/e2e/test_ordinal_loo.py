"""`bayes-vi loo` and `compare` for ordinal_logit and ordinal_probit (the
cumulative ordinal models).

Fits of 300 simulated rows (K = 4, 10 groups; ordinal_models.py): ordinal_logit y ~ x1 + x2 + (1 | g)
and y ~ x2 + (1 | g), ordinal_probit y ~ x1 + x2 + (1 | g) with the response as integers and as the
labels of /data/levels. Every row's log likelihood at every draw is recomputed from draws.csv with
scipy (log of a difference of CDFs from log_expit / log_ndtr, group effects by their labels), and
against it: lpd_i = elpd_loo_i + p_loo_i to 1e-9; R's loo (loo_approximate_posterior and
loo_compare on that same matrix with the draws' log_p__ and log_g__) for the totals, every row's
elpd_loo and Pareto k to 1e-8; compare ranks the model with x1 first; the labels give the integer
coding's bytes; a row far in a tail (eta about -26 in category 2) to 1e-9; subsampling LOO's approximation (the log likelihood at the mean draw); the same
bytes on 1 and 2 threads and on 1 and 2 MPI ranks (5000 rows: two chunks)."""
import json
import math
import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

import ordinal_models as om
from bvi_fit import load_json
from loo_files import pointwise_column, read_pointwise
from bvi_test import BINARY, BinaryTestCase, run
from test_loo import HAVE_R_LOO, r_loo

MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
ROWS = 300

# name: (link, formula, features in beta's order, labels)
MODELS = {"logit": ("ordinal_logit", "y ~ x1 + x2 + (1 | g)", ["x1", "x2"], False),
          "logit_no_x1": ("ordinal_logit", "y ~ x2 + (1 | g)", ["x2"], False),
          "probit": ("ordinal_probit", "y ~ x1 + x2 + (1 | g)", ["x1", "x2"], False),
          "probit_labels": ("ordinal_probit", "y ~ x1 + x2 + (1 | g)", ["x1", "x2"], True)}




class OrdinalLoo(BinaryTestCase):
    @classmethod
    def setUpClass(cls):
        cls._class_tmp = tempfile.TemporaryDirectory()
        tmp = cls._class_tmp.name
        cls.data = om.simulate(ROWS, 10, seed=41)
        csvs = {labels: om.write_csv(os.path.join(tmp, "d%d.csv" % labels), cls.data, labels=labels)
                for labels in (False, True)}
        cls.fits = {}
        for name, (link, formula, _, labels) in MODELS.items():
            cfg = os.path.join(tmp, name + ".json")
            with open(cfg, "w") as f:
                json.dump(om.config(csvs[labels], formula, link, labels=labels, output_draws=400), f)
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
        p = self.loo(name, "--pointwise", pw, "--output", out, *extra)
        return load_json(out), read_pointwise(pw), out, p

    def log_lik(self, name, **kw):
        link, _, features, _ = MODELS[name]
        return om.log_lik(self.fits[name][1], self.data, features, link, **kw)

    def test_pointwise_against_scipy(self):
        for name in MODELS:
            with self.subTest(model=name):
                d, rows, _, _ = self.loo_files(name)
                self.assertEqual((d["rows"], d["draws"], d["likelihood"]), (ROWS, 400, MODELS[name][0]))
                self.assertEqual([int(r["row"]) for r in rows], list(range(1, ROWS + 1)))
                elpd, p_loo = pointwise_column(rows, "elpd_loo"), pointwise_column(rows, "p_loo")
                ll = self.log_lik(name)
                # elpd_loo_i + p_loo_i = lpd_i whatever the weights; elpd_loo_i is a weighted mean of
                # the row's log likelihoods, within their range.
                np.testing.assert_allclose(elpd + p_loo, om.lpd(ll), rtol=1e-9, atol=1e-12)
                self.assertTrue(np.all(elpd <= ll.max(axis=0) + 1e-12) and np.all(elpd >= ll.min(axis=0) - 1e-12))
                self.assertAlmostEqual(d["elpd_loo"], elpd.sum(), delta=1e-9 * abs(elpd.sum()))
                self.assertAlmostEqual(d["se_elpd_loo"], math.sqrt(ROWS) * elpd.std(ddof=1), delta=1e-9)
                # Better than guessing among the 4 categories; p_loo about the parameters that
                # matter (2 or 1 coefficients, 3 cutpoints, shrunken group effects).
                self.assertGreater(d["elpd_loo"], ROWS * math.log(1 / 4))
                self.assertTrue(2 < d["p_loo"] < 20, d["p_loo"])

    def test_labels_give_the_integer_codings_bytes(self):
        _, _, a, pa = self.loo_files("probit")
        _, _, b, pb = self.loo_files("probit_labels")
        pw_a, pw_b = self.path("pw_probit.csv"), self.path("pw_probit_labels.csv")
        with open(pw_a) as fa, open(pw_b) as fb:
            self.assertEqual(fa.read(), fb.read())
        strip = lambda doc: {k: v for k, v in doc.items() if k not in ("config", "fit", "data", "seconds",
                                                                       "pointwise_file", "output")}
        self.assertEqual(strip(load_json(a)), strip(load_json(b)))

    @unittest.skipUnless(HAVE_R_LOO, "R's loo package is not installed (apt-get install r-cran-loo)")
    def test_equals_r_loo_on_the_same_draws(self):
        names = ["logit", "logit_no_x1", "probit"]
        got = [self.loo_files(n) for n in names]
        lls, lps, lgs = [], [], []
        for n in names:
            draws = om.read_draws(self.fits[n][1])
            lls.append(self.log_lik(n))
            lps.append(draws["log_p__"])
            lgs.append(draws["log_g__"])
        r = r_loo(self.tmp, lls, lps, lgs)
        for k, (d, rows, _, _) in enumerate(got):
            with self.subTest(model=names[k]):
                ref = r["m%d" % (k + 1)]
                ours = [d[key] for key in ("elpd_loo", "p_loo", "looic", "se_elpd_loo", "se_p_loo", "se_looic")]
                np.testing.assert_allclose(ours, ref["estimates"], rtol=1e-8)
                np.testing.assert_allclose(pointwise_column(rows, "pareto_k"), ref["k"], rtol=1e-8)
                np.testing.assert_allclose(pointwise_column(rows, "elpd_loo"), ref["elpd_i"], rtol=1e-8)
                np.testing.assert_allclose(pointwise_column(rows, "p_loo"), ref["p_i"], rtol=1e-6, atol=1e-10)
        cmp = json.loads(run(["compare"] + [out for _, _, out, _ in got]).stdout)
        order = {"m%d" % (k + 1): got[k][2] for k in range(len(names))}
        self.assertEqual([m["model"] for m in cmp["models"]], [order[m] for m in r["compare"]["order"]])
        np.testing.assert_allclose([m["elpd_diff"] for m in cmp["models"]], r["compare"]["elpd_diff"], atol=1e-9)
        np.testing.assert_allclose([m["se_diff"] for m in cmp["models"]], r["compare"]["se_diff"], rtol=1e-8,
                                   atol=1e-12)

    def test_compare_ranks_the_model_with_the_predictor_first(self):
        _, rows_a, doc_a, _ = self.loo_files("logit")
        _, rows_b, doc_b, _ = self.loo_files("logit_no_x1")
        p = run(["compare", doc_b, doc_a])
        self.assertEqual(p.returncode, 0, p.stderr)
        models = json.loads(p.stdout)["models"]
        self.assertEqual([m["model"] for m in models], [doc_a, doc_b])
        diff = pointwise_column(rows_b, "elpd_loo") - pointwise_column(rows_a, "elpd_loo")
        self.assertAlmostEqual(models[1]["elpd_diff"], diff.sum(), delta=1e-9)
        self.assertAlmostEqual(models[1]["se_diff"], math.sqrt(ROWS) * diff.std(ddof=1), delta=1e-9)
        # x1 moves the latent variable by 1.3 per sd: dropping it costs many standard errors.
        self.assertLess(models[1]["elpd_diff"], -4 * models[1]["se_diff"])

    def test_subsampling_loo(self):
        _, full_rows, _, _ = self.loo_files("logit")
        pw = self.path("sub.csv")
        d = json.loads(self.loo("logit", "--subsample", "100", "--pointwise", pw).stdout)
        self.assertEqual(d["subsample"]["rows"], 100)
        rows = read_pointwise(pw)
        # The approximation: every row's log likelihood at the draws' mean.
        mean = {k: np.array([v.mean()]) for k, v in om.read_draws(self.fits["logit"][1]).items()}
        at_mean = self.log_lik("logit", draws=mean)[0]
        np.testing.assert_allclose(pointwise_column(rows, "elpd_loo_approx"), at_mean, rtol=1e-10, atol=1e-12)
        sampled = pointwise_column(rows, "subsampled") == 1
        self.assertEqual(sampled.sum(), 100)
        np.testing.assert_allclose(pointwise_column(rows, "elpd_loo")[sampled], pointwise_column(full_rows, "elpd_loo")[sampled],
                                   rtol=1e-12)

    def test_threads_give_the_same_bytes(self):
        outs = []
        for threads in ("1", "2"):
            pw = self.path("pw%s.csv" % threads)
            p = self.loo("probit", "--threads", threads, "--pointwise", pw)
            with open(pw) as f:
                outs.append((p.stdout.replace(pw, ""), f.read()))
        self.assertEqual(outs[0], outs[1])


class OrdinalLooTails(BinaryTestCase):
    def test_rows_far_in_a_tail_keep_their_digits(self):
        # One row with x1 = -20 (eta about -26) in category 2: P(y = 2) = F(c_2 - eta) - F(c_1 - eta),
        # a difference of two CDFs within about 1e-11 (logit) or 1e-140 (probit) of 1, which taken as
        # such keeps about 5 digits (logit) or none (probit: 1 - 1); the kernel never takes it, and
        # scipy's log CDFs (ordinal_models.py, reflected to the upper tail) agree to 1e-9.
        data = om.simulate(200, 5, seed=43)
        data["x1"][0], data["y"][0] = -20.0, 2
        csv_path = om.write_csv(self.path("tails.csv"), data)
        for link in ("ordinal_logit", "ordinal_probit"):
            with self.subTest(link=link):
                # A tight prior on the coefficients keeps the fit from bending to that one row.
                c = om.config(csv_path, "y ~ x1 + x2 + (1 | g)", link, output_draws=200)
                c["model"]["priors"] = {"beta": {"normal": {"loc": list(om.BETA), "scale": [0.01, 0.01]}}}
                cfg = self.write_config(c, link + ".json")
                fit = self.path("fit_" + link)
                p = run(["fit", cfg, "--output", fit, "--quiet"])
                self.assertEqual(p.returncode, 0, p.stderr)
                pw = self.path("pw_%s.csv" % link)
                p = run(["loo", cfg, "--fit", fit, "--pointwise", pw])
                self.assertEqual(p.returncode, 0, p.stderr)
                rows = read_pointwise(pw)
                lpd = om.lpd(om.log_lik(fit, data, ["x1", "x2"], link))
                self.assertLess(lpd[0], -15)
                self.assertTrue(np.all(np.isfinite(pointwise_column(rows, "elpd_loo"))))
                np.testing.assert_allclose(pointwise_column(rows, "elpd_loo") + pointwise_column(rows, "p_loo"), lpd, rtol=1e-9)


class OrdinalLooRanks(BinaryTestCase):
    @unittest.skipUnless(MPIRUN, "mpirun not installed")
    def test_ranks_give_the_same_bytes(self):
        # 5000 rows: two chunks of rows (4096 each), so the ranks share them out.
        data = om.simulate(5000, 8, seed=42)
        cfg = self.write_config(om.config(om.write_csv(self.path("d.csv"), data, labels=True),
                                          "y ~ x1 + x2 + (1 | g)", "ordinal_logit", labels=True,
                                          max_iterations=60, output_draws=100))
        fit = self.path("fit")
        p = run(["fit", cfg, "--output", fit, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        pw1 = self.path("pw1.csv")
        one = run(["loo", cfg, "--fit", fit, "--pointwise", pw1, "--threads", "2"])
        self.assertEqual(one.returncode, 0, one.stderr)
        with open(pw1) as f:
            want = f.read()
        pw = self.path("pw2.csv")
        q = subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", BINARY, "loo", cfg, "--fit", fit,
                            "--pointwise", pw, "--threads", "1"], capture_output=True, text=True, timeout=300,
                           env=MPI_ENV)
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertEqual(one.stdout.replace(pw1, pw), q.stdout)
        with open(pw) as f:
            self.assertEqual(f.read(), want)
        # And against scipy: the rows' lpd.
        rows = read_pointwise(pw)
        ll = om.log_lik(fit, data, ["x1", "x2"], "ordinal_logit")
        np.testing.assert_allclose(pointwise_column(rows, "elpd_loo") + pointwise_column(rows, "p_loo"), om.lpd(ll), rtol=1e-9)


if __name__ == "__main__":
    unittest.main()
