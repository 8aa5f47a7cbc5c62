"""Failures injected while bayes-vi writes:

* a full disk, as a file-size limit (prlimit --fsize: a write past it fails with EFBIG once
  SIGXFSZ is ignored, instead of killing the process) and, where mounting is allowed, as a small
  tmpfs (ENOSPC): the run exits 73 with one line, the previous outputs and checkpoint survive byte
  for byte, and no temporary file is left;
* SIGKILL at random moments of a run that checkpoints every iteration: the checkpoint on disk is
  always a whole, valid checkpoint, and resuming from it, as many times as it takes, ends exactly
  as an uninterrupted run;
* two runs on the same output folder (or checkpoint): the second stops at once with 73 and one
  line naming the first, which goes on undisturbed."""
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from bvi_errors import ErrorTestCase, good_config
from bvi_test import BINARY, SEED_CSV
from test_checkpoint_errors import fnv1a

CANT_CREATE = 73
PRLIMIT = shutil.which("prlimit")
OUTPUTS = ["draws.csv", "elbo.csv", "summary.json"]


def snapshot(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            out[name] = f.read()
    return out


def valid_checkpoint(text):
    """The checks a reader can make without the binary: JSON, the format, and the checksum over
    the rest of the document as nlohmann dumps it."""
    doc = json.loads(text)
    if doc.get("format") != "bayes-vi checkpoint":
        return False
    checksum = doc.pop("checksum")
    return checksum == fnv1a(json.dumps(doc, separators=(",", ":"), sort_keys=True))


def write_logistic_csv(path, rows, features, seed=13):
    rng = random.Random(seed)
    lines = ["%s,y" % ",".join("x%d" % (j + 1) for j in range(features))]
    for _ in range(rows):
        lines.append(",".join("%.5f" % rng.gauss(0, 1) for _ in range(features)) + ",%d" % (rng.random() < 0.5))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def small_tmpfs(test, size):
    """A tmpfs of `size` bytes mounted for the test, or None where mounting is not allowed."""
    if os.geteuid() != 0 or not shutil.which("mount"):
        return None
    folder = tempfile.mkdtemp(prefix="bvi-full-")
    test.addCleanup(os.rmdir, folder)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % size, "tmpfs", folder], capture_output=True)
    if p.returncode != 0:
        return None
    test.addCleanup(subprocess.run, ["umount", folder], capture_output=True)
    return folder


