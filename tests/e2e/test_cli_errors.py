"""SPEC.md "Errors" for everything but the config's and the data's content: the command line
(64), input files that cannot be opened (66), outputs that cannot be created (73, and never a
good output replaced by a partial one), and inference that fails (70)."""
import math
import os
import stat
import subprocess
import unittest

from bvi_errors import SEED_NAMES, ErrorTestCase, edited, good_config, params_text
from bvi_test import BINARY, SEED_CSV

USAGE, NO_INPUT, SOFTWARE, CANT_CREATE = 64, 66, 70, 73
IS_ROOT = os.geteuid() == 0
OUTPUTS = ["draws.csv", "elbo.csv", "summary.json"]


class CommandLine(ErrorTestCase):
    def setUp(self):
        super().setUp()
        self.cfg = self.write_json(good_config())
        self.params = self.write("params.csv", params_text(SEED_NAMES))

    def usage(self, args, contains=None):
        return self.assert_fails(self.run_bvi(args), USAGE, "command line", contains)

    def test_no_arguments(self):
        self.usage([])

    def test_unknown_subcommand(self):
        self.usage(["frobnicate", self.cfg], "unknown command 'frobnicate'")
        self.usage(["fitt", self.cfg], "unknown command 'fitt'")

    def test_unknown_option(self):
        for command in (["fit", self.cfg], ["check", self.cfg], ["eval", self.cfg, "--params", self.params]):
            with self.subTest(command=command[0]):
                self.usage(command + ["--bogus"], "--bogus")

    def test_option_of_another_subcommand(self):
        self.usage(["check", self.cfg, "--grad"])
        self.usage(["check", self.cfg, "--output", self.path("out")])
        self.assertFalse(os.path.exists(self.path("out")))

    def test_option_before_the_subcommand(self):
        self.usage(["--threads", "2", "fit", self.cfg])

    def test_missing_config(self):
        for args in (["fit"], ["check"], ["eval", "--params", self.params], ["fit", "--threads", "2"]):
            with self.subTest(args=args):
                self.usage(args)

    def test_missing_option_value(self):
        self.usage(["fit", self.cfg, "--output"])
        self.usage(["fit", self.cfg, "--threads"])
        self.usage(["eval", self.cfg, "--params"])

    def test_bad_threads(self):
        for value in ("0", "-1", "abc", "1.5", "", "99999999999999999999"):
            for command in (["fit", self.cfg], ["eval", self.cfg, "--params", self.params]):
                with self.subTest(value=value, command=command[0]):
                    self.usage(command + ["--threads", value], "--threads")

    def test_bad_seed(self):
        for value in ("-1", "abc", "1.5", "99999999999999999999", "9007199254740992"):
            with self.subTest(value=value):
                self.usage(["fit", self.cfg, "--seed", value], "--seed")

    def test_bad_log_level(self):
        for command in (["fit", self.cfg], ["check", self.cfg], ["eval", self.cfg, "--params", self.params]):
            with self.subTest(command=command[0]):
                self.usage(command + ["--log-level", "shout"], "shout")

    def test_bad_log_level_with_quiet(self):
        # --quiet silences the logs; it does not make a wrong --log-level right.
        self.usage(["fit", self.cfg, "--quiet", "--log-level", "shout"], "shout")

    def test_bad_log_level_is_reported_before_a_bad_config(self):
        self.usage(["check", self.write("bad.json", "{"), "--log-level", "shout"], "shout")

    def test_empty_paths(self):
        # "" is no file: without this it reached the file layer, which had no name to report.
        self.usage(["check", ""], "config: must not be empty")
        self.usage(["eval", self.cfg, "--params", ""], "--params: must not be empty")
        self.usage(["fit", self.cfg, "--output", ""], "--output: must not be empty")

    def test_eval_without_params(self):
        self.usage(["eval", self.cfg], "--params")

    def test_extra_positional_arguments(self):
        self.usage(["fit", self.cfg, "extra"], "extra")
        self.usage(["check", self.cfg, self.cfg])
        self.usage(["eval", self.cfg, "extra", "--params", self.params], "extra")

    def test_errors_are_printed_even_with_quiet(self):
        bad = self.write("bad.json", "{")
        self.assert_fails(self.run_bvi(["fit", bad, "--quiet"]), 78, bad + ":1")

    def test_help_and_version(self):
        for args in (["--help"], ["-h"], ["fit", "--help"], ["eval", "--help"], ["check", "--help"],
                     ["--version"]):
            with self.subTest(args=args):
                p = self.run_bvi(args)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(p.stderr, "")
                self.assertNotEqual(p.stdout.strip(), "")
        self.assertIn("--params", self.run_bvi(["eval", "--help"]).stdout)
        self.assertIn("0.1.0", self.run_bvi(["--version"]).stdout)


