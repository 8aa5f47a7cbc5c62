"""draws.csv of bayes-vi fit: CmdStan's variational CSV layout (shared/formats/stan_vb_example.csv
is one Stan wrote, compared where shared/ is at hand; the layout rules are spelled out here),
its columns checked against independent computations:

* the first row is the summary's mean, the draws' moments agree with the summary's mean and sd
  within Monte Carlo error;
* log_g__ is the normal log density of each draw under the summary's means and sds, computed
  here with every constant (meanfield: the summary determines q);
* log_p__ is what `bayes-vi eval` gives for the same point (eval is checked against the seed
  notebook's numbers in test_eval.py);
* R's rstan::read_stan_csv and a plain comment-skipping CSV reader (cmdstanpy's way) read it."""
import csv
import io
import json
import math
import os
import shutil
import subprocess
import tempfile
import unittest

from bvi_fit import mean_sd, parse_summary, read_draws, run_fit, seed_config
from bvi_test import SOURCE_DIR, BinaryTestCase, read_csv_rows, run

NAMES = ["alpha"] + ["beta.%d" % i for i in range(1, 11)]
DRAWS = 1000
LOG_2PI = math.log(2 * math.pi)
# shared/ sits beside the checkout (the workplace's and CI's layout).
STAN_EXAMPLE = os.path.join(SOURCE_DIR, "..", "shared", "formats", "stan_vb_example.csv")

# How far a statistic of DRAWS independent draws may stray, in standard errors. The seed is
# fixed, so this only decides how much slack a correct writer gets; 4.5 makes a false alarm over
# 11 parameters about 1e-4 for any seed.
Z = 4.5


def intercept_config(algorithm):
    cfg = seed_config(inference={"algorithm": algorithm, "output_draws": DRAWS})
    cfg["model"]["intercept"] = True
    cfg["model"]["priors"]["alpha"] = {"normal": {"loc": 0, "scale": 10}}
    return cfg


