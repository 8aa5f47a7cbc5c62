"""bayes-vi fit's output folder under failure, and the figure drawn from a real fit.

* A fit killed with SIGKILL (mid-run, and while it writes its files) leaves the previous run's
  files byte for byte; a fit that diverges exits 70 with one line and writes nothing.
* A default fit that goes astray is not reported as reliable (judged against the exact family
  optimum of tests/reference/vi_optimum.py).
* scripts/plot_posterior.py turns a real fit into a valid PNG, from files and from a pipe."""
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import zlib

from bvi_fit import (PLOT_SCRIPT, SEED_CONFIG, SEED_TRUTH, parse_summary, run_fit, seed_config,
                     write_synthetic_csv)
from bvi_test import BINARY, SOURCE_DIR, BinaryTestCase

OUTPUT_FILES = ["draws.csv", "elbo.csv", "summary.json"]
LOCK_FILE = ".bayes-vi.lock"


def snapshot(folder):
    """{name: bytes} of every file in `folder`."""
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            out[name] = f.read()
    return out


def raw_features_config(csv_path, inference=None):
    """Unstandardized features around 5000 +- 2000: a hard problem for untuned step sizes."""
    cfg = {"data": {"csv": csv_path, "response": "y", "standardize": False},
           "model": {"likelihood": "bernoulli_logit", "intercept": True,
                     "priors": {"beta": {"normal": {"loc": 0, "scale": 10}},
                                "alpha": {"normal": {"loc": 0, "scale": 10}}}}}
    if inference is not None:
        cfg["inference"] = inference
    return cfg


