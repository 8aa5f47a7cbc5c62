"""Bad --checkpoint and --resume arguments: each fails before the data is loaded, with SPEC.md's one
line and exit code (73 for a checkpoint that cannot be written, 66 for a resume file that cannot be
read, 78 for one that is not a checkpoint of this run).

"Before the data is loaded" is shown without a clock: the data file has a bad value on its last
line, which only loading finds (exit 65); a run that reports the checkpoint's problem instead
checked it first."""
import json
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

from bvi_errors import ErrorTestCase, good_config
from bvi_test import BINARY, SEED_CSV

NO_INPUT, CANT_CREATE, CONFIG = 66, 73, 78
IS_ROOT = os.geteuid() == 0
MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")


def read_only_folder(test):
    """A folder where no file can be created, even by root: a read-only tmpfs when mounting is
    allowed, a folder without write permission otherwise; None when neither is possible."""
    if IS_ROOT:
        # Outside the test's own folder, which is removed before cleanups run.
        folder = tempfile.mkdtemp(prefix="bvi-ro-")
        test.addCleanup(os.rmdir, folder)
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", folder], capture_output=True)
        if p.returncode != 0:
            return None
        test.addCleanup(subprocess.run, ["umount", folder], capture_output=True)
        return folder
    folder = test.path("ro")
    os.mkdir(folder)
    os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
    test.addCleanup(os.chmod, folder, stat.S_IRWXU)
    return folder


class CheckpointErrors(ErrorTestCase):
    def setUp(self):
        super().setUp()
        with open(SEED_CSV) as f:
            lines = f.read().splitlines()
        # Loading would stop here with 65: the scan counts records, only the parse reads values.
        lines[-1] = ",".join(lines[-1].split(",")[:-1] + ["oops"])
        self.late_bad = self.write("late_bad.csv", "\n".join(lines) + "\n")
        self.cfg = self.write_json(good_config(self.late_bad))
        self.good_cfg = self.write_json(good_config(), "good.json")

    def test_the_bad_data_is_found_by_loading(self):
        # The premise of every test here.
        self.assert_fails(self.run_bvi(["fit", self.cfg]), 65, self.late_bad + ":101", "oops")

    def test_a_checkpoint_in_a_folder_that_does_not_exist(self):
        state = self.path("no/such/dir/state.ckpt")
        self.assert_fails(self.run_bvi(["fit", self.cfg, "--checkpoint", state, "--output", self.path("out")]),
                          CANT_CREATE, state, "does not exist")
        self.assertFalse(os.path.exists(self.path("no")), "the checkpoint's folder is not created")
        self.assertEqual(os.listdir(self.path("out")), [], "nothing written in the output folder")
        self.assert_fails(self.run_bvi(["fit", self.cfg, "--checkpoint", "/no/such/dir/state.ckpt"]), CANT_CREATE,
                          "/no/such/dir/state.ckpt")

    def test_a_checkpoint_in_the_output_folder_that_is_yet_to_be_made(self):
        cfg = self.write_json(good_config(), "seed.json")
        out = self.path("new/out")
        self.assert_ok(self.run_bvi(["fit", cfg, "--quiet", "--output", out, "--checkpoint", out + "/run.ckpt",
                                     "--checkpoint-every", "5"]))
        self.assertEqual(sorted(os.listdir(out)), ["draws.csv", "elbo.csv", "run.ckpt", "summary.json"])

    def test_a_checkpoint_that_is_a_folder_or_a_device(self):
        os.mkdir(self.path("state.ckpt"))
        self.assert_fails(self.run_bvi(["fit", self.cfg, "--checkpoint", self.path("state.ckpt")]), CANT_CREATE,
                          self.path("state.ckpt"), "is a folder")
        self.assert_fails(self.run_bvi(["fit", self.cfg, "--checkpoint", "/dev/null"]), CANT_CREATE, "/dev/null",
                          "not a regular file")

    def test_a_checkpoint_below_a_file(self):
        plain = self.write("plain", "x\n")
        self.assert_fails(self.run_bvi(["fit", self.cfg, "--checkpoint", plain + "/state.ckpt"]), CANT_CREATE,
                          plain + "/state.ckpt", "not a folder")

    def test_a_checkpoint_in_a_read_only_folder(self):
        folder = read_only_folder(self)
        if folder is None:
            self.skipTest("cannot make a read-only folder here")
        state = os.path.join(folder, "state.ckpt")
        self.assert_fails(self.run_bvi(["fit", self.cfg, "--checkpoint", state]), CANT_CREATE, state,
                          "cannot create files")
        self.assert_fails(self.run_bvi(["fit", self.cfg, "--checkpoint", "/proc/state.ckpt"]), CANT_CREATE,
                          "/proc/state.ckpt")

    def test_a_checkpoint_whose_folder_is_locked_by_another_run(self):
        # The lock file of a checkpoint another run holds (see test_failure_injection for two
        # real runs); here a holder process keeps it.
        state = self.path("state.ckpt")
        holder = subprocess.Popen(["flock", state + ".lock", "sleep", "30"])
        self.addCleanup(holder.kill)
        for _ in range(100):
            if os.path.exists(state + ".lock"):
                break
            subprocess.run(["sleep", "0.05"])
        self.assert_fails(self.run_bvi(["fit", self.cfg, "--checkpoint", state]), CANT_CREATE, state,
                          "another bayes-vi run")