class InputFiles(ErrorTestCase):
    def setUp(self):
        super().setUp()
        self.params = self.write("params.csv", params_text(SEED_NAMES))

    def all_commands(self, cfg_path):
        return (["check", cfg_path], ["fit", cfg_path], ["eval", cfg_path, "--params", self.params])

    def expect(self, cfg_path, where, contains=None):
        for args in self.all_commands(cfg_path):
            with self.subTest(command=args[0]):
                self.assert_fails(self.run_bvi(args), NO_INPUT, where, contains)

    def test_missing_config(self):
        self.expect(self.path("nope.json"), self.path("nope.json"))

    def test_config_is_a_directory(self):
        os.mkdir(self.path("conf.d"))
        self.expect(self.path("conf.d"), self.path("conf.d"), "directory")

    @unittest.skipIf(IS_ROOT, "root reads a file whatever its mode")
    def test_unreadable_config(self):
        path = self.write_json(good_config())
        os.chmod(path, 0)
        self.expect(path, path, "ermission")

    def test_missing_data(self):
        self.expect(self.write_json(good_config(self.path("nope.csv"))), self.path("nope.csv"))

    def test_data_is_a_directory(self):
        os.mkdir(self.path("data.csv"))
        self.expect(self.write_json(good_config(self.path("data.csv"))), self.path("data.csv"), "directory")

    @unittest.skipIf(IS_ROOT, "root reads a file whatever its mode")
    def test_unreadable_data(self):
        data = self.write("data.csv", open(SEED_CSV).read())
        os.chmod(data, 0)
        self.expect(self.write_json(good_config(data)), data, "ermission")

    def test_data_is_a_fifo_with_no_writer(self):
        # The data is read twice, so a pipe cannot be it; and opening a FIFO nobody writes to
        # must not wait forever.
        fifo = self.path("data.csv")
        os.mkfifo(fifo)
        self.expect(self.write_json(good_config(fifo)), fifo, "regular file")

    def test_config_is_a_fifo_with_no_writer(self):
        # Opening a FIFO nobody writes to waits for a writer; the config reader must not.
        fifo = self.path("config.json")
        os.mkfifo(fifo)
        self.expect(fifo, fifo, "regular file")

    def test_missing_params(self):
        cfg = self.write_json(good_config())
        self.assert_fails(self.run_bvi(["eval", cfg, "--params", self.path("nope.csv")]), NO_INPUT,
                          self.path("nope.csv"))

    def test_params_is_a_fifo_with_no_writer(self):
        fifo = self.path("params.fifo")
        os.mkfifo(fifo)
        cfg = self.write_json(good_config())
        self.assert_fails(self.run_bvi(["eval", cfg, "--params", fifo]), NO_INPUT, fifo)


def read_outputs(folder):
    return {n: open(os.path.join(folder, n), "rb").read() for n in sorted(os.listdir(folder))}


