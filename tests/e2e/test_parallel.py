"""Threads and MPI ranks give the same bits; a failing rank stops every rank with one message; a fit
stopped by SIGTERM resumes from its checkpoint to the same result as an uninterrupted run."""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import unittest

from bvi_test import BINARY, BinaryTestCase, SEED_CSV, logistic_config, run

MPIRUN = shutil.which("mpirun")
# Root needs Open MPI's consent; a 2-core machine needs --oversubscribe for 3 ranks.
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
TIMING_KEYS = {"seconds", "threads", "ranks"}


def mpirun(n, args, stdin=None, timeout=300):
    return subprocess.run([MPIRUN, "--oversubscribe", "-n", str(n), BINARY] + list(args), input=stdin,
                          capture_output=True, text=True, timeout=timeout, env=MPI_ENV)


def write_dataset(path, rows, features, seed, bad_line=None, bad_value="oops"):
    """A logistic dataset; with bad_line, that physical line (header = 1) holds a bad value."""
    rng = random.Random(seed)
    beta = [rng.gauss(0, 1) for _ in range(features)]
    lines = [",".join("x%d" % (j + 1) for j in range(features)) + ",y"]
    for i in range(rows):
        x = [rng.gauss(0, 1) for _ in range(features)]
        z = sum(a * b for a, b in zip(x, beta))
        y = 1 if rng.random() < 1 / (1 + pow(2.718281828459045, -z)) else 0
        lines.append(",".join("%.6f" % v for v in x) + ",%d" % y)
    if bad_line is not None:
        fields = lines[bad_line - 1].split(",")
        fields[1] = bad_value
        lines[bad_line - 1] = ",".join(fields)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def numbers(summary_text):
    s = json.loads(summary_text)
    return {k: v for k, v in s.items() if k not in TIMING_KEYS}


class Parallel(BinaryTestCase):
    def setUp(self):
        super().setUp()
        # 6000 rows: several chunks of rows, so threads and ranks really share the work.
        write_dataset(self.path("data.csv"), 6000, 6, seed=5)
        self.cfg = self.write_config(logistic_config(self.path("data.csv"), prior_scale=2.5, intercept=True,
                                                     inference={"max_iterations": 40, "output_draws": 200}))

    def fit(self, out, threads=1, ranks=1, extra=()):
        args = ["fit", self.cfg, "--quiet", "--threads", str(threads), "--output", self.path(out)] + list(extra)
        p = run(args) if ranks == 1 else mpirun(ranks, args)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        with open(self.path(out + "/draws.csv"), "rb") as f:
            return p.stdout, f.read()

    def test_threads_give_the_same_bits(self):
        ref_summary, ref_draws = self.fit("t1", threads=1)
        for t in (2, 4):
            summary, draws = self.fit("t%d" % t, threads=t)
            self.assertEqual(draws, ref_draws, "draws.csv differs with %d threads" % t)
            self.assertEqual(numbers(summary), numbers(ref_summary))

    @unittest.skipUnless(MPIRUN, "mpirun not installed")
    def test_ranks_give_the_same_bits(self):
        ref_summary, ref_draws = self.fit("r1")
        for ranks, threads in ((2, 1), (3, 1), (2, 2)):
            summary, draws = self.fit("r%d_%d" % (ranks, threads), threads=threads, ranks=ranks)
            self.assertEqual(draws, ref_draws, "draws.csv differs with %d ranks x %d threads" % (ranks, threads))
            self.assertEqual(numbers(summary), numbers(ref_summary))
            self.assertEqual(json.loads(summary)["ranks"], ranks)

    @unittest.skipUnless(MPIRUN, "mpirun not installed")
    def test_more_ranks_than_chunks(self):
        # The seed data is one chunk: ranks 1 and 2 hold no rows but take part in every collective.
        cfg = self.write_config(logistic_config(SEED_CSV, prior_scale=1.0, inference={"max_iterations": 30}),
                                "seed.json")
        a = run(["fit", cfg, "--quiet"])
        b = mpirun(3, ["fit", cfg, "--quiet"])
        self.assertEqual(b.returncode, 0, b.stderr[-2000:])
        self.assertEqual(numbers(b.stdout), numbers(a.stdout))

    @unittest.skipUnless(MPIRUN, "mpirun not installed")
    def test_standardization_is_global(self):
        cfg = self.write_config(logistic_config(self.path("data.csv"), prior_scale=2.5, standardize=True,
                                                inference={"max_iterations": 20, "output_draws": 100}), "std.json")
        a = run(["fit", cfg, "--quiet"])
        b = mpirun(3, ["fit", cfg, "--quiet", "--threads", "1"])
        self.assertEqual(b.returncode, 0, b.stderr[-2000:])
        self.assertEqual(numbers(b.stdout), numbers(a.stdout))

    @unittest.skipUnless(MPIRUN, "mpirun not installed")
    def test_eval_and_check_under_mpirun(self):
        params = "alpha,beta.1,beta.2,beta.3,beta.4,beta.5,beta.6\n0.1,0.2,-0.3,0.4,0,1,-1\n0,0,0,0,0,0,0\n"
        a = run(["eval", self.cfg, "--params", "-", "--grad"], stdin=params)
        b = mpirun(3, ["eval", self.cfg, "--params", "-", "--grad"], stdin=params)
        self.assertEqual(b.returncode, 0, b.stderr[-2000:])
        self.assertEqual(b.stdout, a.stdout)
        c = run(["check", self.cfg])
        d = mpirun(2, ["check", self.cfg])
        self.assertEqual(d.stdout, c.stdout)


