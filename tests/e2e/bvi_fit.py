"""Shared pieces of the `fit` end-to-end tests (test_fit*.py): runs with a timeout, readers for
draws.csv and elbo.csv that know only SPEC.md's layout, and a synthetic dataset generator.

Standard library only: the tests that need numpy/scipy import them themselves."""
import copy
import csv
import json
import math
import os
import random
import subprocess

from bvi_test import BINARY, DATA_DIR, SEED_CSV, SOURCE_DIR

SEED_CONFIG = os.path.join(SOURCE_DIR, "configs", "seed_logistic.json")
# The seed notebook's exact (Gauss-Hermite) mean-field optimum of SEED_CONFIG's problem.
SEED_OPTIMUM = os.path.join(DATA_DIR, "seed_meanfield_optimum.csv")
SEED_OPTIMUM_ELBO = -73.779
SEED_TRUTH = os.path.join(DATA_DIR, "seed_true_beta.csv")
PLOT_SCRIPT = os.path.join(SOURCE_DIR, "scripts", "plot_posterior.py")

# The standard normal's 0.95 quantile (scipy.stats.norm.ppf(0.95)): a Gaussian marginal has
# q05 = mean - Z95 sd and q95 = mean + Z95 sd.
Z95 = 1.6448536269514722

# SPEC.md's summary table, with the JSON type each key must have.
SUMMARY_KEYS = {"parameters": list, "elbo": float, "elbo_se": float, "iterations": int,
                "converged": bool, "pareto_k": float, "algorithm": str, "seed": int,
                "threads": int, "ranks": int, "seconds": float}
PARAMETER_KEYS = {"name": str, "feature": str, "mean": float, "sd": float, "q05": float,
                  "q50": float, "q95": float}

# How a run went rather than what it computed: everything else in a summary is a function of the
# config and the seed alone (SPEC.md, "Reproducibility").
RUN_KEYS = ("seconds", "threads")

# Seconds any single fit may take before the test calls it a hang.
TIMEOUT = 120


def run_fit(args, timeout=TIMEOUT, **kwargs):
    """`bayes-vi fit ARGS`; the CompletedProcess with text stdout/stderr."""
    return subprocess.run([BINARY, "fit"] + list(args), capture_output=True, text=True,
                          timeout=timeout, **kwargs)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def seed_config(inference="keep"):
    """configs/seed_logistic.json with an absolute data path, so the copy can live anywhere;
    `inference` replaces its inference block (None drops it: every default)."""
    cfg = load_json(SEED_CONFIG)
    cfg["data"]["csv"] = SEED_CSV
    if inference is None:
        del cfg["inference"]
    elif inference != "keep":
        cfg["inference"] = copy.deepcopy(inference)
    return cfg


def read_optimum_csv(path=SEED_OPTIMUM):
    """{name: (mean, sd)} of a name,mean,sd CSV."""
    with open(path, newline="") as f:
        return {r["name"]: (float(r["mean"]), float(r["sd"])) for r in csv.DictReader(f)}


def parse_summary(text):
    """The one JSON document of `text`, refusing NaN/Infinity and anything after it."""
    def no_constant(name):
        raise ValueError("non-JSON number %s" % name)
    doc, end = json.JSONDecoder(parse_constant=no_constant).raw_decode(text)
    if text[end:].strip():
        raise ValueError("text after the JSON document: %r" % text[end:end + 80])
    return doc


class DrawsFile:
    """draws.csv split as CmdStan's variational layout has it: the comment block, the header,
    the comment lines after the header, and the data rows (as strings, exactly as written)."""

    def __init__(self, text):
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        i = 0
        self.leading_comments = []
        while i < len(lines) and lines[i].startswith("#"):
            self.leading_comments.append(lines[i])
            i += 1
        self.header = lines[i].split(",") if i < len(lines) else []
        i += 1
        self.header_comments = []
        while i < len(lines) and lines[i].startswith("#"):
            self.header_comments.append(lines[i])
            i += 1
        self.rows = [l.split(",") for l in lines[i:]]
        self.stray_comments = [l for l in lines[i:] if l.startswith("#")]

    @property
    def mean_row(self):
        return self.rows[0]

    @property
    def draw_rows(self):
        return self.rows[1:]

    def column(self, name):
        j = self.header.index(name)
        return [float(r[j]) for r in self.draw_rows]

    @property
    def parameter_names(self):
        return self.header[3:]

    def settings(self):
        """The key=value pairs of the leading comment block."""
        out = {}
        for l in self.leading_comments:
            body = l.lstrip("#").strip()
            if "=" in body:
                k, v = body.split("=", 1)
                out[k.strip()] = v.strip()
        return out


def read_draws(path):
    with open(path, newline="") as f:
        return DrawsFile(f.read())


def read_elbo_csv(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, [row for row in reader]


def mean_sd(xs):
    n = len(xs)
    m = math.fsum(xs) / n
    return m, math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (n - 1))


def assert_same_posterior(test, a_doc, b_doc, mean_tol, sd_tol):
    """Two fits' summaries name the same parameters, and each mean of a is within mean_tol of b's
    posterior sd of b's, each sd within a relative sd_tol of b's."""
    a = {q["name"]: q for q in a_doc["parameters"]}
    b = {q["name"]: q for q in b_doc["parameters"]}
    test.assertEqual(sorted(a), sorted(b))
    for name, q in b.items():
        test.assertLess(abs(a[name]["mean"] - q["mean"]), mean_tol * q["sd"], (name, a[name], q))
        test.assertLess(abs(a[name]["sd"] / q["sd"] - 1), sd_tol, (name, a[name], q))


def write_synthetic_csv(path, n, d, seed, offset=0.0, scale=1.0):
    """A logistic-regression dataset x1..xd,y with known generating coefficients (stdlib random:
    these tests need data of a given shape, not a reference computed from it)."""
    rng = random.Random(seed)
    beta = [rng.gauss(0.0, 1.0) for _ in range(d)]
    with open(path, "w", newline="\n") as f:
        f.write(",".join("x%d" % (j + 1) for j in range(d)) + ",y\n")
        for _ in range(n):
            z = [rng.gauss(0.0, 1.0) for _ in range(d)]
            eta = sum(b * x for b, x in zip(beta, z))
            y = 1 if rng.random() < 1.0 / (1.0 + math.exp(-eta)) else 0
            f.write(",".join(repr(round(offset + scale * x, 4)) for x in z) + ",%d\n" % y)
    return path


def non_finite_tokens(text):
    """The words of `text` that spell a non-finite number (nan, inf, infinity, any case)."""
    words = text.replace(",", " ").replace(":", " ").replace("[", " ").replace("]", " ").split()
    bad = {"nan", "-nan", "+nan", "inf", "-inf", "+inf", "infinity", "-infinity", "+infinity"}
    return sorted({w for w in words if w.strip('"').lower() in bad})
