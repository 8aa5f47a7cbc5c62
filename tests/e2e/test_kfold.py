#!/usr/bin/env python3
"""bayes-vi kfold: K-fold and leave-group-out cross-validation by refitting.

The held-out log predictive densities are recomputed by hand from each fold's draws.csv with
numpy/scipy (log mean_s p(y_i | theta_s), scipy.stats densities), elpd_kfold, its se and p_kfold
from them as R's loo computes them (sum; sqrt(n) sd; lpd of the full fit - elpd_kfold). The
partition is checked for what it must be (every row once, sizes within one; with --group every
level in one fold), reproducible and resumable; a folder of another model or data is refused; a
--group that is the response or has nearly one level per row is refused; a signal stops the run
with one line; a second run in the same folder stops at once; an error in a fold names it;
compare takes kfold documents."""
import json
import os
import shutil
import signal
import subprocess
import time
import unittest

import numpy as np
from scipy import special, stats

import likelihood_models as lm
from bvi_test import BINARY, BinaryTestCase, run

FEATURES = ["x1", "x2", "x3"]


def read_draws(path):
    with open(path) as f:
        lines = [l.strip() for l in f if not l.startswith("#")]
    header = lines[0].split(",")
    values = np.array([[float(v) for v in l.split(",")] for l in lines[2:]])  # lines[1]: the mean
    return {h: values[:, j] for j, h in enumerate(header)}


def poisson_lpd(draws, cols, rows):
    """log mean_s Poisson(y_i | exposure_i exp(alpha_s + x_i . beta_s + offset_i)) per row."""
    beta = np.column_stack([draws["beta.%d" % (j + 1)] for j in range(len(FEATURES))])
    x = np.column_stack([cols[f][rows] for f in FEATURES])
    eta = draws["alpha"][:, None] + beta @ x.T + cols["offset"][rows] + np.log(cols["exposure"][rows])
    lp = stats.poisson.logpmf(cols["y"][rows][None, :], np.exp(eta))
    return special.logsumexp(lp, axis=0) - np.log(lp.shape[0])


def read_folds(path):
    a = np.loadtxt(path, delimiter=",", skiprows=1, dtype=int, ndmin=2)
    return a[:, 1] - 1  # 0-based fold of each row


