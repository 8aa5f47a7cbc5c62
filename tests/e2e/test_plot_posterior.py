#!/usr/bin/env python3
"""End-to-end tests of scripts/plot_posterior.py (plain unittest).

Run with an interpreter that has numpy and matplotlib, e.g.
    /usr/bin/python3 tests/e2e/test_plot_posterior.py
The script is run with that same interpreter (sys.executable).

The summary is built from data/seed_meanfield_optimum.csv (the exact mean-field optimum of the
seed notebook's problem, a copy of shared/data's) and the truth is data/seed_true_beta.csv, so
the figure is the notebook's. Which intervals miss the truth is worked out by hand below, not
taken from the script.
"""

import csv
import importlib.util
import json
import math
import os
import pathlib
import random
import struct
import subprocess
import sys
import tempfile
import unittest

try:  # the script needs them too; fail loudly rather than skip, so CI cannot pass by not testing
    import matplotlib  # noqa: F401
    import numpy  # noqa: F401
except ImportError as exc:
    sys.exit(f"{sys.argv[0]}: {sys.executable} lacks numpy/matplotlib ({exc}); "
             "run it with one that has them, e.g. /usr/bin/python3")

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "plot_posterior.py"
OPTIMUM = ROOT / "data" / "seed_meanfield_optimum.csv"
TRUTH = ROOT / "data" / "seed_true_beta.csv"

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
Z95 = 1.6448536269514722  # standard normal 0.95 quantile: q05/q95 of a Gaussian marginal

# The exit codes the script documents (bayes-vi's, SPEC.md).
EX_USAGE, EX_DATAERR, EX_NOINPUT, EX_CANTCREAT = 64, 65, 66, 73


def write_summary(path, **overrides):
    """A summary document shaped like `bayes-vi fit`'s for the seed problem."""
    with open(OPTIMUM, newline="") as f:
        rows = list(csv.DictReader(f))
    params = []
    for r in rows:
        mean, sd = float(r["mean"]), float(r["sd"])
        params.append({"name": r["name"], "feature": "x" + r["name"].split(".")[1],
                       "mean": mean, "sd": sd, "q05": mean - Z95 * sd, "q50": mean,
                       "q95": mean + Z95 * sd})
    doc = {"parameters": params, "elbo": -73.781, "elbo_se": 0.0213, "iterations": 1000,
           "converged": False, "pareto_k": 0.31, "algorithm": "meanfield", "seed": 10003,
           "threads": 4, "ranks": 1, "seconds": 0.82}
    doc.update(overrides)
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
    return doc


def write_elbo(path, n=1000):
    """An SGD-like trace: from about -5000 up to the optimum's -73.78, with Monte Carlo noise.
    The first rel_change is empty (nothing to compare with) and one evaluation is nan, as a run
    that recovered from a non-finite ELBO logs it."""
    rng = random.Random(7)
    with open(path, "w") as f:
        f.write("iteration,seconds,elbo,rel_change\n")
        previous = None
        for t in range(1, n + 1):
            elbo = -73.78 - 5000.0 * math.exp(-t / 30.0) + rng.gauss(0.0, 0.4)
            text = "nan" if t == 40 else f"{elbo:.6f}"
            rel = "" if previous is None else f"{abs((elbo - previous) / elbo):.6g}"
            f.write(f"{t},{0.0008 * t:.4f},{text},{rel}\n")
            previous = elbo


