"""bayes-vi predict: per-row posterior predictive summaries recomputed independently from the fit's
draws.csv, held-out metrics against a hand computation, the training standardization applied to
new rows, and the mismatch errors."""
import csv
import io
import json
import math
import os
import unittest

from bvi_test import BinaryTestCase, SEED_CSV, SOURCE_DIR, logistic_config, read_csv_rows, run

SEED_CONFIG = os.path.join(SOURCE_DIR, "configs", "seed_logistic.json")


def sigmoid(z):
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def read_draws(path):
    with open(path) as f:
        rows = [l.strip() for l in f if not l.startswith("#")]
    header = rows[0].split(",")
    return [dict(zip(header, map(float, r.split(",")))) for r in rows[2:]]  # rows[1]: the mean


def quantile(values, q):  # numpy's default (linear), written out
    v = sorted(values)
    h = q * (len(v) - 1)
    lo = math.floor(h)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (h - lo) * (v[hi] - v[lo])


class Predict(BinaryTestCase):
    def fit(self, cfg, name="fit", extra=()):
        p = run(["fit", cfg, "--quiet", "--output", self.path(name)] + list(extra))
        self.assertEqual(p.returncode, 0, p.stderr)
        return self.path(name)

    def test_fitted_probabilities_of_the_seed_fit(self):
        fit = self.fit(SEED_CONFIG)
        p = run(["predict", SEED_CONFIG, "--fit", fit])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = read_csv_rows(p.stdout)
        with open(SEED_CSV) as f:
            data = list(csv.DictReader(f))
        self.assertEqual(len(got), len(data))
        draws = read_draws(fit + "/draws.csv")
        for i in (0, 17, 99):
            x = [float(data[i]["x%d" % j]) for j in range(1, 11)]
            probs = [sigmoid(sum(d["beta.%d" % j] * x[j - 1] for j in range(1, 11))) for d in draws]
            mean = sum(probs) / len(probs)
            sd = math.sqrt(sum((q - mean) ** 2 for q in probs) / (len(probs) - 1))
            self.assertAlmostEqual(float(got[i]["mean"]), mean, delta=1e-12)
            self.assertAlmostEqual(float(got[i]["sd"]), sd, delta=1e-10)
            self.assertAlmostEqual(float(got[i]["q05"]), quantile(probs, 0.05), delta=1e-12)
            self.assertAlmostEqual(float(got[i]["q95"]), quantile(probs, 0.95), delta=1e-12)
        self.assertIn("accuracy", p.stderr)

    def test_metrics_against_a_hand_computation(self):
        fit = self.fit(SEED_CONFIG)
        # Four rows: the draws give each row's probabilities; metrics from those by hand.
        with open(SEED_CSV) as f:
            lines = f.read().splitlines()
        small = self.write("small.csv", "\n".join(lines[:1] + lines[1:5]) + "\n")
        p = run(["predict", SEED_CONFIG, "--fit", fit, "--data", small, "--metrics", self.path("m.json"), "--draws", "200"])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path("m.json")) as f:
            m = json.load(f)
        draws = read_draws(fit + "/draws.csv")[:200]
        rows = list(csv.DictReader(io.StringIO("\n".join(lines[:5]))))
        pm, lpd, ys = [], [], []
        for r in rows:
            x = [float(r["x%d" % j]) for j in range(1, 11)]
            y = float(r["y"])
            probs = [sigmoid(sum(d["beta.%d" % j] * x[j - 1] for j in range(1, 11))) for d in draws]
            pm.append(sum(probs) / len(probs))
            lpd.append(math.log(sum(q if y == 1 else 1 - q for q in probs) / len(probs)))
            ys.append(y)
        self.assertEqual(m["rows"], 4)
        self.assertEqual(m["draws"], 200)
        self.assertAlmostEqual(m["mean_log_predictive_density"], sum(lpd) / 4, delta=1e-9)
        self.assertAlmostEqual(m["accuracy"], sum((q >= 0.5) == (y == 1) for q, y in zip(pm, ys)) / 4)
        self.assertAlmostEqual(m["brier"], sum((q - y) ** 2 for q, y in zip(pm, ys)) / 4, delta=1e-12)
        pos = [q for q, y in zip(pm, ys) if y == 1]
        neg = [q for q, y in zip(pm, ys) if y == 0]
        auc = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg) / (len(pos) * len(neg))
        self.assertAlmostEqual(m["roc_auc"], auc, delta=1e-12)

    def test_new_rows_use_the_training_standardization(self):
        cfg = self.write_config(logistic_config(SEED_CSV, prior_scale=2.5, intercept=True, standardize=True,
                                                inference={"output_draws": 300}))
        fit = self.fit(cfg)
        with open(fit + "/summary.json") as f:
            std = json.load(f)["data"]["standardization"]
        # New rows far from the training distribution; no response column.
        new = self.write("new.csv", "x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,extra\n" +
                         ",".join(["3"] * 10) + ",7\n" + ",".join(["-1"] * 10) + ",8\n")
        p = run(["predict", cfg, "--fit", fit, "--data", new])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = read_csv_rows(p.stdout)
        draws = read_draws(fit + "/draws.csv")
        for row, value in zip(got, (3.0, -1.0)):
            z = [(value - c) / s for c, s in zip(std["center"], std["scale"])]
            probs = [sigmoid(d["alpha"] + sum(d["beta.%d" % j] * z[j - 1] for j in range(1, 11))) for d in draws]
            self.assertAlmostEqual(float(row["mean"]), sum(probs) / len(probs), delta=1e-12)
        self.assertNotIn("accuracy", p.stderr)

    def test_mismatches(self):
        fit = self.fit(SEED_CONFIG)
        # A feature the fit was made with is missing from the new rows: 65.
        with open(SEED_CSV) as f:
            lines = f.read().splitlines()
        header = lines[0].replace("x3", "z3")
        bad = self.write("bad.csv", "\n".join([header] + lines[1:3]) + "\n")
        self.assert_error(run(["predict", SEED_CONFIG, "--fit", fit, "--data", bad]), 65, where=bad + ":1",
                          contains="'x3'")
        # The config's model has other parameters than the fit: 78.
        other = self.write_config(logistic_config(SEED_CSV, prior_scale=10, intercept=True), "other.json")
        self.assert_error(run(["predict", other, "--fit", fit]), 78, where="/model")
        # No fit there: 66.
        self.assert_error(run(["predict", SEED_CONFIG, "--fit", self.path("nothing")]), 66)
        # Metrics without a response column: 65.
        new = self.write("noy.csv", lines[0].replace(",y", "") + "\n" + ",".join(lines[1].split(",")[:-1]) + "\n")
        self.assert_error(run(["predict", SEED_CONFIG, "--fit", fit, "--data", new, "--metrics", self.path("m.json")]),
                          65, contains="metrics need it")


if __name__ == "__main__":
    unittest.main()
