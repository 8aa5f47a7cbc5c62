"""Shared helpers for the end-to-end tests of the bayes-vi binary (standard library only).

ctest sets BAYES_VI to the binary and BVI_SOURCE_DIR to the checkout; run by hand, the helpers
fall back to build/bayes-vi in the checkout."""
import csv
import io
import json
import os
import subprocess
import tempfile
import unittest

SOURCE_DIR = os.environ.get("BVI_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BINARY = os.environ.get("BAYES_VI", os.path.join(SOURCE_DIR, "build", "bayes-vi"))
DATA_DIR = os.path.join(SOURCE_DIR, "data")
SEED_CSV = os.path.join(DATA_DIR, "seed_logistic.csv")
SHARED_DIR = os.path.join(SOURCE_DIR, "tests", "e2e", "fixtures")


def run(args, stdin=None, timeout=300, env=None):
    """Runs the binary; returns the CompletedProcess with text stdout/stderr."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run([BINARY] + list(args), input=stdin, capture_output=True, text=True,
                          timeout=timeout, env=full_env)


def logistic_config(csv_path=SEED_CSV, prior_scale=1.0, intercept=False, inference=None, **data_extra):
    cfg = {"data": {"csv": csv_path, "response": "y", **data_extra},
           "model": {"likelihood": "bernoulli_logit", "intercept": intercept,
                     "priors": {"beta": {"normal": {"loc": 0, "scale": prior_scale}}}}}
    if intercept:
        cfg["model"]["priors"]["alpha"] = {"normal": {"loc": 0, "scale": 10}}
    if inference is not None:
        cfg["inference"] = inference
    return cfg


def read_csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


class BinaryTestCase(unittest.TestCase):
    """A test case with a private temporary folder and helpers to write configs and files."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        # A cleanup, not tearDown: cleanups run last-registered first, so what a test registers
        # later (killing a run it started, unmounting a file system in the folder) happens before
        # the folder is removed, not while a still-running fit writes into it.
        self.addCleanup(self._tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, text, mode="w"):
        p = self.path(name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, mode) as f:
            f.write(text)
        return p

    def write_config(self, cfg, name="config.json"):
        return self.write(name, json.dumps(cfg) if not isinstance(cfg, str) else cfg)

    def simulate_csv(self, likelihood, rows, features, name, seed, *extra):
        """`bayes-vi simulate` data in the test's folder (one thread): its path."""
        csv = self.path(name + ".csv")
        p = run(["simulate", "--rows", str(rows), "--features", str(features), "--seed", str(seed),
                 "--likelihood", likelihood, "--output", csv, "--threads", "1"] + list(extra))
        self.assertEqual(p.returncode, 0, p.stderr)
        return csv

    def assert_same_fit(self, ints, named, out):
        """Fits the configs `ints` (the response as numbers) and `named` (as labels; its folder
        `out`, one thread each): the same parameters and ELBO to the bit, and the summary records
        the labels. Returns the labelled fit's summary."""
        a = run(["fit", self.write_config(ints, "ints.json"), "--quiet", "--threads", "1"])
        b = run(["fit", self.write_config(named, "named.json"), "--quiet", "--threads", "1", "--output", out])
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(b.returncode, 0, b.stderr)
        sa, sb = json.loads(a.stdout), json.loads(b.stdout)
        self.assertEqual([(q["name"], q["mean"], q["sd"]) for q in sa["parameters"]],
                         [(q["name"], q["mean"], q["sd"]) for q in sb["parameters"]])
        self.assertEqual(sa["elbo"], sb["elbo"])
        with open(os.path.join(out, "summary.json")) as f:
            self.assertEqual(json.load(f)["data"]["levels"], named["data"]["levels"])
        return sb

    def assert_labelled_predictions(self, config, fit, labels, new, bad):
        """predict on two new rows (x1, x2, x3 and a response of labels): a column p_LABEL per label
        summing to 1, the most probable label in `category`; a row whose label is not in the list
        is exit 65 at its line."""
        rows_csv = self.write("new.csv", "x1,x2,x3,y\n0.1,0.2,0.3,%s\n1.5,0.2,-0.3,%s\n" % tuple(new))
        p = run(["predict", config, "--fit", fit, "--data", rows_csv])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        self.assertEqual(list(rows[0]), ["p_" + l for l in labels] + ["category"])
        for r in rows:
            probs = [float(r["p_" + l]) for l in labels]
            self.assertAlmostEqual(sum(probs), 1.0, places=12)
            self.assertEqual(r["category"], labels[probs.index(max(probs))])
        bad_csv = self.write("new_bad.csv", "x1,x2,x3,y\n0.1,0.2,0.3,%s\n0.1,0.2,0.3,%s\n" % (new[0], bad))
        self.assert_error(run(["predict", config, "--fit", fit, "--data", bad_csv]), 65, where=bad_csv + ":3",
                          contains="'%s' is not one of" % bad)
        return rows_csv

    def assert_error(self, proc, code, where=None, contains=None):
        """SPEC.md's error contract: the exit code, and one stderr line
        'bayes-vi: error: WHERE: WHAT' naming the place."""
        self.assertEqual(proc.returncode, code, "exit code; stderr: %r" % proc.stderr)
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1, "stderr must be one line, got: %r" % proc.stderr)
        self.assertTrue(lines[0].startswith("bayes-vi: error: "), lines[0])
        if where is not None:
            self.assertTrue(lines[0].startswith("bayes-vi: error: " + where + ": "),
                            "expected the place %r in %r" % (where, lines[0]))
        if contains is not None:
            self.assertIn(contains, lines[0])
        self.assertEqual(proc.stdout, "", "nothing on stdout after an error")