def png_size(path):
    """(width, height) from the IHDR chunk, after checking the signature."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != PNG_MAGIC or head[12:16] != b"IHDR":
        raise AssertionError(f"{path} is not a PNG (starts {head[:16]!r})")
    return struct.unpack(">II", head[16:24])


def load_script_module():
    spec = importlib.util.spec_from_file_location("plot_posterior", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class PlotPosteriorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="plot_posterior_test.")
        cls.dir = pathlib.Path(cls._tmp.name)
        cls.summary = cls.dir / "summary.json"
        cls.elbo = cls.dir / "elbo.csv"
        write_summary(cls.summary)
        write_elbo(cls.elbo)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def run_script(self, *args, stdin=None):
        return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], input=stdin,
                              capture_output=True, timeout=120)

    def assert_wrote(self, result, out):
        stderr = result.stderr.decode()
        self.assertEqual(result.returncode, 0, stderr)
        self.assertEqual(result.stdout, b"", "the figure's path goes to stderr, stdout stays clean")
        self.assertIn(f"wrote {out}", stderr)
        return png_size(out)

    def assert_two_panels(self, size):
        width, height = size
        self.assertTrue(1000 <= width <= 2000 and 400 <= height <= 1000, size)
        self.assertGreater(width / height, 1.8, "two panels side by side")

    def assert_one_panel(self, size):
        width, height = size
        self.assertTrue(400 <= width < 1000 and 400 <= height <= 1200, size)

    # -- figures ---------------------------------------------------------------------------

    def test_stdin_with_truth_and_elbo_draws_the_notebook_figure(self):
        out = self.dir / "notebook.png"
        result = self.run_script("--truth", TRUTH, "--elbo", self.elbo, "-o", out,
                                 stdin=self.summary.read_bytes())
        self.assert_two_panels(self.assert_wrote(result, out))
        # |2.606955 - 1.70885527| = 0.898 > 2 * 0.365047 = 0.730 for beta.8; every other
        # coefficient is within 2 sd of its true value (largest ratio: beta.9, 0.436 / 0.558).
        self.assertIn("9 of 10 +/-2 sd intervals cover the truth; misses: x8 (beta.8)",
                      result.stderr.decode())
        self.assertIn("1 non-finite ELBO value(s) not plotted", result.stderr.decode())

    def test_dash_reads_stdin_too(self):
        out = self.dir / "dash.png"
        result = self.run_script("-", "--elbo", self.elbo, "-o", out,
                                 stdin=self.summary.read_bytes())
        self.assert_two_panels(self.assert_wrote(result, out))

    def test_file_without_truth_or_elbo_is_a_forest_plot(self):
        out = self.dir / "forest.png"
        self.assert_one_panel(self.assert_wrote(self.run_script(self.summary, "-o", out), out))

    def test_file_with_truth_only(self):
        out = self.dir / "truth.png"
        result = self.run_script(self.summary, "--truth", TRUTH, "-o", out)
        self.assert_one_panel(self.assert_wrote(result, out))

    def test_file_with_elbo_only(self):
        out = self.dir / "forest_elbo.png"
        result = self.run_script(self.summary, "--elbo", self.elbo, "-o", out)
        self.assert_two_panels(self.assert_wrote(result, out))

    def test_default_output_name(self):
        result = subprocess.run([sys.executable, str(SCRIPT), str(self.summary)],
                                cwd=self.dir, capture_output=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr.decode())
        self.assertIn("wrote posterior.png", result.stderr.decode())
        png_size(self.dir / "posterior.png")

    def test_only_the_required_keys(self):
        # No q05/q50/q95, no elbo, pareto_k, algorithm ...: the forest plot shows mean +/- 2 sd.
        path = self.dir / "minimal.json"
        doc = write_summary(path)
        minimal = {"parameters": [{k: p[k] for k in ("name", "mean", "sd")}
                                  for p in doc["parameters"]]}
        path.write_text(json.dumps(minimal))
        out = self.dir / "minimal.png"
        self.assert_wrote(self.run_script(path, "--elbo", self.elbo, "-o", out), out)

    def test_parameter_without_a_true_value_is_left_out_with_a_warning(self):
        path = self.dir / "with_alpha.json"
        doc = write_summary(path)
        doc["parameters"].append({"name": "alpha", "mean": -0.2, "sd": 0.3, "q05": -0.69,
                                  "q50": -0.2, "q95": 0.29})
        path.write_text(json.dumps(doc))
        out = self.dir / "with_alpha.png"
        result = self.run_script(path, "--truth", TRUTH, "-o", out)
        self.assert_wrote(result, out)
        self.assertIn("warning:", result.stderr.decode())
        self.assertIn("alpha", result.stderr.decode())

    # -- errors ----------------------------------------------------------------------------

    def assert_error(self, result, code, fragment, out):
        stderr = result.stderr.decode()
        self.assertEqual(result.returncode, code, stderr)
        lines = stderr.splitlines()
        self.assertEqual(len(lines), 1, f"one line expected, got: {stderr!r}")
        self.assertTrue(lines[0].startswith("plot_posterior.py: error: "), lines[0])
        self.assertIn(fragment, lines[0])
        self.assertFalse(os.path.exists(out), "no figure on error")

    def test_error_paths(self):
        no_params = json.dumps({"elbo": -73.8}).encode()
        bad_sd = json.loads(self.summary.read_text())
        bad_sd["parameters"][3]["sd"] = "0.3"
        wrong_truth = self.dir / "wrong_truth.csv"
        wrong_truth.write_text("name,true_value\nbeta.1,0.05\nbeta.11,1.0\n")
        bad_elbo = self.dir / "bad_elbo.csv"
        bad_elbo.write_text("iteration,seconds,elbo,rel_change\n1,0.01,-80.5,\n2,0.02,x,0.1\n")
        cases = [
            # (name, args, stdin, code, fragment of the message)
            ("missing summary", [self.dir / "nope.json"], None, EX_NOINPUT, "nope.json"),
            ("missing truth", [self.summary, "--truth", self.dir / "nope.csv"], None,
             EX_NOINPUT, "nope.csv"),
            ("bad JSON", ["-"], b'{"parameters": [', EX_DATAERR, "invalid JSON"),
            ("empty stdin", [], b"", EX_DATAERR, "empty input"),
            ("no parameters", [], no_params, EX_DATAERR, "/parameters"),
            ("sd not a number", [], json.dumps(bad_sd).encode(), EX_DATAERR,
             "/parameters/3/sd"),
            ("truth names not matching", [self.summary, "--truth", wrong_truth], None,
             EX_DATAERR, "beta.11"),
            ("bad ELBO row", [self.summary, "--elbo", bad_elbo], None, EX_DATAERR,
             "bad_elbo.csv:3"),
            ("unknown option", [self.summary, "--bogus"], None, EX_USAGE, "--bogus"),
            ("unwritable output", [self.summary, "-o", self.dir / "no" / "dir" / "f.png"], None,
             EX_CANTCREAT, "f.png"),
        ]
        for name, args, stdin, code, fragment in cases:
            with self.subTest(name):
                out = self.dir / f"error_{name.replace(' ', '_')}.png"
                if "-o" not in args:
                    args = [*args, "-o", out]
                else:
                    out = args[args.index("-o") + 1]
                self.assert_error(self.run_script(*args, stdin=stdin), code, fragment, out)

    def test_failed_run_leaves_an_existing_figure_alone(self):
        out = self.dir / "keep.png"
        self.assert_wrote(self.run_script(self.summary, "-o", out), out)
        before = out.read_bytes()
        result = self.run_script("-o", out, stdin=b"{")
        self.assertEqual(result.returncode, EX_DATAERR)
        self.assertEqual(out.read_bytes(), before)


class FigureLogicTest(unittest.TestCase):
    """The two decisions the eye cannot check on a PNG: what is highlighted, what is cut."""

    @classmethod
    def setUpClass(cls):
        cls.m = load_script_module()

    def test_misses_on_the_seed_problem_are_beta_8_only(self):
        with open(OPTIMUM, newline="") as f:
            optimum = {r["name"]: (float(r["mean"]), float(r["sd"])) for r in csv.DictReader(f)}
        with open(TRUTH, newline="") as f:
            truth = {r["name"]: float(r["true_value"]) for r in csv.DictReader(f)}
        names = sorted(optimum)
        miss = self.m.interval_misses([truth[n] for n in names], [optimum[n][0] for n in names],
                                      [optimum[n][1] for n in names])
        self.assertEqual([n for n, m in zip(names, miss) if m], ["beta.8"])

    def test_interval_edges(self):
        # mean 0, sd 1: a truth of 2 is on the interval (covered), 2.001 is off it.
        self.assertEqual(list(self.m.interval_misses([2.0, -2.0, 2.001, -2.001], [0.0] * 4,
                                                     [1.0] * 4)), [False, False, True, True])

    def test_elbo_axis_cuts_the_early_plunge_but_not_the_end(self):
        trace = [-5000.0, -900.0, -200.0, -80.0, -75.0, -74.0, -73.9, -74.1, -73.8, -74.0]
        low, high, cut = self.m.elbo_ylim(trace)
        tail = trace[5:]
        self.assertLess(low, min(tail))
        self.assertGreater(high, max(trace))
        # the second half spans h = 0.3 and -5000 is far more than 10 h below it: the axis
        # ends 3 h below -74.1 (plus a little padding)
        self.assertGreater(low, -74.1 - 3 * 0.3 - 0.5)
        # -75.0 sits just inside the axis (-74.1 - 0.9 = -75.0); the four before it are cut
        self.assertEqual(list(cut), [True] * 4 + [False] * 6)

    def test_elbo_axis_keeps_a_trace_without_outliers_whole(self):
        # climbs 2 nats to an end of height 0.2: within 10 h, nothing to cut
        trace = [-76.0, -75.0, -74.5, -74.2, -74.1, -74.0]
        low, high, cut = self.m.elbo_ylim(trace)
        self.assertLess(low, -76.0)
        self.assertFalse(any(cut))

    def test_elbo_axis_shows_the_final_value(self):
        low, high, _ = self.m.elbo_ylim([-80.0, -79.0, -78.5, -78.4], keep=[-70.0, -69.9])
        self.assertLess(low, -80.0)
        self.assertGreater(high, -69.9)

    def test_flat_or_single_point_trace(self):
        for trace in ([-73.8], [-73.8, -73.8, -73.8]):
            low, high, cut = self.m.elbo_ylim(trace)
            self.assertTrue(low < -73.8 < high, (low, high))
            self.assertFalse(any(cut))


if __name__ == "__main__":
    unittest.main()
