"""scripts/slurm/fit.sbatch without Slurm: the script runs under bash with shim `srun` (drops its
options, execs the command) and `scontrol` (records its arguments) first on PATH, and the SLURM_*
variables it reads set. A first attempt stopped by SIGTERM requeues the job and exits 0; the next
attempt resumes from the checkpoint to the same bits as an uninterrupted fit; an error does not
requeue."""
import json
import os
import signal
import subprocess
import time
import unittest

from bvi_test import BINARY, SOURCE_DIR, BinaryTestCase, logistic_config, run
from test_parallel import numbers, write_dataset

SCRIPT = os.path.join(SOURCE_DIR, "scripts", "slurm", "fit.sbatch")

SRUN = """#!/bin/bash
# srun's stand-in: drop srun's own options, record the command, run it in this process (as
# srun's task).
while [[ $# -gt 0 && $1 == -* ]]; do shift; done
echo "$*" >> "$SRUN_LOG"
exec "$@"
"""

SCONTROL = """#!/bin/bash
echo "$*" >> "$SCONTROL_LOG"
"""


class SlurmScript(BinaryTestCase):
    def setUp(self):
        super().setUp()
        bin_dir = self.path("bin")
        os.makedirs(bin_dir)
        for name, text in (("srun", SRUN), ("scontrol", SCONTROL)):
            with open(os.path.join(bin_dir, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(bin_dir, name), 0o755)
        self.scontrol_log = self.path("scontrol.log")
        self.srun_log = self.path("srun.log")
        self.env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), BAYES_VI=BINARY,
                        SCONTROL_LOG=self.scontrol_log, SRUN_LOG=self.srun_log, SLURM_JOB_ID="4242", SLURM_CPUS_PER_TASK="2",
                        SLURM_RESTART_COUNT="0")
        # Long enough (a few seconds) that the signal lands mid-fit after the first checkpoint
        # (the script checkpoints every 50 iterations).
        write_dataset(self.path("data.csv"), 20000, 20, seed=9)
        self.cfg = self.write_config(logistic_config(
            self.path("data.csv"), prior_scale=2.5, intercept=True,
            inference={"max_iterations": 600, "eval_elbo": 50, "output_draws": 200, "draws_per_step": 32,
                       "optimizer": {"name": "adam", "learning_rate": 0.02}}))
        self.out = self.path("out")
        self.checkpoint = os.path.join(self.out, "run.ckpt")

    def start(self, cfg=None, restart=0):
        env = dict(self.env, SLURM_RESTART_COUNT=str(restart))
        return subprocess.Popen(["bash", SCRIPT, cfg or self.cfg, self.out], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)

    @staticmethod
    def lines(path):
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return f.read().splitlines()

    def requeues(self):
        return self.lines(self.scontrol_log)

    def test_sigterm_requeues_then_the_next_attempt_resumes_to_the_same_bits(self):
        whole = run(["fit", self.cfg, "--quiet", "--threads", "2", "--output", self.path("whole")])
        self.assertEqual(whole.returncode, 0, whole.stderr)

        # Attempt 1: the time-limit signal arrives once the first checkpoint is on disk. Slurm
        # signals the tasks, not the batch script: the task is srun's child, which the shim
        # replaced by bayes-vi.
        first = self.start()
        deadline = time.time() + 60
        while not os.path.exists(self.checkpoint) and time.time() < deadline and first.poll() is None:
            time.sleep(0.02)
        self.assertTrue(os.path.exists(self.checkpoint), "no checkpoint was written")
        tasks = subprocess.run(["pgrep", "-P", str(first.pid)], capture_output=True, text=True).stdout.split()
        self.assertEqual(len(tasks), 1, "expected one bayes-vi task under the script")
        os.kill(int(tasks[0]), signal.SIGTERM)
        out, err = first.communicate(timeout=60)
        self.assertEqual(first.returncode, 0, err)
        self.assertEqual(self.requeues(), ["requeue 4242"], err)
        self.assertIn("stopped by SIGTERM after iteration", err)
        self.assertIn("requeueing", err)
        with open(self.checkpoint) as f:
            self.assertLess(json.load(f)["iteration"], 600, "the fit finished before the signal")
        self.assertFalse(os.path.exists(os.path.join(self.out, "stdout.json")))
        self.assertFalse(os.path.exists(os.path.join(self.out, "summary.json")))

        # Attempt 2 (the requeued job): resumes, finishes, does not requeue again.
        second = self.start(restart=1)
        out, err = second.communicate(timeout=120)
        self.assertEqual(second.returncode, 0, err)
        commands = self.lines(self.srun_log)
        self.assertEqual(len(commands), 2, commands)
        self.assertNotIn("--resume", commands[0])
        self.assertTrue(commands[1].endswith("--resume " + self.checkpoint), commands[1])
        self.assertEqual(self.requeues(), ["requeue 4242"])
        with open(os.path.join(self.out, "draws.csv"), "rb") as a, open(self.path("whole/draws.csv"), "rb") as b:
            self.assertEqual(a.read(), b.read(), "resumed draws differ from the uninterrupted fit's")
        with open(os.path.join(self.out, "stdout.json")) as f:
            stdout_json = f.read()
        with open(os.path.join(self.out, "summary.json")) as f:
            self.assertEqual(stdout_json, f.read())
        self.assertEqual(numbers(stdout_json), numbers(whole.stdout))
        self.assertFalse(os.path.exists(self.checkpoint), "a finished job leaves no checkpoint to resume")

    def test_a_config_error_exits_78_without_requeue(self):
        cfg = logistic_config(self.path("data.csv"), inference={"max_iterationz": 5})
        p = self.start(self.write_config(cfg, "bad.json"))
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 78, err)
        self.assertIn("bayes-vi: error: /inference/max_iterationz", err)
        self.assertEqual(self.requeues(), [])
        self.assertFalse(os.path.exists(os.path.join(self.out, "stdout.json")))


if __name__ == "__main__":
    unittest.main()