class Kfold(BinaryTestCase):
    def poisson(self, rows=120):
        cols = lm.simulate("poisson_log", rows, 0.3, [0.7, -0.4, 0.2], seed=51)
        lm.write_csv(self.path("d.csv"), cols)
        cfg = self.write_config(lm.config("poisson_log", self.path("d.csv"), FEATURES,
                                          inference={"seed": 9, "output_draws": 500}))
        return cfg, cols

    def test_against_a_hand_computation(self):
        cfg, cols = self.poisson()
        out = self.path("kf")
        p = run(["kfold", cfg, "--folds", "4", "--output", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        with open(os.path.join(out, "kfold.json")) as f:
            self.assertEqual(json.load(f), doc)
        fold = read_folds(os.path.join(out, "folds.csv"))
        n = len(cols["y"])
        self.assertEqual(sorted(np.bincount(fold, minlength=4)), [30, 30, 30, 30])
        elpd = np.full(n, np.nan)
        for k in range(4):
            rows = np.flatnonzero(fold == k)
            elpd[rows] = poisson_lpd(read_draws(os.path.join(out, "fold_%d" % (k + 1), "fit", "draws.csv")),
                                     cols, rows)
            # The fold's fit saw the other rows only.
            with open(os.path.join(out, "fold_%d" % (k + 1), "train.csv")) as f:
                self.assertEqual(sum(1 for _ in f) - 1, n - len(rows))
        lpd = poisson_lpd(read_draws(os.path.join(out, "full", "fit", "draws.csv")), cols, np.arange(n))
        self.assertAlmostEqual(doc["elpd_kfold"], elpd.sum(), delta=1e-9 * abs(elpd.sum()))
        self.assertAlmostEqual(doc["se_elpd_kfold"], np.sqrt(n) * np.std(elpd, ddof=1), delta=1e-8)
        self.assertAlmostEqual(doc["p_kfold"], lpd.sum() - elpd.sum(), delta=1e-8)
        self.assertAlmostEqual(doc["se_p_kfold"], np.sqrt(n) * np.std(lpd - elpd, ddof=1), delta=1e-8)
        self.assertAlmostEqual(doc["kfoldic"], -2 * elpd.sum(), delta=1e-8)
        self.assertEqual((doc["rows"], doc["folds"], doc["method"]), (n, 4, "kfold"))
        # The fingerprints of the full data's fit: compare pairs kfold's rows with a fit's by them.
        with open(os.path.join(out, "full", "fit", "summary.json")) as f:
            data = json.load(f)["data"]
        self.assertEqual((doc["response_hash"], doc["row_hash"]), (data["response_hash"], data["row_hash"]))
        pw = np.loadtxt(doc["pointwise_file"], delimiter=",", skiprows=1)
        np.testing.assert_allclose(pw[:, 1], elpd, rtol=1e-12)
        np.testing.assert_allclose(pw[:, 2], lpd - elpd, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(pw[:, 4], fold + 1)
        # Held-out rows predict worse than the rows a fit saw.
        self.assertGreater(doc["p_kfold"], 0)

    def test_reproducible_and_resumable(self):
        cfg, _ = self.poisson()
        a, b, c = self.path("a"), self.path("b"), self.path("c")
        pa = run(["kfold", cfg, "--folds", "3", "--output", a])
        pb = run(["kfold", cfg, "--folds", "3", "--output", b, "--threads", "2"])
        self.assertEqual(pa.returncode, 0, pa.stderr)
        strip = lambda s: {k: v for k, v in json.loads(s).items() if k != "pointwise_file"}
        self.assertEqual(strip(pa.stdout), strip(pb.stdout))
        pc = run(["kfold", cfg, "--folds", "3", "--output", c, "--seed", "77"])
        self.assertEqual(pc.returncode, 0, pc.stderr)
        self.assertFalse(np.array_equal(read_folds(a + "/folds.csv"), read_folds(c + "/folds.csv")))
        # A fold lost in a stopped run is redone; the others are not.
        shutil.rmtree(os.path.join(a, "fold_2"))
        kept = os.stat(os.path.join(a, "fold_1", "fit", "summary.json")).st_mtime_ns
        p = run(["kfold", cfg, "--folds", "3", "--output", a])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, pa.stdout)
        self.assertEqual(os.stat(os.path.join(a, "fold_1", "fit", "summary.json")).st_mtime_ns, kept)
        # Another partition in the same folder is refused.
        self.assert_error(run(["kfold", cfg, "--folds", "4", "--output", a]), 73, contains="another run")

    def test_a_folder_of_another_model_or_data_is_refused(self):
        # The fold fits are reused on a resume: a folder made with another config or data must be
        # refused (exit 73, one line naming what differs), not mixed with a new fit of all rows.
        cfg, cols = self.poisson(rows=40)
        out = self.path("kf")
        first = run(["kfold", cfg, "--folds", "3", "--output", out])
        self.assertEqual(first.returncode, 0, first.stderr)
        with open(cfg) as f:
            base = json.load(f)

        def variant(name, edit):
            c = json.loads(json.dumps(base))
            edit(c)
            return self.write_config(c, name)

        def scale(c):
            c["model"]["priors"]["beta"]["normal"]["scale"] = 0.5

        def features(c):
            c["data"]["features"] = ["x1", "x2"]

        def draws(c):
            c["inference"]["output_draws"] = 400

        def response(c):  # another count column as the response
            c["data"]["response"], c["data"]["features"] = "x3", ["x1", "x2"]

        other = dict(cols, x3=np.round(np.abs(cols["x3"]) * 3))
        lm.write_csv(self.path("d3.csv"), other)
        for name, edit, what in [("prior.json", scale, "/model/priors/beta/normal/scale"),
                                 ("features.json", features, "/data/features"),
                                 ("draws.json", draws, "/inference/output_draws")]:
            self.assert_error(run(["kfold", variant(name, edit), "--folds", "3", "--output", out]), 73,
                              where=out, contains="another model or data (" + what)
        flipped = variant("response.json", lambda c: (response(c), c["data"].update(csv=self.path("d3.csv"))))
        self.assert_error(run(["kfold", flipped, "--folds", "3", "--output", out]), 73, where=out,
                          contains="/data/response")
        # One x value changed in the data file (same rows, same partition): its bytes differ.
        changed = dict(cols)
        changed["x1"] = cols["x1"].copy()
        changed["x1"][7] += 0.25
        lm.write_csv(self.path("d2.csv"), changed)
        data2 = variant("data.json", lambda c: c["data"].update(csv=self.path("d2.csv")))
        self.assert_error(run(["kfold", data2, "--folds", "3", "--output", out]), 73, where=out,
                          contains="the data file")
        # Nothing in the folder was touched, and the same config and data still resume (the data
        # file's path is not what matters, its bytes are).
        with open(os.path.join(out, "kfold.json")) as f:
            self.assertEqual(json.load(f), json.loads(first.stdout))
        shutil.copy(self.path("d.csv"), self.path("copy.csv"))
        same = variant("same.json", lambda c: c["data"].update(csv=self.path("copy.csv")))
        shutil.rmtree(os.path.join(out, "fold_3"))
        p = run(["kfold", same, "--folds", "3", "--output", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        strip = lambda s: {k: v for k, v in json.loads(s).items() if k != "config"}
        self.assertEqual(strip(p.stdout), strip(first.stdout))

    def test_a_folder_from_before_the_run_record_resumes_only_unchanged(self):
        # A folder an earlier version made has folds.csv but no run.json: it is checked against its
        # folds' own configs and records, and adopted when they agree.
        cfg, cols = self.poisson(rows=40)
        out = self.path("kf")
        first = run(["kfold", cfg, "--folds", "3", "--output", out])
        self.assertEqual(first.returncode, 0, first.stderr)
        if os.path.exists(os.path.join(out, "run.json")):  # absent before the record existed
            os.remove(os.path.join(out, "run.json"))
        with open(cfg) as f:
            c = json.load(f)
        c["model"]["priors"]["beta"]["normal"]["scale"] = 0.5
        self.assert_error(run(["kfold", self.write_config(c, "prior.json"), "--folds", "3", "--output", out]), 73,
                          where=out, contains="another model or data")
        changed = dict(cols)
        changed["x2"] = cols["x2"].copy()
        changed["x2"][3] -= 1
        lm.write_csv(self.path("d.csv"), changed)
        self.assert_error(run(["kfold", cfg, "--folds", "3", "--output", out]), 73, where=out,
                          contains="another model or data")
        lm.write_csv(self.path("d.csv"), cols)
        self.assertFalse(os.path.exists(os.path.join(out, "run.json")))
        shutil.rmtree(os.path.join(out, "fold_2"))
        p = run(["kfold", cfg, "--folds", "3", "--output", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, first.stdout)
        self.assertTrue(os.path.exists(os.path.join(out, "run.json")))

    def test_a_second_run_in_the_same_folder_stops_at_once(self):
        # A kfold whose fold fits run until stopped holds the folder: a second one is exit 73,
        # naming the first, and writes nothing there.
        cfg, _ = self.poisson()
        long_cfg = lm.config("poisson_log", self.path("d.csv"), FEATURES,
                             inference={"seed": 9, "output_draws": 100, "method": "monte_carlo",
                                        "optimizer": {"name": "sgd", "learning_rate": 0.001},
                                        "max_iterations": 10 ** 8, "tol_rel_obj": None})
        out = self.path("kf")
        first = subprocess.Popen([BINARY, "kfold", self.write_config(long_cfg, "long.json"), "--folds", "2",
                                  "--output", out, "--threads", "1"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: first.poll() is None and (first.kill(), first.wait()))
        log = os.path.join(out, "fold_1", "fit.log")
        deadline = time.time() + 60
        while not os.path.exists(log) and time.time() < deadline:
            time.sleep(0.02)
        self.assertIsNone(first.poll(), "the first kfold ended early")
        before = sorted(os.listdir(out))
        second = run(["kfold", cfg, "--folds", "2", "--output", out])
        self.assert_error(second, 73, where=out, contains="pid %d" % first.pid)
        self.assertEqual(sorted(os.listdir(out)), before)
        first.send_signal(signal.SIGTERM)
        self.assertEqual(first.wait(timeout=120), 143)

    def test_a_signal_stops_the_run_with_one_line_and_it_resumes(self):
        # Fits long enough (about a second each) that the signal lands while one runs.
        cols = lm.simulate("poisson_log", 3000, 0.3, [0.7, -0.4, 0.2], seed=51)
        lm.write_csv(self.path("d.csv"), cols)
        cfg = self.write_config(lm.config("poisson_log", self.path("d.csv"), FEATURES,
                                          inference={"seed": 9, "output_draws": 200, "method": "monte_carlo",
                                                     "optimizer": {"name": "adam", "learning_rate": 0.02},
                                                     "max_iterations": 1500, "tol_rel_obj": None}))
        whole = run(["kfold", cfg, "--folds", "2", "--output", self.path("whole"), "--threads", "1"])
        self.assertEqual(whole.returncode, 0, whole.stderr)
        for sig, code, name in [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "SIGINT")]:
            out = self.path("kf_" + name)
            args = ["kfold", cfg, "--folds", "2", "--output", out, "--threads", "1"]
            proc = subprocess.Popen([BINARY] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.addCleanup(lambda q=proc: q.poll() is None and q.kill())
            log = os.path.join(out, "fold_1", "fit.log")
            deadline = time.time() + 60
            while not os.path.exists(log) and time.time() < deadline:
                time.sleep(0.02)
            time.sleep(0.3)
            proc.send_signal(sig)  # to kfold alone, as `kill PID` sends it: kfold stops its fit
            stdout, stderr = proc.communicate(timeout=120)
            self.assertEqual(proc.returncode, code, stderr)
            lines = [l for l in stderr.splitlines() if l.strip()]
            self.assertEqual(len(lines), 1, stderr)
            self.assertTrue(lines[0].startswith("bayes-vi: error: signal: stopped by " + name), lines[0])
            self.assertIn("run the same command again", lines[0])
            self.assertEqual(stdout, "")
            self.assertFalse(os.path.exists(os.path.join(out, "kfold.json")))
            # The same command resumes (no fit left running in the folder) to the uninterrupted result.
            p = run(args)
            self.assertEqual(p.returncode, 0, p.stderr)
            strip = lambda s: {k: v for k, v in json.loads(s).items() if k != "pointwise_file"}
            self.assertEqual(strip(p.stdout), strip(whole.stdout))
            with open(os.path.join(out, "pointwise.csv"), "rb") as f, \
                    open(self.path("whole/pointwise.csv"), "rb") as g:
                self.assertEqual(f.read(), g.read())

    def test_leave_group_out(self):
        cols = lm.simulate("normal", 90, 0.3, [0.7, -0.4, 0.2], seed=52)
        cols["g"] = np.array([float(i % 6) for i in range(90)])
        lm.write_csv(self.path("d.csv"), cols)
        cfg = self.write_config({"data": {"csv": self.path("d.csv")},
                                 "model": {"likelihood": "normal", "formula": "y ~ x1 + x2 + x3 + (1 | g)"},
                                 "inference": {"seed": 3}})
        p = run(["kfold", cfg, "--group", "g", "--output", self.path("lgo")])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual((doc["folds"], doc["group"], doc["rows"]), (6, "g", 90))
        fold = read_folds(self.path("lgo/folds.csv"))
        g = cols["g"].astype(int)
        for level in range(6):  # a level is all in one fold, and each fold holds one level
            self.assertEqual(len(set(fold[g == level])), 1)
        self.assertEqual(len(set(fold)), 6)
        p = run(["kfold", cfg, "--group", "g", "--folds", "3", "--output", self.path("lgo3")])
        self.assertEqual(p.returncode, 0, p.stderr)
        fold = read_folds(self.path("lgo3/folds.csv"))
        self.assertEqual(sorted(np.bincount(fold)), [30, 30, 30])
        for level in range(6):
            self.assertEqual(len(set(fold[g == level])), 1)

    def test_compare_takes_kfold_documents(self):
        cfg, cols = self.poisson()
        p = run(["kfold", cfg, "--folds", "3", "--output", self.path("full")])
        self.assertEqual(p.returncode, 0, p.stderr)
        small = lm.config("poisson_log", self.path("d.csv"), ["x1"], inference={"seed": 9, "output_draws": 500})
        cfg2 = self.write_config(small, "small.json")
        p = run(["kfold", cfg2, "--folds", "3", "--output", self.path("small")])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["compare", self.path("full/kfold.json"), self.path("small/kfold.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        table = json.loads(p.stdout)
        a = np.loadtxt(self.path("full/pointwise.csv"), delimiter=",", skiprows=1)[:, 1]
        b = np.loadtxt(self.path("small/pointwise.csv"), delimiter=",", skiprows=1)[:, 1]
        best, other = (a, b) if a.sum() >= b.sum() else (b, a)
        diff = other - best
        diffs = sorted(abs(m["elpd_diff"]) for m in table["models"])
        self.assertAlmostEqual(diffs[-1], abs(diff.sum()), delta=1e-8)
        ses = sorted(m["se_diff"] for m in table["models"])
        self.assertAlmostEqual(ses[-1], np.sqrt(len(diff)) * np.std(diff, ddof=1), delta=1e-8)
        self.assertNotIn("warning", p.stderr)
        # Another K: compared, with a warning (R's "Not all kfold objects have the same K").
        p = run(["kfold", cfg2, "--folds", "4", "--output", self.path("small4")])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run(["compare", self.path("full/kfold.json"), self.path("small4/kfold.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        warnings = [l for l in p.stderr.splitlines() if l.startswith("bayes-vi: warning:")]
        self.assertEqual(len(warnings), 1, p.stderr)
        self.assertIn("different numbers of folds", warnings[0])

    def test_bad_requests(self):
        cfg, _ = self.poisson(rows=20)
        out = self.path("x")
        self.assert_error(run(["kfold", cfg, "--output", out]), 64)  # no --folds, no --group
        self.assert_error(run(["kfold", cfg, "--folds", "1", "--output", out]), 64)
        self.assert_error(run(["kfold", cfg, "--folds", "21", "--output", out]), 64, contains="20 rows")
        self.assert_error(run(["kfold", cfg, "--group", "nope", "--output", out]), 65, contains="nope")
        # The response as the group (each fold would train on other responses only), and a column
        # with a level per row (leave-one-out in disguise) are refused.
        self.assert_error(run(["kfold", cfg, "--group", "y", "--output", out]), 65, contains="'y' is the response")
        self.assert_error(run(["kfold", cfg, "--group", "x1", "--output", out]), 65,
                          contains="20 levels in 20 rows")
        self.assertFalse(os.path.exists(os.path.join(out, "folds.csv")))
        self.write("file", "")
        self.assert_error(run(["kfold", cfg, "--folds", "2", "--output", self.path("file/sub")]), 73)
        self.assert_error(run(["kfold", self.path("none.json"), "--folds", "2", "--output", out]), 66)

    def test_an_error_in_a_fold_names_it(self):
        # Level "z" of the categorical c is in one row only: the fold that holds it out has a
        # fit that never saw it, and predicting it is refused.
        rows = ["x1,c,y"] + ["%r,%s,%d" % (0.1 * i, "ab"[i % 2], i % 2) for i in range(29)] + ["0.5,z,1"]
        self.write("d.csv", "\n".join(rows) + "\n")
        cfg = self.write_config({"data": {"csv": self.path("d.csv")},
                                 "model": {"likelihood": "bernoulli_logit", "formula": "y ~ x1 + c"},
                                 "inference": {"seed": 3}})
        p = run(["kfold", cfg, "--folds", "3", "--output", self.path("e")])
        fold = read_folds(self.path("e/folds.csv"))[29] + 1
        self.assert_error(p, 65, where="fold %d of 3" % fold)

    @unittest.skipUnless(shutil.which("mpirun"), "mpirun not installed")
    def test_mpi_ranks_share_the_folds_and_print_the_same_bytes(self):
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1")

        def mpirun(n, args):
            return subprocess.run(["mpirun", "--oversubscribe", "-n", str(n), BINARY] + args,
                                  capture_output=True, text=True, timeout=600, env=env)

        cfg, _ = self.poisson()
        serial = self.path("serial")
        p = run(["kfold", cfg, "--folds", "3", "--output", serial, "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        strip = lambda s: {k: v for k, v in json.loads(s).items() if k != "pointwise_file"}

        def read(path):
            with open(path, "rb") as f:
                return f.read()

        for n in (2, 3):
            out = self.path("mpi%d" % n)
            q = mpirun(n, ["kfold", cfg, "--folds", "3", "--output", out, "--threads", "1"])
            self.assertEqual(q.returncode, 0, q.stderr)
            self.assertEqual(strip(q.stdout), strip(p.stdout))  # one document: the root's
            self.assertEqual(read(out + "/pointwise.csv"), read(serial + "/pointwise.csv"))
            for k in (1, 2, 3):
                self.assertEqual(read(out + "/fold_%d/values.csv" % k), read(serial + "/fold_%d/values.csv" % k))
        # An error in a fold under mpirun is that fold's error, reported once.
        rows = ["x1,c,y"] + ["%r,%s,%d" % (0.1 * i, "ab"[i % 2], i % 2) for i in range(29)] + ["0.5,z,1"]
        self.write("e.csv", "\n".join(rows) + "\n")
        bad = self.write_config({"data": {"csv": self.path("e.csv")},
                                 "model": {"likelihood": "bernoulli_logit", "formula": "y ~ x1 + c"},
                                 "inference": {"seed": 3}}, name="bad.json")
        q = mpirun(2, ["kfold", bad, "--folds", "3", "--output", self.path("e")])
        fold = read_folds(self.path("e/folds.csv"))[29] + 1
        self.assertEqual(q.returncode, 65, q.stderr)
        self.assertEqual(q.stderr.count("fold %d of 3" % fold), 1, q.stderr)


if __name__ == "__main__":
    unittest.main()
