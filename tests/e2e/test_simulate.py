"""bayes-vi simulate: a dataset that check accepts and fit recovers (the posterior covers the
true coefficients it wrote), the same bytes for the same arguments whatever --threads is, the
truth file's names and place, and SPEC.md's error contract (64 for the command line, 73 for an
output that cannot be created, never a partial file over a good one)."""
import csv
import json
import os
import subprocess
import unittest

from bvi_errors import ErrorTestCase
from bvi_test import BINARY, DATA_DIR, logistic_config

USAGE, CANT_CREATE = 64, 73


def simulate_args(rows=2000, features=5, seed=11, *extra):
    return ["simulate", "--rows", str(rows), "--features", str(features), "--seed", str(seed)] + list(extra)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def read_truth(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], {name: float(value) for name, value in rows[1:]}


class Simulate(ErrorTestCase):
    def simulate(self, *args, **kwargs):
        return self.assert_ok(self.run_bvi(list(args), **kwargs))

    def test_check_accepts_it_and_fit_recovers_the_truth(self):
        data = self.path("sim.csv")
        self.simulate(*simulate_args(2000, 5, 11, "--output", data))
        header, truth = read_truth(self.path("sim.truth.csv"))
        self.assertEqual(header, ["name", "true_value"])
        self.assertEqual(list(truth), ["beta.%d" % j for j in range(1, 6)])

        cfg = self.write_json(logistic_config(data, prior_scale=10))
        check = self.simulate("check", cfg)
        self.assertIn("2000 rows, 5 features", check.stdout)
        self.assertIn("x1 x2 x3 x4 x5", check.stdout)

        fit = self.simulate("fit", cfg, "--quiet")
        params = {p["name"]: p for p in json.loads(fit.stdout)["parameters"]}
        self.assertEqual(sorted(params), sorted(truth))
        for name, value in truth.items():
            with self.subTest(name=name):
                p = params[name]
                self.assertLess(abs(p["mean"] - value), 4 * p["sd"],
                                "posterior mean %.4f (sd %.4f), true %.4f" % (p["mean"], p["sd"], value))

    def test_float32_and_float64_both_load_it(self):
        data = self.path("sim.csv")
        self.simulate(*simulate_args(300, 3, 5, "--output", data))
        for dtype in ("float32", "float64"):
            with self.subTest(dtype=dtype):
                cfg = self.write_json(logistic_config(data, dtype=dtype), dtype + ".json")
                self.assertIn("300 rows, 3 features (%s)" % dtype, self.simulate("check", cfg).stdout)

    def test_the_same_bytes_for_any_thread_count(self):
        # 200 features: blocks of 163 rows, so 3000 rows are 19 blocks to share out.
        outputs = {}
        for threads in ("1", "2", "3"):
            out = self.path("t%s.csv" % threads)
            self.simulate(*simulate_args(3000, 200, 3, "--output", out, "--threads", threads))
            outputs[threads] = (read_bytes(out), read_bytes(self.path("t%s.truth.csv" % threads)))
        self.assertEqual(outputs["1"], outputs["2"])
        self.assertEqual(outputs["1"], outputs["3"])
        piped = self.simulate(*simulate_args(3000, 200, 3, "--threads", "2"))
        self.assertEqual(piped.stdout.encode(), outputs["1"][0])

    def test_the_same_arguments_give_the_same_bytes_and_other_seeds_other_data(self):
        a = self.simulate(*simulate_args(500, 4, 1)).stdout
        self.assertEqual(a, self.simulate(*simulate_args(500, 4, 1)).stdout)
        b = self.simulate(*simulate_args(500, 4, 2)).stdout
        self.assertNotEqual(a, b)
        first_rows = lambda text: text.splitlines()[1:6]
        for row_a, row_b in zip(first_rows(a), first_rows(b)):
            self.assertNotEqual(row_a.split(",")[:4], row_b.split(",")[:4])

    def test_the_layout(self):
        text = self.simulate(*simulate_args(50, 3, 8)).stdout
        lines = text.splitlines()
        self.assertTrue(text.endswith("\n"))
        self.assertEqual(lines[0], "x1,x2,x3,y")
        self.assertEqual(len(lines), 51)
        ys = set()
        for line in lines[1:]:
            fields = line.split(",")
            self.assertEqual(len(fields), 4, line)
            for field in fields[:3]:
                float(field)
                # Shortest round-trip float32 text: at most 9 significant digits.
                digits = field.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
                self.assertLessEqual(len(digits), 9, field)
            ys.add(fields[3])
        self.assertEqual(ys, {"0", "1"})

    def test_where_the_truth_goes(self):
        with open(os.path.join(DATA_DIR, "seed_true_beta.csv")) as f:
            seed_header = f.readline()
        # Beside --output, .csv replaced by .truth.csv; other names get .truth.csv appended.
        self.simulate(*simulate_args(10, 2, 1, "--output", self.path("a.csv")))
        self.simulate(*simulate_args(10, 2, 1, "--output", self.path("b.data")))
        self.assertTrue(os.path.isfile(self.path("a.truth.csv")))
        self.assertTrue(os.path.isfile(self.path("b.data.truth.csv")))
        with open(self.path("a.truth.csv")) as f:
            self.assertEqual(f.readline(), seed_header)
        # --truth wins, with or without --output; with neither, no file at all.
        self.simulate(*simulate_args(10, 2, 1, "--output", self.path("c.csv"), "--truth", self.path("t1.csv")))
        self.assertFalse(os.path.exists(self.path("c.truth.csv")))
        piped = self.simulate(*simulate_args(10, 2, 1, "--truth", self.path("t2.csv")))
        self.assertEqual(piped.stdout.encode(), read_bytes(self.path("a.csv")))
        self.assertEqual(read_bytes(self.path("t1.csv")), read_bytes(self.path("a.truth.csv")))
        self.assertEqual(read_bytes(self.path("t2.csv")), read_bytes(self.path("a.truth.csv")))
        before = sorted(os.listdir(self.tmp))
        self.simulate(*simulate_args(10, 2, 1), cwd=self.tmp)
        self.assertEqual(sorted(os.listdir(self.tmp)), before)


