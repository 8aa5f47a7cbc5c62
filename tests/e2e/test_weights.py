"""Row weights (/data/weights) end to end. The reference for a weighted fit is the same data with
each row repeated w times (a weight 0 drops the row): the log joint is the same function, so the
exact method's fixed point, its ELBO, `eval`'s values and gradients and `predict`'s metrics must
agree with the repeated rows' to rounding (1e-8 for the fits). Checked for a Poisson regression
with an exposure, a normal one, and a varying-intercept normal model (the sparse family); bad
weights (negative, inf, NaN, text) are exit 65 at FILE:LINE, a missing column exit 65 at FILE:1
as for trials, a weights column that is also a feature exit 78; threads and MPI ranks give the
same bits; `check`, the summary and the
metrics say the weights were used; loo and kfold refuse a weighted config (exit 78). Small data
(60 rows), so the whole file runs in a few CPU-seconds."""
import csv
import json
import os
import random
import shutil
import subprocess
import unittest

from bvi_test import BINARY, BinaryTestCase, read_csv_rows, run

MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
TIMING_KEYS = {"seconds", "threads", "ranks"}


def numbers(text):
    return {k: v for k, v in json.loads(text).items() if k not in TIMING_KEYS}

ROWS = 60


def make_rows(family, seed=3, groups=False, n=ROWS):
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        x1, x2 = rng.gauss(0, 1), rng.gauss(0, 1)
        g = "g%d" % (i % 5)
        w = rng.choice([0, 1, 1, 2, 3])
        if family == "poisson_log":
            lam = 2.0 * (0.5 + rng.random()) * 2.718281828 ** (0.3 * x1 - 0.2 * x2)
            y, extra = min(int(rng.expovariate(1 / lam)), 30), {"exposure": "%.3f" % (0.5 + rng.random())}
        elif family == "bernoulli_logit":
            y, extra = int(rng.random() < 1 / (1 + 2.718281828 ** -(0.8 * x1 - 0.5 * x2))), {}
        else:
            y, extra = round(1.0 + 0.7 * x1 - 0.4 * x2 + (0.5 if i % 5 < 2 else -0.3) + rng.gauss(0, 0.8), 4), {}
        row = {"x1": "%.4f" % x1, "x2": "%.4f" % x2, "y": y, "w": w, **extra}
        if groups:
            row["g"] = g
        rows.append(row)
    return rows