class DrawsLayout(BinaryTestCase):
    """One meanfield fit of the seed problem with an intercept, shared by the tests."""

    @classmethod
    def setUpClass(cls):
        cls._dir = tempfile.TemporaryDirectory()
        cls.config = os.path.join(cls._dir.name, "config.json")
        with open(cls.config, "w") as f:
            json.dump(intercept_config("meanfield"), f)
        cls.out = os.path.join(cls._dir.name, "out")
        p = run_fit([cls.config, "--output", cls.out, "--quiet"])
        if p.returncode != 0:
            raise AssertionError("fit failed: %s" % p.stderr)
        cls.summary = parse_summary(p.stdout)
        cls.draws_path = os.path.join(cls.out, "draws.csv")
        cls.draws = read_draws(cls.draws_path)

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def test_header_comments_and_rows(self):
        d = self.draws
        self.assertGreater(len(d.leading_comments), 0, "a # block with the settings first")
        self.assertEqual(d.header, ["lp__", "log_p__", "log_g__"] + NAMES)
        self.assertEqual(len(d.header_comments), 2, "CmdStan writes two # lines after the header")
        self.assertEqual(d.stray_comments, [])
        self.assertEqual(len(d.rows), 1 + DRAWS)
        for row in d.rows:
            self.assertEqual(len(row), len(d.header), row)
            for x in row:
                self.assertTrue(math.isfinite(float(x)), row)
        self.assertEqual(d.mean_row[:3], ["0", "0", "0"])
        self.assertEqual(set(d.column("lp__")), {0.0})

    def test_settings_that_readers_rely_on(self):
        s = self.draws.settings()
        # rstan drops the first (mean) row only when output_samples is present.
        self.assertEqual(s.get("output_samples"), str(DRAWS))
        self.assertEqual(s.get("algorithm"), "meanfield")
        self.assertEqual(s.get("seed"), "10003")
        self.assertEqual(s.get("tol_rel_obj"), "null")  # the exact method's: no such rule

    def test_settings_are_numbers_as_stan_writes_them(self):
        # Stan's own file says tol_rel_obj=0.01: the shortest text, not %f's 0.010000 (or
        # 0.000000 for 1e-7), here for a Monte Carlo fit with the rule on.
        cfg = seed_config(inference={"method": "monte_carlo", "max_iterations": 50, "tol_rel_obj": 1e-7,
                                     "output_draws": 10})
        out = self.path("tol")
        p = run_fit([self.write_config(cfg, "tol.json"), "--output", out, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(read_draws(os.path.join(out, "draws.csv")).settings().get("tol_rel_obj"), "1e-07")
        p = run(["check", self.path("tol.json")])
        self.assertIn("tol_rel_obj 1e-07", p.stdout + p.stderr)

    def test_same_shape_as_stans_own_file(self):
        if not os.path.exists(STAN_EXAMPLE):
            self.skipTest("no %s beside the checkout" % STAN_EXAMPLE)
        stan = read_draws(STAN_EXAMPLE)
        self.assertEqual(stan.header[:3], self.draws.header[:3])
        self.assertEqual(len(stan.header_comments), len(self.draws.header_comments))
        self.assertEqual(stan.mean_row[:3], self.draws.mean_row[:3])
        self.assertEqual(len(stan.rows) - 1, int(stan.settings()["output_samples"]))

    def test_first_row_is_the_summary_mean(self):
        means = [float(x) for x in self.draws.mean_row[3:]]
        self.assertEqual(means, [q["mean"] for q in self.summary["parameters"]])

    def test_draw_moments_agree_with_the_summary(self):
        for q in self.summary["parameters"]:
            m, s = mean_sd(self.draws.column(q["name"]))
            self.assertLessEqual(abs(m - q["mean"]), Z * q["sd"] / math.sqrt(DRAWS), q["name"])
            self.assertLessEqual(abs(s / q["sd"] - 1), Z / math.sqrt(2 * (DRAWS - 1)), q["name"])

    def test_log_g_is_the_normal_log_density_of_the_draw(self):
        params = self.summary["parameters"]
        log_g = self.draws.column("log_g__")
        cols = [self.draws.column(q["name"]) for q in params]
        for i, got in enumerate(log_g):
            terms = [-0.5 * LOG_2PI - math.log(q["sd"]) - 0.5 * ((c[i] - q["mean"]) / q["sd"]) ** 2
                     for q, c in zip(params, cols)]
            want = math.fsum(terms)
            scale = max(1.0, math.fsum(abs(t) for t in terms))
            self.assertLessEqual(abs(got - want), 1e-8 * scale, "draw %d: %r vs %r" % (i, got, want))

    def test_log_p_is_the_log_joint_of_eval(self):
        # The draws as eval's --params CSV, each number exactly as draws.csv wrote it.
        j = [self.draws.header.index(n) for n in NAMES]
        text = ",".join(NAMES) + "\n" + "".join(",".join(r[k] for k in j) + "\n" for r in self.draws.draw_rows)
        p = run(["eval", self.config, "--params", "-"], stdin=text)
        self.assertEqual(p.returncode, 0, p.stderr)
        want = [float(r["log_joint"]) for r in read_csv_rows(p.stdout)]
        got = self.draws.column("log_p__")
        self.assertEqual(len(want), len(got))
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertLessEqual(abs(g - w), 1e-9 * abs(w), "draw %d" % i)

    def test_log_p_minus_log_g_averages_to_the_elbo(self):
        # ELBO = E_q[log p - log q]: the file's draws estimate what the summary reports.
        diff = [a - b for a, b in zip(self.draws.column("log_p__"), self.draws.column("log_g__"))]
        m, s = mean_sd(diff)
        se = math.hypot(s / math.sqrt(len(diff)), self.summary["elbo_se"])
        self.assertLessEqual(abs(m - self.summary["elbo"]), Z * se, (m, self.summary["elbo"]))

    def test_plain_csv_reader_skipping_comments(self):
        # cmdstanpy's way: drop the # lines, read the rest as numeric CSV.
        with open(self.draws_path, newline="") as f:
            rows = list(csv.reader(line for line in f if not line.startswith("#")))
        header, body = rows[0], rows[1:]
        self.assertEqual(header, ["lp__", "log_p__", "log_g__"] + NAMES)
        table = [[float(x) for x in r] for r in body]
        self.assertEqual(len(table), 1 + DRAWS)
        self.assertEqual({len(r) for r in table}, {len(header)})

    def test_rstan_reads_the_file(self):
        if shutil.which("Rscript") is None:
            self.skipTest("Rscript is not installed")
        probe = subprocess.run(["Rscript", "-e", "library(rstan)"], capture_output=True, text=True)
        if probe.returncode != 0:
            self.skipTest("R has no rstan: %s" % probe.stderr.strip().splitlines()[-1:])
        script = ("suppressPackageStartupMessages(library(rstan));"
                  "f <- suppressWarnings(rstan::read_stan_csv(commandArgs(TRUE)[1]));"
                  "stopifnot(is(f, 'stanfit'));"
                  # summary() and print() must work too (a CmdStan-style method line breaks them).
                  "s <- suppressWarnings(rstan::summary(f)$summary); stopifnot(nrow(s) > 0);"
                  "invisible(capture.output(print(f)));"
                  "m <- as.matrix(f);"
                  "write.csv(data.frame(name = colnames(m), mean = sprintf('%.17g', colMeans(m)),"
                  " n = nrow(m)), stdout(), row.names = FALSE)")
        p = subprocess.run(["Rscript", "-e", script, self.draws_path], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        got = {r["name"]: (float(r["mean"]), int(r["n"])) for r in csv.DictReader(io.StringIO(p.stdout))}
        # rstan names beta.1 as beta[1] and leaves the mean row out: DRAWS draws per column.
        for name in NAMES + ["log_p__", "log_g__", "lp__"]:
            r_name = name.replace(".", "[") + "]" if "." in name else name
            self.assertIn(r_name, got)
            want = math.fsum(self.draws.column(name)) / DRAWS
            mean, n = got[r_name]
            self.assertEqual(n, DRAWS)
            self.assertLessEqual(abs(mean - want), 1e-12 * max(1.0, abs(want)), name)


class FullrankDraws(BinaryTestCase):
    def test_fullrank_layout_and_moments(self):
        out = self.path("out")
        p = run_fit([self.write_config(intercept_config("fullrank")), "--output", out, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        summary = parse_summary(p.stdout)
        d = read_draws(os.path.join(out, "draws.csv"))
        self.assertEqual(d.header, ["lp__", "log_p__", "log_g__"] + NAMES)
        self.assertEqual(d.settings().get("algorithm"), "fullrank")
        self.assertEqual(len(d.rows), 1 + DRAWS)
        for q in summary["parameters"]:
            m, s = mean_sd(d.column(q["name"]))
            self.assertLessEqual(abs(m - q["mean"]), Z * q["sd"] / math.sqrt(DRAWS), q["name"])
            self.assertLessEqual(abs(s / q["sd"] - 1), Z / math.sqrt(2 * (DRAWS - 1)), q["name"])

    def test_no_output_draws_leaves_the_mean_row(self):
        cfg = intercept_config("meanfield")
        cfg["inference"]["output_draws"] = 0
        out = self.path("out")
        p = run_fit([self.write_config(cfg), "--output", out, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        d = read_draws(os.path.join(out, "draws.csv"))
        self.assertEqual(len(d.rows), 1)
        self.assertEqual(d.settings().get("output_samples"), "0")
        self.assertIsInstance(parse_summary(p.stdout)["pareto_k"], float)


if __name__ == "__main__":
    unittest.main()
