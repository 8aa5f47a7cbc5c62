#!/usr/bin/env python3
"""Posterior predictive checks: `predict --replicates N FILE` and scripts/plot_ppc.py.

The replicates are checked against what predict's own output (itself tested against numpy in
test_predict_families.py) says of the same draws: over R replicates from the first R draws, each
row's replicate mean lies within Monte Carlo error of the mean of E[y | theta_r], with the spread
the predictive sd gives; values are 0/1, integers or reals as the family says. Threads and MPI
ranks give the same bytes. The plot's test statistics and p-values are recomputed with numpy."""
import os
import shutil
import subprocess
import sys
import unittest

import numpy as np

import likelihood_models as lm
from bvi_test import BINARY, SOURCE_DIR, BinaryTestCase, read_csv_rows, run

SCRIPT = os.path.join(SOURCE_DIR, "scripts", "plot_ppc.py")
MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
FEATURES = ["x1", "x2", "x3"]
R = 400
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def load_yrep(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    return header, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def plot(args):
    return subprocess.run([sys.executable, SCRIPT] + args, capture_output=True, text=True, timeout=300)


class Replicates(BinaryTestCase):
    def fit(self, family, rows=300):
        data = lm.simulate(family, rows, 0.3, [0.7, -0.4, 0.2], seed=41)
        lm.write_csv(self.path("d.csv"), data)
        cfg = self.write_config(lm.config(family, self.path("d.csv"), FEATURES,
                                          inference={"seed": 5, "output_draws": 1000}))
        p = run(["fit", cfg, "--quiet", "--output", self.path("fit")])
        self.assertEqual(p.returncode, 0, p.stderr)
        return cfg, data

    def check_family(self, family):
        cfg, data = self.fit(family)
        out = self.path("yrep.csv")
        p = run(["predict", cfg, "--fit", self.path("fit"), "--draws", str(R), "--replicates", str(R), out])
        self.assertEqual(p.returncode, 0, p.stderr)
        pred = read_csv_rows(p.stdout)
        header, y = load_yrep(out)
        n = len(data["y"])
        self.assertEqual(header, ["y_rep.%d" % (i + 1) for i in range(n)])
        self.assertEqual(y.shape, (R, n))
        if family.startswith("bernoulli"):
            self.assertTrue(np.all((y == 0) | (y == 1)))
        elif family in ("normal", "lognormal", "gamma_log", "beta_logit", "student_t"):
            self.assertFalse(np.all(y == np.round(y)))
            if family not in ("normal", "student_t"):
                self.assertTrue(np.all(y >= 0), family)
            if family == "beta_logit":  # at precision 0.8 some values round to 0 or 1 in double
                self.assertTrue(np.all(y <= 1))
        else:
            self.assertTrue(np.all(y == np.round(y)) and np.all(y >= 0))
            if family == "binomial_logit":
                self.assertTrue(np.all(y <= np.array(data["trials"])[None, :]))
        mean = np.array([float(r["mean"]) for r in pred])
        if family.startswith("bernoulli"):
            sd = np.sqrt(mean * (1 - mean))
        else:
            sd = np.array([float(r["predictive_sd"]) for r in pred])
        fixed = sd == 0  # binomial rows of no trials
        self.assertTrue(np.all(y[:, fixed] == mean[fixed]))
        y, mean, sd = y[:, ~fixed], mean[~fixed], sd[~fixed]
        z = (y.mean(axis=0) - mean) / (sd / np.sqrt(R))
        self.assertLess(np.max(np.abs(z)), 4.5, family)  # 300 rows: P(max |z| > 4.5) < 0.002
        self.assertLess(abs(np.mean(z)), 4.5 / np.sqrt(n), family)
        # The replicates' spread is the predictive distribution's (law of total variance).
        ratio = np.mean(y.var(axis=0)) / np.mean(sd ** 2)
        self.assertAlmostEqual(ratio, 1.0, delta=0.08, msg=family)
        return cfg, out

    def test_every_family(self):
        for family in lm.FAMILIES:
            with self.subTest(family=family):
                self.check_family(family)

    def test_same_bytes_for_threads_ranks_and_a_prefix(self):
        cfg, _ = self.fit("negative_binomial_log", rows=700)
        outs = []
        for threads in ("1", "2"):
            out = self.path("t%s.csv" % threads)
            p = run(["predict", cfg, "--fit", self.path("fit"), "--threads", threads, "--replicates", "50", out])
            self.assertEqual(p.returncode, 0, p.stderr)
            outs.append(open(out).read())
        self.assertEqual(outs[0], outs[1])
        out = self.path("prefix.csv")
        p = run(["predict", cfg, "--fit", self.path("fit"), "--replicates", "20", out])
        self.assertEqual(open(out).read().splitlines(), outs[0].splitlines()[:21])
        if MPIRUN:
            out = self.path("mpi.csv")
            p = subprocess.run([MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", "2", BINARY, "predict",
                                cfg, "--fit", self.path("fit"), "--replicates", "50", out],
                               capture_output=True, text=True, timeout=300, env=MPI_ENV)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(open(out).read(), outs[0])

    def test_bad_requests(self):
        cfg, _ = self.fit("poisson_log", rows=50)
        fit = self.path("fit")
        self.assert_error(run(["predict", cfg, "--fit", fit, "--replicates", "1001", self.path("a.csv")]), 64,
                          contains="1000 draws")
        self.assert_error(run(["predict", cfg, "--fit", fit, "--draws", "10", "--replicates", "11",
                               self.path("a.csv")]), 64)
        self.assert_error(run(["predict", cfg, "--fit", fit, "--replicates", "0", self.path("a.csv")]), 64)
        self.assert_error(run(["predict", cfg, "--fit", fit, "--replicates", "5"]), 64)
        self.assert_error(run(["predict", cfg, "--fit", fit, "--replicates", "5", self.path("no/such/a.csv")]),
                          73)
        self.assertFalse(os.path.exists(self.path("a.csv")))


class PlotScript(BinaryTestCase):
    def replicate(self, family, rows=200):
        data = lm.simulate(family, rows, 0.3, [0.7, -0.4, 0.2], seed=43)
        data["g"] = [float(i % 5) for i in range(rows)]  # written as 0.0 ... 4.0
        lm.write_csv(self.path("d.csv"), data)
        cfg = self.write_config(lm.config(family, self.path("d.csv"), FEATURES, inference={"seed": 5}))
        self.assertEqual(run(["fit", cfg, "--quiet", "--output", self.path("fit")]).returncode, 0)
        p = run(["predict", cfg, "--fit", self.path("fit"), "--replicates", "300", self.path("yrep.csv")])
        self.assertEqual(p.returncode, 0, p.stderr)
        return data

    def draw(self, *extra):
        out = self.path("fig.png")
        if os.path.exists(out):
            os.unlink(out)
        p = plot(["--data", self.path("d.csv"), "--response", "y", "--replicates", self.path("yrep.csv"),
                  "-o", out] + list(extra))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(8), PNG_MAGIC)
        return p.stderr

    def test_every_kind_draws(self):
        self.replicate("poisson_log")
        self.draw()
        self.draw("--kind", "overlay")
        self.draw("--kind", "stat", "--stat", "max")
        self.replicate("bernoulli_logit")
        self.draw()
        self.replicate("normal")
        self.draw()
        p = plot(["--data", self.path("d.csv"), "--response", "y", "--replicates", self.path("yrep.csv"),
                  "--kind", "bars", "-o", self.path("x.png")])
        self.assertEqual(p.returncode, 65, p.stderr)

    def test_a_response_of_labels(self):
        # A binary response as labels (/data/levels ["No", "Yes"]): --fit reads them as the fit
        # did, 0 and 1, so the calibration plot and the mean are those of the 0/1 rows; without
        # --fit the label is not a number and the error says what to give.
        data = lm.simulate("bernoulli_logit", 200, 0.3, [0.7, -0.4, 0.2], seed=43)
        rows = ["x1,x2,x3,y"] + ["%r,%r,%r,%s" % (a, b, c, "Yes" if v else "No")
                                 for a, b, c, v in zip(data["x1"], data["x2"], data["x3"], data["y"])]
        csv = self.write("d.csv", "\n".join(rows) + "\n")
        cfg = self.write_config({"data": {"csv": csv, "levels": ["No", "Yes"]},
                                 "model": {"likelihood": "bernoulli_logit", "formula": "y ~ x1 + x2 + x3"},
                                 "inference": {"seed": 5}})
        self.assertEqual(run(["fit", cfg, "--quiet", "--output", self.path("fit")]).returncode, 0)
        p = run(["predict", cfg, "--fit", self.path("fit"), "--replicates", "300", self.path("yrep.csv")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.draw("--fit", self.path("fit"))
        err = self.draw("--fit", self.path("fit"), "--kind", "stat", "--stat", "mean")
        line = [l for l in err.splitlines() if "T(y) =" in l][0]
        self.assertAlmostEqual(float(line.split("T(y) = ")[1].split(",")[0]), np.mean(data["y"]), places=12)
        p = plot(["--data", csv, "--response", "y", "--replicates", self.path("yrep.csv"), "-o", self.path("x.png")])
        self.assertEqual(p.returncode, 65, p.stderr)
        self.assertIn("give --fit DIR", p.stderr)

    def test_statistics_and_p_values_by_hand(self):
        data = self.replicate("negative_binomial_log")
        y = np.array(data["y"], dtype=float)
        _, yrep = load_yrep(self.path("yrep.csv"))
        for stat, f in [("mean", lambda v: v.mean(-1)), ("sd", lambda v: v.std(-1, ddof=1)),
                        ("max", lambda v: v.max(-1)), ("zeros", lambda v: (v == 0).mean(-1))]:
            err = self.draw("--kind", "stat", "--stat", stat)
            line = [l for l in err.splitlines() if "T(y) =" in l][0]
            t = float(line.split("T(y) = ")[1].split(",")[0])
            pval = float(line.split("p = ")[1])
            self.assertAlmostEqual(t, f(y), places=12)
            self.assertAlmostEqual(pval, np.mean(f(yrep) >= f(y)), places=12)
        err = self.draw("--stat", "zeros", "--group", "g")
        g = np.array([repr(v) for v in data["g"]])
        for level in ["0.0", "1.0", "2.0", "3.0", "4.0"]:
            line = [l for l in err.splitlines() if "g = %s:" % level in l][0]
            m = g == level
            self.assertAlmostEqual(float(line.split("T(y) = ")[1].split(",")[0]), np.mean(y[m] == 0), places=12)
            self.assertAlmostEqual(float(line.split("p = ")[1]),
                                   np.mean((yrep[:, m] == 0).mean(-1) >= np.mean(y[m] == 0)), places=12)

    def test_errors(self):
        self.replicate("poisson_log", rows=30)
        base = ["--data", self.path("d.csv"), "--response", "y", "--replicates", self.path("yrep.csv"),
                "-o", self.path("x.png")]
        cases = [(["--response", "nope"], 65), (["--replicates", self.path("none.csv")], 66),
                 (["--kind", "pie"], 64), (["-o", self.path("no/such/x.png")], 73),
                 (["--group", "nope"], 65), (["--kind", "calibration"], 65)]
        for extra, code in cases:
            with self.subTest(extra=extra):
                p = plot(base + extra)
                self.assertEqual(p.returncode, code, p.stderr)
                lines = p.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertTrue(lines[0].startswith("plot_ppc.py: error: "), lines[0])
        self.write("short.csv", "y\n1\n2\n")
        p = plot(base + ["--data", self.path("short.csv")])
        self.assertEqual(p.returncode, 65, p.stderr)
        self.assertIn("lacks", p.stderr)
        # Replicates files cut short: only the header, a row cut in the middle, a cell not a
        # number; one line naming the file (and the line), no warning of numpy's before it.
        with open(self.path("yrep.csv")) as f:
            lines = f.read().splitlines()
        for name, text, where in [("header.csv", lines[0] + "\n", ""),
                                  ("cut.csv", "\n".join(lines[:3]) + "\n" + lines[3][: len(lines[3]) // 2] + "\n", ":4"),
                                  ("word.csv", lines[0] + "\n" + ",".join(["x"] * 30) + "\n", ":2")]:
            with self.subTest(file=name):
                path = self.write(name, text)
                p = plot(base + ["--replicates", path])
                self.assertEqual(p.returncode, 65, p.stderr)
                err = p.stderr.strip().splitlines()
                self.assertEqual(len(err), 1, p.stderr)
                self.assertTrue(err[0].startswith("plot_ppc.py: error: " + path + where + ": "), err[0])


if __name__ == "__main__":
    unittest.main()