class ResumeErrors(ErrorTestCase):
    def setUp(self):
        super().setUp()
        with open(SEED_CSV) as f:
            lines = f.read().splitlines()
        lines[-1] = ",".join(lines[-1].split(",")[:-1] + ["oops"])
        self.late_bad = self.write("late_bad.csv", "\n".join(lines) + "\n")
        # The checkpoint of a short run of the good config.
        self.good = self.write_json(good_config(), "good.json")
        self.state = self.path("state.ckpt")
        p = self.run_bvi(["fit", self.good, "--quiet", "--checkpoint", self.state, "--checkpoint-every", "5"])
        self.assert_ok(p)
        with open(self.state) as f:
            self.text = f.read()

    def resume(self, path, cfg=None, extra=()):
        return self.run_bvi(["fit", cfg or self.good, "--quiet", "--resume", path] + list(extra))

    def test_a_good_checkpoint_resumes(self):
        self.assert_ok(self.resume(self.state))

    def test_a_missing_file(self):
        self.assert_fails(self.resume(self.path("none.ckpt")), NO_INPUT, self.path("none.ckpt"))

    def test_a_folder(self):
        os.mkdir(self.path("dir.ckpt"))
        self.assert_fails(self.resume(self.path("dir.ckpt")), NO_INPUT, self.path("dir.ckpt"), "directory")

    def test_a_fifo_with_no_writer(self):
        os.mkfifo(self.path("fifo.ckpt"))
        self.assert_fails(self.resume(self.path("fifo.ckpt")), NO_INPUT, self.path("fifo.ckpt"))

    def test_an_empty_file(self):
        self.assert_fails(self.resume(self.write("empty.ckpt", "")), CONFIG, self.path("empty.ckpt"))

    def test_truncated(self):
        for n in (1, len(self.text) // 3, len(self.text) // 2, len(self.text) - 2):
            with self.subTest(bytes=n):
                p = self.write("cut.ckpt", self.text[:n])
                self.assert_fails(self.resume(p), CONFIG, p, "not a bayes-vi checkpoint")

    def test_corrupt(self):
        # Garbage, a changed digit (still valid JSON: the checksum finds it), a binary file.
        garbage = self.write("garbage.ckpt", "\x00\x01garbage\xff" * 10)
        self.assert_fails(self.resume(garbage), CONFIG, garbage)
        doc = json.loads(self.text)
        digit = doc["params"][0]
        changed = self.text.replace(digit, digit[:-4] + ("1" if digit[-4] != "1" else "2") + digit[-3:], 1)
        self.assertNotEqual(changed, self.text)
        p = self.write("changed.ckpt", changed)
        self.assert_fails(self.resume(p), CONFIG, p, "checksum")
        p = self.write("binary.ckpt", bytes(range(256)) * 4, mode="wb")
        self.assert_fails(self.resume(p), CONFIG, p)

    def test_not_a_checkpoint(self):
        with open(self.good) as f:
            config_text = f.read()
        for name, text in (("config.ckpt", config_text), ("list.ckpt", "[1, 2, 3]"),
                           ("other.ckpt", json.dumps({"format": "something else"}))):
            with self.subTest(name=name):
                p = self.write(name, text)
                self.assert_fails(self.resume(p), CONFIG, p, "not a bayes-vi checkpoint")

    def test_another_config(self):
        cfg = good_config()
        cfg["model"]["priors"]["beta"]["normal"]["scale"] = 2
        other = self.write_json(cfg, "other.json")
        self.assert_fails(self.resume(self.state, other), CONFIG, self.state, "another config")

    def test_another_seed(self):
        self.assert_fails(self.resume(self.state, extra=["--seed", "8"]), CONFIG, self.state, "another config")

    def test_another_dataset_fails_before_loading_it(self):
        # The same config on data with a bad value at the end: the fingerprint (which knows the
        # data's path and rows) refuses the checkpoint before the bad value is read.
        cfg = good_config(self.late_bad)
        other = self.write_json(cfg, "late.json")
        self.assert_fails(self.resume(self.state, other), CONFIG, self.state, "another config")

    def test_a_missing_resume_file_is_found_before_the_data(self):
        other = self.write_json(good_config(self.late_bad), "late.json")
        self.assert_fails(self.resume(self.path("none.ckpt"), other), NO_INPUT, self.path("none.ckpt"))

    def test_an_edited_state_that_keeps_its_fingerprint(self):
        # A hand edit that fixes up the checksum but leaves a state of the wrong size: refused at
        # the file (78), never used out of bounds.
        doc = json.loads(self.text)
        doc["params"] = doc["params"][:-1]
        del doc["checksum"]
        doc["checksum"] = fnv1a(json.dumps(doc, separators=(",", ":"), sort_keys=True))
        p = self.write("edited.ckpt", json.dumps(doc))
        self.assert_fails(self.resume(p), CONFIG, p, "damaged checkpoint")

    @unittest.skipUnless(MPIRUN, "mpirun not installed")
    def test_under_mpirun_every_rank_stops_with_the_same_code(self):
        p = self.write("cut.ckpt", self.text[:40])
        for args, code, where in ((["--resume", p], CONFIG, p),
                                  (["--resume", self.path("none.ckpt")], NO_INPUT, self.path("none.ckpt")),
                                  (["--checkpoint", "/no/such/dir/s.ckpt"], CANT_CREATE, "/no/such/dir/s.ckpt")):
            with self.subTest(args=args):
                proc = subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", BINARY, "fit", self.good, "--quiet"] + args,
                                      env=MPI_ENV, capture_output=True, text=True, timeout=120)
                self.assertEqual(proc.returncode, code, proc.stderr)
                ours = [l for l in proc.stderr.splitlines() if l.startswith("bayes-vi:")]
                self.assertEqual(len(ours), 1, proc.stderr)
                self.assertTrue(ours[0].startswith("bayes-vi: error: " + where + ": "), ours[0])


def fnv1a(text):
    """inference/checkpoint.cpp's checksum (FNV-1a 64), over nlohmann's compact dump."""
    h = 1469598103934665603
    for b in text.encode():
        h ^= b
        h = (h * 1099511628211) % (1 << 64)
    return "%016x" % h


if __name__ == "__main__":
    unittest.main()