def write_rows(path, rows, weights=True):
    cols = [c for c in rows[0] if weights or c != "w"]
    with open(path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        wr.writeheader()
        for r in rows:
            wr.writerow(r)


def repeated(rows):
    return [r for r in rows for _ in range(int(r["w"]))]


def config(family, csv_path, weights=True, groups=False, **inference):
    priors = {"beta": {"normal": {"loc": 0, "scale": 2}}, "alpha": {"normal": {"loc": 0, "scale": 5}}}
    data = {"csv": csv_path, "response": "y"}
    if groups:
        del data["response"]  # the formula names it
        model = {"likelihood": family, "formula": "y ~ x1 + x2 + (1 | g)"}
        priors["sd_g"] = {"half_normal": {"scale": 1}}
    else:
        model = {"likelihood": family, "intercept": True}
        data["features"] = ["x1", "x2"]
    if family == "normal":
        priors["sigma"] = {"half_normal": {"scale": 2}}
    if family == "poisson_log":
        data["exposure"] = "exposure"
    if weights:
        data["weights"] = "w"
    model["priors"] = priors
    # Explicit priors: the defaults come from the data's statistics, which repetition changes.
    return {"data": data, "model": model, "inference": {"seed": 1, "tol_grad": 1e-11, **inference}}


class Weights(BinaryTestCase):
    def fit_pair(self, family, groups=False):
        rows = make_rows(family, groups=groups)
        weighted, dup = self.path("weighted.csv"), self.path("dup.csv")
        write_rows(weighted, rows)
        write_rows(dup, repeated(rows), weights=False)
        out = {}
        for name, cfg in (("weighted", config(family, weighted, groups=groups)),
                          ("dup", config(family, dup, weights=False, groups=groups))):
            p = run(["fit", self.write_config(cfg, name + ".json"), "--threads", "1", "--quiet",
                     "--output", self.path("fit_" + name)])
            self.assertEqual(p.returncode, 0, p.stderr)
            out[name] = json.loads(p.stdout)
        return rows, out["weighted"], out["dup"]

    def assert_same_fit(self, a, b, tol=1e-8):
        self.assertEqual([p["name"] for p in a["parameters"]], [p["name"] for p in b["parameters"]])
        for p, q in zip(a["parameters"], b["parameters"]):
            for k in ("mean", "sd"):
                self.assertLess(abs(p[k] - q[k]), tol * max(1.0, abs(q[k])), (p["name"], k, p[k], q[k]))
        self.assertLess(abs(a["elbo"] - b["elbo"]), 1e-7 * abs(b["elbo"]))

    def test_exact_poisson_fit_equals_repeated_rows_and_summary_says_weights(self):
        rows, w, d = self.fit_pair("poisson_log")
        self.assert_same_fit(w, d)
        self.assertEqual(w["data"]["weights"], "w")
        self.assertNotIn("weights", d["data"])
        self.assertEqual(w["rows"], ROWS)  # rows read, not the sum of the weights

    def test_exact_normal_fit_eval_and_predict_equal_repeated_rows(self):
        rows, w, d = self.fit_pair("normal")
        self.assert_same_fit(w, d)
        # eval with gradients at two points: the weighted log joint is the repeated rows' one.
        params = self.write("params.csv", "alpha,beta.1,beta.2,sigma\n0.9,0.6,-0.3,0.85\n1.2,0.1,0.2,1.4\n")
        ew = run(["eval", self.path("weighted.json"), "--params", params, "--grad"])
        ed = run(["eval", self.path("dup.json"), "--params", params, "--grad"])
        self.assertEqual(ew.returncode, 0, ew.stderr)
        for a, b in zip(read_csv_rows(ew.stdout), read_csv_rows(ed.stdout)):
            for k in a:
                self.assertLess(abs(float(a[k]) - float(b[k])), 1e-10 * max(1.0, abs(float(b[k]))), k)
        # and a central difference of the weighted value in beta.1
        h = 1e-5
        fd_params = self.write("fd.csv", "alpha,beta.1,beta.2,sigma\n0.9,%r,-0.3,0.85\n0.9,%r,-0.3,0.85\n"
                               % (0.6 + h, 0.6 - h))
        fd = read_csv_rows(run(["eval", self.path("weighted.json"), "--params", fd_params]).stdout)
        slope = (float(fd[0]["log_joint"]) - float(fd[1]["log_joint"])) / (2 * h)
        self.assertAlmostEqual(float(read_csv_rows(ew.stdout)[0]["grad.beta.1"]), slope, delta=1e-5 * abs(slope))
        # predict on the weighted file: weighted metrics, equal to the repeated rows' metrics.
        metrics, stderr = {}, {}
        for name in ("weighted", "dup"):
            p = run(["predict", self.path(name + ".json"), "--fit", self.path("fit_" + name),
                     "--metrics", self.path(name + "_metrics.json")])
            self.assertEqual(p.returncode, 0, p.stderr)
            stderr[name] = p.stderr
            with open(self.path(name + "_metrics.json")) as f:
                metrics[name] = json.load(f)
        self.assertTrue(metrics["weighted"]["weighted"])
        self.assertFalse(metrics["dup"]["weighted"])
        self.assertEqual(metrics["weighted"]["weight_sum"], sum(r["w"] for r in rows))
        self.assertIn("(weighted by w)", stderr["weighted"])
        for k in ("rmse", "mae"):
            self.assertLess(abs(metrics["weighted"][k] - metrics["dup"][k]), 1e-6, k)
        # the predictive densities come from each fit's own draws: equal fits, close draws
        self.assertLess(abs(metrics["weighted"]["mean_log_predictive_density"]
                            - metrics["dup"]["mean_log_predictive_density"]), 1e-6)

    def test_exact_multilevel_fit_equals_repeated_rows(self):
        rows, w, d = self.fit_pair("normal", groups=True)
        self.assert_same_fit(w, d)

    def test_binary_predict_metrics_weighted_like_repeated_rows(self):
        rows = make_rows("bernoulli_logit")
        write_rows(self.path("weighted.csv"), rows)
        write_rows(self.path("dup.csv"), repeated(rows), weights=False)
        cfg = config("bernoulli_logit", self.path("weighted.csv"))
        p = run(["fit", self.write_config(cfg, "w.json"), "--quiet", "--output", self.path("fit")])
        self.assertEqual(p.returncode, 0, p.stderr)
        # The same fit applied to both files: the weighted file's metrics are the repeated rows'.
        m = {}
        for name in ("weighted", "dup"):
            p = run(["predict", self.path("w.json"), "--fit", self.path("fit"), "--data", self.path(name + ".csv"),
                     "--metrics", self.path(name + ".metrics")])
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(self.path(name + ".metrics")) as f:
                m[name] = json.load(f)
        self.assertTrue(m["weighted"]["weighted"])
        for k in ("mean_log_predictive_density", "accuracy", "brier", "roc_auc"):
            self.assertAlmostEqual(m["weighted"][k], m["dup"][k], delta=1e-12, msg=k)

    def test_weighted_fits_give_the_same_bits_for_any_threads_and_ranks(self):
        # 3000 rows: several chunks, so threads and ranks really share them out.
        for family, inference in (("poisson_log", {}),
                                  ("bernoulli_logit", {"method": "monte_carlo", "max_iterations": 100,
                                                       "draws_per_step": 16})):
            with self.subTest(family=family):
                write_rows(self.path(family + ".csv"), make_rows(family, n=3000))
                cfg = config(family, self.path(family + ".csv"), **inference)
                if inference:
                    del cfg["inference"]["tol_grad"]
                path = self.write_config(cfg, family + ".json")
                outs = [run(["fit", path, "--threads", t, "--quiet"]) for t in ("1", "2")]
                if MPIRUN:
                    outs.append(subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", BINARY, "fit", path, "--quiet",
                                                "--threads", "1"], capture_output=True, text=True, timeout=120,
                                               env=MPI_ENV))
                for p in outs:
                    self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(numbers(outs[0].stdout), numbers(outs[1].stdout))
                self.assertEqual(numbers(outs[0].stdout), numbers(outs[-1].stdout))
                if MPIRUN:  # check's weight statistics cover the whole file under mpirun
                    check_two = subprocess.run([MPIRUN, "--oversubscribe", "-n", "3", BINARY, "check", path],
                                               capture_output=True, text=True, timeout=60, env=MPI_ENV).stdout
                    self.assertEqual(run(["check", path]).stdout, check_two)

    def test_check_reports_the_weights(self):
        rows = make_rows("normal")
        write_rows(self.path("weighted.csv"), rows)
        p = run(["check", self.write_config(config("normal", self.path("weighted.csv")))])
        self.assertEqual(p.returncode, 0, p.stderr)
        zeros = sum(1 for r in rows if r["w"] == 0)
        self.assertIn("weights     w: sum %d, min 0, max 3, %d of %d rows weigh 0" % (sum(r["w"] for r in rows), zeros,
                                                                                    ROWS), p.stdout)
        # never a feature: the default feature list leaves the column out
        cfg = config("normal", self.path("weighted.csv"))
        del cfg["data"]["features"]
        p = run(["check", self.write_config(cfg)])
        self.assertIn("features    x1 x2\n", p.stdout)

    def test_bad_weights_are_data_errors_at_their_line(self):
        rows = make_rows("normal")
        for bad, what in (("-1", "weight must be a finite number >= 0"), ("inf", None), ("abc", None), ("nan", None)):
            rows_bad = [dict(r) for r in rows]
            rows_bad[6]["w"] = bad
            write_rows(self.path("bad.csv"), rows_bad)
            p = run(["fit", self.write_config(config("normal", self.path("bad.csv")))])
            self.assert_error(p, 65, where=self.path("bad.csv") + ":8", contains=what)

    def test_missing_or_misused_weights_column(self):
        rows = make_rows("normal")
        write_rows(self.path("nw.csv"), rows, weights=False)
        p = run(["fit", self.write_config(config("normal", self.path("nw.csv")))])
        self.assert_error(p, 65, where=self.path("nw.csv") + ":1", contains="weights column 'w' is not in the header")
        write_rows(self.path("w.csv"), rows)
        cfg = config("normal", self.path("w.csv"))
        cfg["data"]["features"] = ["x1", "w"]
        self.assert_error(run(["fit", self.write_config(cfg)]), 78, where="/data/weights")
        cfg = config("normal", self.path("w.csv"))
        cfg["data"]["weights"] = 3
        self.assert_error(run(["fit", self.write_config(cfg)]), 78, where="/data/weights")

    def test_rows_that_all_weigh_zero_are_no_data(self):
        # A weight 0 leaves its row out, so a column of zeros leaves no data: fit, check and eval
        # refuse it as they refuse a file with no rows (exit 65, one line), instead of a fit that
        # returns the prior. Also when the only rows weighing more are dropped for a missing value.
        rows = make_rows("normal")
        for r in rows:
            r["w"] = 0
        write_rows(self.path("zero.csv"), rows)
        path = self.write_config(config("normal", self.path("zero.csv")))
        params = self.write("params.csv", "alpha,beta.1,beta.2,sigma\n0.9,0.6,-0.3,0.85\n")
        for args in (["fit", path, "--quiet"], ["check", path], ["eval", path, "--params", params]):
            with self.subTest(command=args[0]):
                self.assert_error(run(args), 65, where=self.path("zero.csv") + ":1",
                                  contains="every row weighs 0 (weights column 'w', 60 rows used)")
        rows[5]["w"], rows[5]["x1"] = 2, ""
        write_rows(self.path("zero_kept.csv"), rows)
        cfg = config("normal", self.path("zero_kept.csv"))
        cfg["data"]["missing"] = "drop"
        self.assert_error(run(["fit", self.write_config(cfg), "--quiet"]), 65, where=self.path("zero_kept.csv") + ":1",
                          contains="every row weighs 0 (weights column 'w', 59 rows used)")
        if MPIRUN:  # the count is collective: every rank refuses, however the rows are shared out
            p = subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", BINARY, "fit", path, "--quiet"],
                               capture_output=True, text=True, timeout=120, env=MPI_ENV)
            self.assertEqual(p.returncode, 65, p.stderr)
            self.assertIn("every row weighs 0", p.stderr)

    def test_predict_metrics_on_rows_that_all_weigh_zero_are_undefined(self):
        # New rows that all weigh 0 have no weighted mean: every metric is null in the JSON and n/a
        # in the report (as an AUC with one class was), never a 0 that reads as a perfect score.
        for family, keys in (("normal", ("mean_log_predictive_density", "rmse", "mae")),
                             ("bernoulli_logit", ("mean_log_predictive_density", "accuracy", "brier", "roc_auc"))):
            with self.subTest(family=family):
                rows = make_rows(family)
                write_rows(self.path(family + ".csv"), rows)
                cfg = self.write_config(config(family, self.path(family + ".csv")), family + ".json")
                p = run(["fit", cfg, "--quiet", "--output", self.path("fit_" + family)])
                self.assertEqual(p.returncode, 0, p.stderr)
                for r in rows:
                    r["w"] = 0
                write_rows(self.path(family + "_zero.csv"), rows)
                out = self.path(family + ".metrics")
                p = run(["predict", cfg, "--fit", self.path("fit_" + family), "--data", self.path(family + "_zero.csv"),
                         "--metrics", out])
                self.assertEqual(p.returncode, 0, p.stderr)
                with open(out) as f:
                    m = json.load(f)
                self.assertEqual(m["rows"], ROWS)
                self.assertEqual(m["weight_sum"], 0)
                for k in keys:
                    self.assertIsNone(m[k], k)
                self.assertNotIn("nan", p.stderr)
                self.assertIn("%d rows: mean log predictive density n/a" % ROWS, p.stderr)

    def test_loo_and_kfold_refuse_weights(self):
        rows = make_rows("normal")
        write_rows(self.path("w.csv"), rows)
        path = self.write_config(config("normal", self.path("w.csv")))
        p = run(["loo", path, "--fit", self.path("nofit")])
        self.assert_error(p, 78, where="/data/weights", contains="loo does not support row weights")
        p = run(["kfold", path, "--folds", "2", "--output", self.path("kf")])
        self.assert_error(p, 78, where="/data/weights", contains="kfold does not support row weights")


if __name__ == "__main__":
    unittest.main()