class FailingRank(BinaryTestCase):
    @unittest.skipUnless(MPIRUN, "mpirun not installed")
    def test_a_bad_row_in_the_last_rank_stops_every_rank(self):
        # Line 5990 belongs to the last rank's rows. Text in a column of numbers is judged from the
        # whole column's counts, summed over the ranks; an infinity fails the last rank alone, which
        # stops the others.
        cases = [("oops", "column 'x2' holds numbers, but 1 of its 6000 values is not: 'oops'; fix these "
                          "cells (a missing value may be written NA or left empty, with /data/missing set to "
                          "\"drop\"), or list it in /data/categorical if it holds categories"),
                 ("inf", "column 'x2': non-finite value 'inf'")]
        for value, what in cases:
            write_dataset(self.path("bad.csv"), 6000, 4, seed=1, bad_line=5990, bad_value=value)
            cfg = self.write_config(logistic_config(self.path("bad.csv"), inference={"max_iterations": 5}))
            for ranks in (1, 2, 3):
                p = mpirun(ranks, ["fit", cfg, "--quiet"], timeout=120)
                self.assertEqual(p.returncode, 65, p.stderr[-2000:])
                ours = [l for l in p.stderr.splitlines() if l.startswith("bayes-vi:")]
                self.assertEqual(ours, ["bayes-vi: error: %s:5990: %s" % (self.path("bad.csv"), what)], p.stderr)
                self.assertEqual(p.stdout, "")

    @unittest.skipUnless(MPIRUN, "mpirun not installed")
    def test_a_missing_output_folder_on_rank_0_stops_every_rank(self):
        write_dataset(self.path("d.csv"), 3000, 3, seed=2)
        cfg = self.write_config(logistic_config(self.path("d.csv"), inference={"max_iterations": 5}))
        self.write("file", "x")
        p = mpirun(2, ["fit", cfg, "--quiet", "--output", self.path("file")], timeout=120)
        self.assertEqual(p.returncode, 73, p.stderr[-2000:])