@unittest.skipUnless(PRLIMIT, "prlimit (util-linux) not installed")
class FullDisk(ErrorTestCase):
    def setUp(self):
        super().setUp()
        self.cfg = self.write_json(good_config())

    def fsize(self, limit, args):
        """bayes-vi ARGS where no file may grow past `limit` bytes (prlimit --fsize, as ulimit -f)."""
        return subprocess.run([PRLIMIT, "--fsize=%d" % limit, BINARY] + args, capture_output=True, text=True,
                              timeout=60)

    def test_outputs_past_the_file_size_limit(self):
        out = self.path("out")
        self.assert_ok(self.run_bvi(["fit", self.cfg, "--output", out, "--quiet"]))
        before = snapshot(out)
        self.assertGreater(len(before["draws.csv"]), 20000)
        # Another seed, whose draws.csv cannot be written past 20 kB.
        p = self.fsize(20000, ["fit", self.cfg, "--output", out, "--quiet", "--seed", "8"])
        self.assertNotEqual(p.returncode, -signal.SIGXFSZ, "killed by SIGXFSZ")
        self.assert_fails(p, CANT_CREATE, os.path.join(out, "draws.csv"), "File too large")
        self.assertEqual(snapshot(out), before, "the previous outputs, byte for byte, and nothing else")

    def test_a_checkpoint_past_the_file_size_limit(self):
        # 50 features: an exact fullrank checkpoint of ~100 kB (q's 51 x 51 factor and the last
        # step's direction). Limits stay above 1 kB: LLVM's OpenMP runtime (the clang sanitizer
        # build) sizes a 1 kB shared-memory file at start-up, which a smaller limit makes it fail.
        wide = good_config(write_logistic_csv(self.path("data.csv"), 300, 50))
        wide["inference"] = {"max_iterations": 20, "output_draws": 100, "seed": 7}  # the exact method
        cfg = self.write_json(wide, "wide.json")
        state = self.path("state.ckpt")
        self.assert_ok(self.run_bvi(["fit", cfg, "--quiet", "--checkpoint", state, "--checkpoint-every", "10"]))
        with open(state) as f:
            good = f.read()
        self.assertTrue(valid_checkpoint(good))
        self.assertGreater(len(good), 40000)
        p = self.fsize(20000, ["fit", cfg, "--quiet", "--checkpoint", state, "--checkpoint-every", "5", "--seed", "9"])
        self.assertNotEqual(p.returncode, -signal.SIGXFSZ, "killed by SIGXFSZ")
        self.assert_fails(p, CANT_CREATE, state, "File too large")
        with open(state) as f:
            self.assertEqual(f.read(), good)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["config.json", "data.csv", "state.ckpt", "wide.json"])
        # And it still resumes.
        self.assert_ok(self.run_bvi(["fit", cfg, "--quiet", "--resume", state]))

    def test_simulated_data_past_the_file_size_limit(self):
        data = self.write("sim.csv", "previous\n")
        p = self.fsize(10000, ["simulate", "--rows", "1000", "--features", "5", "--seed", "1", "--output", data,
                               "--truth", self.path("t.csv")])
        self.assert_fails(p, CANT_CREATE, data, "File too large")
        with open(data) as f:
            self.assertEqual(f.read(), "previous\n")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["config.json", "sim.csv"])

    def test_a_small_tmpfs_that_fills_up(self):
        disk = small_tmpfs(self, 256 * 1024)
        if disk is None:
            self.skipTest("cannot mount a tmpfs here")
        out = os.path.join(disk, "out")
        state = os.path.join(disk, "state.ckpt")
        self.assert_ok(self.run_bvi(["fit", self.cfg, "--output", out, "--quiet", "--checkpoint", state,
                                     "--checkpoint-every", "5"]))
        before = snapshot(out)
        # 5000 output draws do not fit beside the previous files.
        cfg = good_config()
        cfg["inference"]["output_draws"] = 5000
        big = self.write_json(cfg, "big.json")
        p = self.run_bvi(["fit", big, "--output", out, "--quiet", "--checkpoint", state, "--checkpoint-every", "5"])
        self.assert_fails(p, CANT_CREATE, os.path.join(out, "draws.csv"), "No space left on device")
        self.assertEqual(snapshot(out), before)
        # (Its checkpoints, small, found room.)
        with open(state) as f:
            good_state = f.read()
        self.assertTrue(valid_checkpoint(good_state))
        metrics = os.path.join(disk, "m.json")
        with open(metrics, "w") as f:
            f.write("previous\n")
        # A checkpoint on a disk with no room for it (an empty file, the probe, still fits).
        filler = os.path.join(disk, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError:
            pass
        finally:
            os.close(fd)
        p = self.run_bvi(["fit", self.cfg, "--quiet", "--checkpoint", state, "--checkpoint-every", "5", "--seed", "3"])
        self.assertEqual(p.returncode, CANT_CREATE, p.stderr)
        self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
        with open(state) as f:
            self.assertEqual(f.read(), good_state)
        # And predict's metrics file.
        p = self.run_bvi(["predict", self.cfg, "--fit", out, "--metrics", metrics])
        self.assert_fails(p, CANT_CREATE, metrics, "No space left on device")
        with open(metrics) as f:
            self.assertEqual(f.read(), "previous\n")
        self.assertEqual(sorted(os.listdir(disk)), ["filler", "m.json", "out", "state.ckpt"])


class KilledWhileCheckpointing(ErrorTestCase):
    def test_sigkill_at_random_moments_never_damages_the_checkpoint(self):
        # 51 parameters: a natural-gradient fullrank checkpoint of ~35 kB (q's 51 x 51 factor),
        # written every iteration, so a kill often lands inside a write. (The Monte Carlo method:
        # 150 iterations leave room for many kills; the exact method's resume is
        # test_exact_resume's.)
        rng = random.Random(13)
        data = write_logistic_csv(self.path("data.csv"), 10000, 50)
        cfg = good_config(data)
        cfg["inference"] = {"method": "monte_carlo", "algorithm": "fullrank", "max_iterations": 150,
                            "eval_elbo": 10, "output_draws": 100, "seed": 5}
        cfg = self.write_json(cfg)
        state = self.path("state.ckpt")
        # (Timeouts for a sanitizer build, several times slower.)
        whole = subprocess.run([BINARY, "fit", cfg, "--quiet", "--output", self.path("whole")], capture_output=True,
                               text=True, timeout=900)
        self.assert_ok(whole)

        kills = resumed = 0
        for attempt in range(80):
            args = [BINARY, "fit", cfg, "--quiet", "--threads", "1", "--output", self.path("out"),
                    "--checkpoint", state, "--checkpoint-every", "1"]
            if os.path.exists(state):
                args += ["--resume", state]
                resumed += 1
            before = os.stat(state).st_mtime_ns if os.path.exists(state) else None
            proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            # Once this run has written a checkpoint of its own (so every round makes progress,
            # however slow the build), at a random moment of the writes that follow.
            deadline = time.time() + 300
            while proc.poll() is None and time.time() < deadline:
                if os.path.exists(state) and os.stat(state).st_mtime_ns != before:
                    break
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.3))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                kills += 1
            proc.wait(timeout=60)
            err = proc.stderr.read()
            proc.stderr.close()
            self.assertIn(proc.returncode, (0, -signal.SIGKILL), err)
            if os.path.exists(state):
                with open(state) as f:
                    text = f.read()
                self.assertTrue(valid_checkpoint(text), "a damaged checkpoint after kill %d" % kills)
            if proc.returncode == 0:
                break
        print("%d kills, %d resumes" % (kills, resumed))
        self.assertGreater(kills, 5, "the run was hardly ever killed")
        self.assertGreater(resumed, 5)
        # However often it was killed and resumed, it ends exactly as the run that never was.
        if proc.returncode != 0:
            self.assert_ok(subprocess.run([BINARY, "fit", cfg, "--quiet", "--output", self.path("out"), "--resume",
                                           state], capture_output=True, text=True, timeout=900))
        self.assertEqual(snapshot(self.path("out"))["draws.csv"], snapshot(self.path("whole"))["draws.csv"])
        # A kill leaves at most its temporary files and a lock file, never anything in their place.
        for name in os.listdir(self.tmp):
            self.assertRegex(name, r"^(config\.json|data\.csv|state\.ckpt|state\.ckpt\.tmp\.\d+|state\.ckpt\.lock|"
                                   r"whole|out)$")