class SimulateErrors(ErrorTestCase):
    def usage(self, args, contains=None):
        self.assert_fails(self.run_bvi(["simulate"] + args), USAGE, "command line", contains)

    def test_bad_command_lines(self):
        good = {"--rows": "10", "--features": "2", "--seed": "1"}
        for option in good:
            with self.subTest(missing=option):
                args = sum(([k, v] for k, v in good.items() if k != option), [])
                self.usage(args, option)
        bad_values = {"--rows": ["0", "-3", "abc", "1.5", "", "99999999999999999999"],
                      "--features": ["0", "-1", "x", "2.0", "1e3"],
                      "--seed": ["-1", "abc", "1.5", "9007199254740992"],
                      "--threads": ["0", "abc"]}
        for option, values in bad_values.items():
            for value in values:
                with self.subTest(option=option, value=value):
                    args = sum(([k, v] for k, v in {**good, option: value}.items()), [])
                    self.usage(args, option)
        self.usage(["--rows", "10", "--features", "2", "--seed", "1", "--bogus"], "--bogus")
        self.usage(["--rows", "10", "--features", "2", "--seed", "1", "--output", ""])
        same = self.path("same.csv")
        self.usage(["--rows", "10", "--features", "2", "--seed", "1", "--output", same, "--truth", same], "same file")
        respelled = os.path.join(self.tmp, ".", "same.csv")
        self.usage(["--rows", "10", "--features", "2", "--seed", "1", "--output", same, "--truth", respelled],
                   "same file")
        self.assertEqual(os.listdir(self.tmp), [], "nothing written")

    def cant_create(self, extra, where, contains=None, seed=1):
        p = self.run_bvi(simulate_args(100, 3, seed, *extra))
        return self.assert_fails(p, CANT_CREATE, where, contains)

    def test_outputs_that_cannot_be_created(self):
        missing = self.path("no/such/dir/data.csv")
        self.cant_create(["--output", missing], missing)
        self.cant_create(["--output", self.tmp], self.tmp, "folder")
        self.cant_create(["--output", "/dev/null"], "/dev/null", "not a regular file")
        truth = self.path("no/such/truth.csv")
        self.cant_create(["--output", self.path("d.csv"), "--truth", truth], truth)
        self.cant_create(["--truth", truth], truth)
        self.assertEqual(os.listdir(self.tmp), [], "no data file without its truth, no temporary files")

    def test_an_output_that_cannot_be_created_fails_before_the_work(self):
        # 10^12 rows x 1000 features would take days: only a run that checks its outputs first ends
        # within run_bvi's timeout.
        missing = self.path("no/such/dir/data.csv")
        self.cant_create_big(["--output", missing], missing)
        truth = self.path("no/truth.csv")
        self.cant_create_big(["--output", self.path("big.csv"), "--truth", truth], truth)
        self.cant_create_big(["--truth", truth], truth)
        self.assertEqual(os.listdir(self.tmp), [], "no temporary files")

    def cant_create_big(self, extra, where):
        p = self.run_bvi(simulate_args(10**12, 1000, 1, *extra))
        return self.assert_fails(p, CANT_CREATE, where)

    def test_a_failed_run_leaves_the_earlier_files_alone(self):
        out = self.path("sim.csv")
        self.assert_ok(self.run_bvi(simulate_args(100, 3, 1, "--output", out)))
        before = {name: read_bytes(self.path(name)) for name in os.listdir(self.tmp)}
        self.assertEqual(sorted(before), ["sim.csv", "sim.truth.csv"])
        # Another seed, whose truth file cannot be written: neither file changes.
        bad_truth = self.path("no/truth.csv")
        self.cant_create(["--output", out, "--truth", bad_truth], bad_truth, seed=2)
        # Another seed, whose default truth file name is taken by a folder.
        os.mkdir(self.path("other.truth.csv"))
        self.cant_create(["--output", self.path("other.csv")], self.path("other.truth.csv"), "folder", seed=2)
        os.rmdir(self.path("other.truth.csv"))
        after = {name: read_bytes(self.path(name)) for name in os.listdir(self.tmp)}
        self.assertEqual(after, before)

    def test_stdout_that_cannot_be_written(self):
        with open("/dev/full", "w") as full:
            p = subprocess.run([BINARY] + simulate_args(1000, 3, 1), stdout=full, stderr=subprocess.PIPE, text=True,
                               timeout=30)
        self.assertEqual(p.returncode, CANT_CREATE, p.stderr)
        self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
        self.assertTrue(p.stderr.startswith("bayes-vi: error: stdout: "), p.stderr)


if __name__ == "__main__":
    unittest.main()