class AtomicOutputs(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.out = self.path("out")
        p = run_fit([SEED_CONFIG, "--output", self.out, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.good = snapshot(self.out)
        self.assertEqual(sorted(self.good), OUTPUT_FILES)

    def start(self, cfg):
        # One thread: the test polls the folder on the other core.
        return subprocess.Popen([BINARY, "fit", self.write_config(cfg), "--output", self.out, "--quiet",
                                 "--threads", "1"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def kill(self, p):
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        p.stderr.close()
        self.assertEqual(p.returncode, -signal.SIGKILL)

    def test_sigkill_mid_run_leaves_the_previous_files(self):
        # 10^8 SGD steps on the seed data: hours; the 100-row file is read in milliseconds, so
        # after a second the run is deep in its iterations.
        cfg = seed_config(inference={"optimizer": {"name": "sgd", "learning_rate": 0.01},
                                     "max_iterations": 100000000})
        p = self.start(cfg)
        time.sleep(1.0)
        if p.poll() is not None:
            self.fail("the long fit ended early (%d): %s" % (p.returncode, p.stderr.read()))
        self.kill(p)
        now = snapshot(self.out)
        # The run's lock on the folder (common/output_lock.hpp) is left behind by SIGKILL, empty of
        # any lock (the kernel released it); the next run takes it over.
        self.assertEqual(now.pop(LOCK_FILE, str(p.pid).encode() + b"\n"), str(p.pid).encode() + b"\n")
        self.assertEqual(now, self.good, "the earlier files, byte for byte, and nothing else")

    def test_sigkill_while_writing_leaves_the_previous_files(self):
        # 30000 output draws make draws.csv ~7 MB: its temporary file exists long enough to be seen.
        cfg = seed_config(inference={"max_iterations": 50, "output_draws": 30000})
        for attempt in range(3):
            p = self.start(cfg)
            staged = []
            while p.poll() is None and not staged:
                staged = [n for n in os.listdir(self.out) if ".tmp." in n]
            if staged:
                self.kill(p)
                break
            p.wait()
            p.stderr.close()
            # It finished between two looks: put the good files back and try again.
            for name, data in self.good.items():
                with open(os.path.join(self.out, name), "wb") as f:
                    f.write(data)
        else:
            self.skipTest("never caught the fit while it was writing its files (3 tries)")
        now = snapshot(self.out)
        leftovers = sorted(set(now) - set(OUTPUT_FILES))
        # SIGKILL cannot be caught: a staged temporary file may stay behind, and the run's lock
        # file. They must be beside the outputs, never one of them.
        for name in leftovers:
            self.assertRegex(name, r"^((draws\.csv|elbo\.csv|summary\.json)\.tmp\.\d+|\.bayes-vi\.lock)$")
        self.assertEqual({n: now[n] for n in OUTPUT_FILES}, self.good)
        # And the folder stays usable, and is left tidy by a run that ends normally.
        p = run_fit([SEED_CONFIG, "--output", self.out, "--quiet", "--seed", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn(LOCK_FILE, os.listdir(self.out))
        with open(os.path.join(self.out, "summary.json")) as f:
            self.assertEqual(f.read(), p.stdout)


class Divergence(BinaryTestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.csv = write_synthetic_csv(os.path.join(cls._tmp.name, "raw.csv"), 300, 4, seed=5,
                                      offset=5000.0, scale=2000.0)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_divergent_fit_exits_70_and_writes_nothing(self):
        out = self.path("out")
        p = run_fit([SEED_CONFIG, "--output", out, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        good = snapshot(out)
        for algo in ("meanfield", "fullrank"):
            cfg = raw_features_config(self.csv, {"algorithm": algo, "max_iterations": 200,
                                                 "optimizer": {"name": "sgd", "learning_rate": 1e6}})
            config = self.write_config(cfg, algo + ".json")
            self.assert_error(run_fit([config, "--output", out]), 70, where="/inference")
            self.assertEqual(snapshot(out), good, algo)
            # --quiet hides warnings, never the error.
            self.assert_error(run_fit([config, "--quiet"]), 70, where="/inference")
            # Into a new folder: nothing at all (the folder itself is made up front, to fail early).
            fresh = self.path("fresh-" + algo)
            self.assert_error(run_fit([config, "--output", fresh]), 70, where="/inference")
            self.assertEqual(os.listdir(fresh) if os.path.isdir(fresh) else [], [])

    def test_a_default_fit_far_from_the_optimum_is_flagged(self):
        try:
            sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "reference"))
            import vi_optimum
        except ImportError as e:
            self.skipTest("the reference optimum needs numpy and scipy (%s)" % e)
        finally:
            sys.path.pop(0)
        cfg = self.write_config(raw_features_config(self.csv))
        ref = vi_optimum.solve(cfg, "meanfield")
        self.assertTrue(ref["diagnostics"]["converged"])
        p = run_fit([cfg])
        self.assertEqual(p.returncode, 0, p.stderr)
        s = parse_summary(p.stdout)
        if s["elbo"] > ref["elbo"] - 10 * s["elbo_se"] - 1.0:
            return  # it found the optimum: nothing to flag
        # Far off (this one lands near -6.6e10 against -166): k-hat must not call it good.
        k = s["pareto_k"]
        self.assertTrue(k is None or k > 0.7, "pareto_k %r for an ELBO of %g (optimum %g)"
                        % (k, s["elbo"], ref["elbo"]))
        self.assertIn("Pareto k-hat", p.stderr)


def assert_valid_png(test, path):
    """Every chunk's CRC, IHDR first and IEND last, and the pixel data inflating to exactly
    height rows of the size IHDR implies."""
    with open(path, "rb") as f:
        data = f.read()
    test.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n", path)
    pos, chunks = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        test.assertEqual(zlib.crc32(kind + body) & 0xFFFFFFFF, crc, kind)
        chunks.append((kind, body))
        pos += 12 + length
    test.assertEqual(pos, len(data), "nothing after the last chunk")
    test.assertEqual(chunks[0][0], b"IHDR")
    test.assertEqual(chunks[-1][0], b"IEND")
    width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    test.assertGreater(width, 100)
    test.assertGreater(height, 100)
    test.assertEqual(interlace, 0)
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    pixels = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    test.assertEqual(len(pixels), height * (1 + (width * channels * depth + 7) // 8))
    return width, height


class Figure(BinaryTestCase):
    def setUp(self):
        super().setUp()
        try:
            import matplotlib  # noqa: F401
            import numpy  # noqa: F401
        except ImportError as e:
            self.skipTest("scripts/plot_posterior.py needs numpy and matplotlib (%s)" % e)

    def test_figure_from_the_output_files(self):
        out = self.path("out")
        p = run_fit([SEED_CONFIG, "--output", out, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        png = self.path("fig.png")
        q = subprocess.run([sys.executable, PLOT_SCRIPT, os.path.join(out, "summary.json"),
                            "--truth", SEED_TRUTH, "--elbo", os.path.join(out, "elbo.csv"), "-o", png],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertEqual(q.stdout, "")
        assert_valid_png(self, png)

    def test_figure_from_a_pipe(self):
        png = self.path("piped.png")
        fit = subprocess.Popen([BINARY, "fit", SEED_CONFIG, "--quiet"], stdout=subprocess.PIPE)
        plot = subprocess.run([sys.executable, PLOT_SCRIPT, "-o", png], stdin=fit.stdout,
                              capture_output=True, text=True, timeout=120)
        fit.stdout.close()
        self.assertEqual(fit.wait(timeout=60), 0)
        self.assertEqual(plot.returncode, 0, plot.stderr)
        assert_valid_png(self, png)


if __name__ == "__main__":
    unittest.main()