class Outputs(ErrorTestCase):
    def setUp(self):
        super().setUp()
        self.cfg_dict = good_config()
        self.cfg = self.write_json(self.cfg_dict)

    def cant_create(self, output, where=None, contains=None):
        p = self.run_bvi(["fit", self.cfg, "--output", output])
        return self.assert_fails(p, CANT_CREATE, where or output, contains)

    def test_output_is_a_regular_file(self):
        path = self.write("taken", "precious\n")
        self.cant_create(path, contains="not a folder")
        self.assertEqual(open(path).read(), "precious\n")

    def test_output_below_a_regular_file(self):
        self.write("taken", "precious\n")
        self.cant_create(self.path("taken/out"))

    def test_output_is_dev_null(self):
        self.cant_create("/dev/null", contains="not a folder")

    def test_output_under_proc(self):
        self.cant_create("/proc/bayes-vi-test-output/out")

    @unittest.skipIf(IS_ROOT, "root writes into any folder")
    def test_output_folder_without_write_permission(self):
        os.mkdir(self.path("ro"))
        os.chmod(self.path("ro"), stat.S_IRUSR | stat.S_IXUSR)
        try:
            self.cant_create(self.path("ro"))
            self.cant_create(self.path("ro/sub"))
        finally:
            os.chmod(self.path("ro"), stat.S_IRWXU)
        self.assertEqual(os.listdir(self.path("ro")), [])

    def test_an_output_name_taken_by_a_folder_fails_before_anything_is_replaced(self):
        out = self.path("out")
        self.assert_ok(self.run_bvi(["fit", self.cfg, "--output", out]))
        before = read_outputs(out)
        os.remove(os.path.join(out, "summary.json"))
        os.mkdir(os.path.join(out, "summary.json"))
        p = self.run_bvi(["fit", self.cfg, "--output", out, "--seed", "8"])
        self.assert_fails(p, CANT_CREATE, os.path.join(out, "summary.json"))
        for name in ("draws.csv", "elbo.csv"):
            self.assertEqual(open(os.path.join(out, name), "rb").read(), before[name], name + " was replaced")
        self.assertEqual(sorted(os.listdir(out)), OUTPUTS, "no temporary files left behind")

    def test_a_failed_run_never_touches_earlier_outputs(self):
        out = self.path("out")
        good = self.run_bvi(["fit", self.cfg, "--output", out])
        self.assert_ok(good)
        before = read_outputs(out)
        self.assertEqual(sorted(before), OUTPUTS)
        self.assertEqual(before["summary.json"].decode(), good.stdout)

        bad_data = self.write("bad.csv", "x1,y\n1,0\n2,7\n")
        diverging = self.write_json(diverging_config(self.write("big.csv", big_features_csv())), "diverge.json")
        failures = [
            (["fit", self.write("c1.json", "{\"data\": "), "--output", out], 78),
            (["fit", self.write_json(edited(self.cfg_dict, "/inference/seed", -1), "c2.json"), "--output", out],
             78),
            (["fit", self.write_json(good_config(bad_data), "c3.json"), "--output", out], 65),
            (["fit", self.write_json(good_config(self.path("nope.csv")), "c4.json"), "--output", out], NO_INPUT),
            (["fit", self.cfg, "--output", out, "--threads", "0"], USAGE),
            (["fit", diverging, "--output", out], SOFTWARE),
        ]
        for args, code in failures:
            with self.subTest(args=args[1]):
                p = self.run_bvi(args)
                self.assertEqual(p.returncode, code, p.stderr)
                self.assertEqual(read_outputs(out), before, "the earlier outputs changed")

    def test_stdout_that_cannot_be_written(self):
        # A full disk under a redirected stdout is an output that cannot be created, not a
        # silent success.
        params = self.write("params.csv", params_text(SEED_NAMES))
        for args in (["fit", self.cfg, "--quiet"], ["eval", self.cfg, "--params", params], ["check", self.cfg],
                     ["check", self.cfg, "--explain"]):
            with self.subTest(command=args[0]), open("/dev/full", "w") as full:
                p = subprocess.run([BINARY] + args, stdout=full, stderr=subprocess.PIPE, text=True, timeout=30)
                self.assertEqual(p.returncode, CANT_CREATE, p.stderr)
                self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
                self.assertTrue(p.stderr.startswith("bayes-vi: error: stdout: "), p.stderr)


def big_features_csv(rows=200):
    """Features in the thousands, unstandardized: a large step sends the approximation off."""
    lines = ["x1,x2,y"]
    for i in range(rows):
        lines.append("%d,%d,%d" % (1000 + 37 * (i % 50), 5000 - 91 * (i % 30), (i * 7) % 3 == 0))
    return "\n".join(lines) + "\n"


def diverging_config(csv_path, algorithm="meanfield"):
    cfg = good_config(csv_path)
    cfg["inference"].update({"algorithm": algorithm, "optimizer": {"name": "sgd", "learning_rate": 1e6}})
    return cfg


class InferenceFailures(ErrorTestCase):
    def no_nan_anywhere(self, p, out):
        self.assertNotIn("nan", p.stderr.lower())
        if os.path.isdir(out):
            for name, content in read_outputs(out).items():
                self.assertNotIn(b"nan", content.lower(), name)

    def test_a_huge_sgd_step_diverges(self):
        data = self.write("big.csv", big_features_csv())
        for algorithm in ("meanfield", "fullrank"):
            with self.subTest(algorithm=algorithm):
                cfg = self.write_json(diverging_config(data, algorithm))
                out = self.path("out-" + algorithm)
                p = self.run_bvi(["fit", cfg, "--output", out])
                line = self.assert_fails(p, SOFTWARE, "/inference")
                # The message names the likely causes: the step and the feature scales.
                self.assertTrue("step size" in line or "learning rate" in line, line)
                self.assertIn("standardize", line)
                self.no_nan_anywhere(p, out)
                self.assertFalse(os.path.exists(out) and os.listdir(out), "no outputs from a failed fit")

    def test_a_log_density_that_is_never_finite(self):
        # A prior so narrow that (beta / scale)^2 overflows at every draw: -inf everywhere.
        cfg = good_config()
        cfg["model"]["priors"]["beta"] = {"normal": {"loc": 0, "scale": 1e-300}}
        p = self.run_bvi(["fit", self.write_json(cfg)])
        self.assert_fails(p, SOFTWARE, "/inference", "not finite")
        self.no_nan_anywhere(p, self.path("none"))

    def test_eval_reports_non_finite_values_without_failing(self):
        # eval is a calculator: a point where the density underflows is an answer, not an error.
        cfg = good_config()
        cfg["model"]["priors"]["beta"] = {"normal": {"loc": 0, "scale": 1e-300}}
        p = self.run_bvi(["eval", self.write_json(cfg), "--params", self.write("p.csv", params_text(SEED_NAMES))])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(all(math.isinf(float(v)) for v in p.stdout.split()[1:]), p.stdout)


if __name__ == "__main__":
    unittest.main()