class CheckpointResume(BinaryTestCase):
    def setUp(self):
        super().setUp()
        # Long enough that SIGTERM lands mid-fit (a checkpoint every 20 of 200 iterations, about
        # 10 ms each), short enough that the three fits of each test stay cheap.
        write_dataset(self.path("data.csv"), 8000, 20, seed=9)

    def config(self, optimizer):
        inference = {"max_iterations": 200, "eval_elbo": 10, "output_draws": 200, "optimizer": optimizer}
        if optimizer["name"] == "adam":
            inference["draws_per_step"] = 32
        return self.write_config(logistic_config(self.path("data.csv"), prior_scale=2.5, intercept=True,
                                                 inference=inference), optimizer["name"] + ".json")

    def interrupted_then_resumed(self, cfg, launcher):
        """Runs with a checkpoint, sends SIGTERM to the fit processes once a checkpoint exists,
        then resumes; returns (exit code of the first run, resumed stdout, resumed draws)."""
        state = self.path("run.ckpt")
        args = ["fit", cfg, "--quiet", "--output", self.path("b"), "--checkpoint", state, "--checkpoint-every", "20"]
        proc = launcher(args)
        deadline = time.time() + 120
        while not os.path.exists(state) and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        self.assertTrue(os.path.exists(state), "no checkpoint was written")
        # Signal the bayes-vi processes themselves, as a batch scheduler does at its time limit.
        # (mpirun's own command line matches too; it is left to notice its ranks ending.)
        for pid in subprocess.run(["pgrep", "-f", "bayes-vi fit " + cfg], capture_output=True,
                                  text=True).stdout.split():
            if int(pid) == proc.pid and launcher != self.local:
                continue
            try:
                os.kill(int(pid), signal.SIGTERM)
            except ProcessLookupError:
                pass
        out, err = proc.communicate(timeout=120)
        first_rc = proc.returncode
        if first_rc == 143:
            ours = [l for l in err.splitlines() if l.startswith("bayes-vi:")]
            self.assertEqual(len(ours), 1, err)
            self.assertIn("stopped by SIGTERM after iteration", ours[0])
            self.assertIn("--resume " + state, ours[0])
        with open(state) as f:
            stopped_at = json.load(f)["iteration"]
        resumed = launcher(["fit", cfg, "--quiet", "--output", self.path("b"), "--resume", state])
        out, err = resumed.communicate(timeout=300)
        self.assertEqual(resumed.returncode, 0, err[-2000:])
        with open(self.path("b/draws.csv"), "rb") as f:
            return first_rc, stopped_at, out, f.read()

    def check(self, optimizer, launcher):
        cfg = self.config(optimizer)
        whole = run(["fit", cfg, "--quiet", "--output", self.path("a")])
        self.assertEqual(whole.returncode, 0, whole.stderr)
        rc, stopped_at, out, draws = self.interrupted_then_resumed(cfg, launcher)
        self.assertEqual(rc, 143, "the run must end with 143 after SIGTERM (it finished before the signal?)")
        self.assertLess(stopped_at, 200)
        with open(self.path("a/draws.csv"), "rb") as f:
            self.assertEqual(draws, f.read(), "resumed draws differ from the uninterrupted run's")
        self.assertEqual(numbers(out), numbers(whole.stdout))

    def local(self, args):
        return subprocess.Popen([BINARY] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def ranks(self, args):
        return subprocess.Popen([MPIRUN, "--oversubscribe", "-n", "2", BINARY] + args, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=MPI_ENV)

    def test_sigterm_then_resume_natural(self):
        self.check({"name": "natural"}, self.local)

    def test_sigterm_then_resume_adam(self):
        self.check({"name": "adam", "learning_rate": 0.02}, self.local)

    @unittest.skipUnless(MPIRUN, "mpirun not installed")
    def test_sigterm_then_resume_under_mpirun(self):
        self.check({"name": "adam", "learning_rate": 0.02}, self.ranks)

    def test_a_checkpoint_of_another_config_is_refused(self):
        cfg = self.config({"name": "natural"})
        state = self.path("s.ckpt")
        p = run(["fit", cfg, "--quiet", "--checkpoint", state, "--checkpoint-every", "5", "--seed", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        q = run(["fit", cfg, "--quiet", "--resume", state, "--seed", "2"])
        self.assert_error(q, 78, where=state, contains="another config")
        self.write("junk.ckpt", "{}")
        self.assert_error(run(["fit", cfg, "--quiet", "--resume", self.path("junk.ckpt")]), 78,
                          where=self.path("junk.ckpt"))
        self.assert_error(run(["fit", cfg, "--quiet", "--resume", self.path("none.ckpt")]), 66,
                          where=self.path("none.ckpt"))

    def test_sigterm_without_a_checkpoint_exits_143_and_writes_nothing(self):
        cfg = self.config({"name": "adam", "learning_rate": 0.02})
        proc = self.local(["fit", cfg, "--output", self.path("c")])
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        if proc.returncode == 0:
            self.skipTest("the fit finished before the signal")
        self.assertEqual(proc.returncode, 143, err)
        self.assertIn("nothing was written", err)
        self.assertFalse(os.path.exists(self.path("c/summary.json")))
        self.assertEqual(out, "")


if __name__ == "__main__":
    unittest.main()