class TwoRunsOneFolder(ErrorTestCase):
    def long_run(self, out, extra=()):
        cfg = good_config()
        cfg["inference"].update({"optimizer": {"name": "sgd", "learning_rate": 0.001}, "max_iterations": 10 ** 8})
        path = self.write_json(cfg, "long.json")
        proc = subprocess.Popen([BINARY, "fit", path, "--quiet", "--threads", "1", "--output", out] + list(extra),
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (proc.kill(), proc.wait(), proc.stderr.close()))
        lock = os.path.join(out, ".bayes-vi.lock")
        for _ in range(600):
            if os.path.exists(lock) or proc.poll() is not None:
                break
            time.sleep(0.05)
        self.assertIsNone(proc.poll(), "the long run ended early")
        return proc

    def test_the_second_run_stops_at_once(self):
        out = self.path("out")
        self.assert_ok(self.run_bvi(["fit", self.write_json(good_config()), "--quiet", "--output", out]))
        before = snapshot(out)
        first = self.long_run(out)
        second = self.run_bvi(["fit", self.write_json(good_config(), "c2.json"), "--quiet", "--output", out])
        self.assert_fails(second, CANT_CREATE, out, "another bayes-vi run (pid %d) is writing here" % first.pid)
        self.assertIsNone(first.poll(), "the first run goes on")
        # The first run's lock is the only thing besides the previous outputs.
        now = snapshot(out)
        self.assertEqual(now.pop(".bayes-vi.lock"), b"%d\n" % first.pid)
        self.assertEqual(now, before)
        # Killed, it leaves its lock file, which the next run takes over.
        first.kill()
        first.wait()
        self.assert_ok(self.run_bvi(["fit", self.write_json(good_config(), "c3.json"), "--quiet", "--output", out]))
        self.assertEqual(sorted(os.listdir(out)), OUTPUTS)

    def test_two_runs_on_one_checkpoint(self):
        state = self.path("state.ckpt")
        first = self.long_run(self.path("a"), ["--checkpoint", state])
        second = self.run_bvi(["fit", self.write_json(good_config(), "c2.json"), "--quiet", "--output", self.path("b"),
                               "--checkpoint", state])
        self.assert_fails(second, CANT_CREATE, state, "pid %d" % first.pid)
        self.assertEqual(os.listdir(self.path("b")), [], "nothing of the second run was written")


if __name__ == "__main__":
    unittest.main()
