"""bayes-vi eval: the seed notebook's log_joint values, the gradient, and eval's input rules."""
import csv
import math
import os
import unittest

from bvi_test import BinaryTestCase, SOURCE_DIR, SEED_CSV, logistic_config, read_csv_rows, run

SEED_PARAMS = os.path.join(SOURCE_DIR, "tests", "e2e", "fixtures", "seed_eval_params.csv")
NAMES = ["beta.%d" % i for i in range(1, 11)]


class EvalSeedTable(BinaryTestCase):
    def test_reproduces_the_notebook_values(self):
        # The 11 values the notebook's log_joint printed (its single call, then its batch of ten),
        # evaluated in one batched call of the bundled config.
        p = run(["eval", os.path.join(SOURCE_DIR, "configs", "seed_eval.json"), "--params", SEED_PARAMS])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = [float(r["log_joint"]) for r in read_csv_rows(p.stdout)]
        want = [float(r["expected_log_joint"]) for r in csv.DictReader(open(SEED_PARAMS))]
        self.assertEqual(len(got), 11)
        for g, w in zip(got, want):
            self.assertLessEqual(abs(g - w) / abs(w), 1e-9, (g, w))
        self.assertIn("ignoring columns that are not parameters: expected_log_joint", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, "one warning")

    def test_values_have_17_significant_digits(self):
        p = run(["eval", os.path.join(SOURCE_DIR, "configs", "seed_eval.json"), "--params", SEED_PARAMS])
        first = p.stdout.splitlines()[1]
        self.assertEqual(len(first.lstrip("-").replace(".", "").lstrip("0")), 17, first)

    def test_gradient_matches_central_differences(self):
        cfg = self.write_config(logistic_config(prior_scale=1.0))
        p = run(["eval", cfg, "--params", SEED_PARAMS, "--grad"])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        self.assertEqual(list(rows[0].keys()), ["log_joint"] + ["grad." + n for n in NAMES])
        points = list(csv.DictReader(open(SEED_PARAMS)))
        h = 1e-5
        lines = [",".join(NAMES)]
        for point in points[:3]:
            for n in NAMES:
                for sign in (1, -1):
                    v = {k: float(point[k]) for k in NAMES}
                    v[n] += sign * h
                    lines.append(",".join("%.17g" % v[k] for k in NAMES))
        q = run(["eval", cfg, "--params", self.write("fd.csv", "\n".join(lines) + "\n")])
        vals = [float(r["log_joint"]) for r in read_csv_rows(q.stdout)]
        for i in range(3):
            for j, n in enumerate(NAMES):
                k = 2 * (i * len(NAMES) + j)
                fd = (vals[k] - vals[k + 1]) / (2 * h)
                self.assertLess(abs(fd - float(rows[i]["grad." + n])), 1e-6 * max(1, abs(fd)))

    def test_reads_stdin(self):
        cfg = self.write_config(logistic_config())
        text = open(SEED_PARAMS).read()
        a = run(["eval", cfg, "--params", "-"], stdin=text)
        b = run(["eval", cfg, "--params", SEED_PARAMS])
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)

    def test_rows_stay_in_input_order_with_columns_in_any_order(self):
        cfg = self.write_config(logistic_config())
        points = list(csv.DictReader(open(SEED_PARAMS)))
        shuffled = list(reversed(NAMES))
        text = "extra," + ",".join(shuffled) + "\n" + "".join(
            "7," + ",".join(p[n] for n in shuffled) + "\n" for p in points)
        a = run(["eval", cfg, "--params", self.write("p.csv", text)])
        b = run(["eval", cfg, "--params", SEED_PARAMS])
        self.assertEqual(a.stdout, b.stdout)

    def test_threads_do_not_change_the_numbers(self):
        cfg = self.write_config(logistic_config())
        outs = {run(["eval", cfg, "--params", SEED_PARAMS, "--grad", "--threads", str(t)]).stdout for t in (1, 2, 4)}
        self.assertEqual(len(outs), 1)


class EvalInputErrors(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.cfg = self.write_config(logistic_config())

    def test_missing_parameter_column(self):
        p = self.write("p.csv", ",".join(NAMES[:-1]) + "\n" + ",".join(["0"] * 9) + "\n")
        self.assert_error(run(["eval", self.cfg, "--params", p]), 65, where=p + ":1", contains="beta.10")

    def test_bad_number(self):
        p = self.write("p.csv", ",".join(NAMES) + "\n" + ",".join(["0"] * 10) + "\n" + ",".join(["0"] * 9 + ["x"]) + "\n")
        self.assert_error(run(["eval", self.cfg, "--params", p]), 65, where=p + ":3")

    def test_no_rows(self):
        p = self.write("p.csv", ",".join(NAMES) + "\n")
        self.assert_error(run(["eval", self.cfg, "--params", p]), 65, where=p + ":2")

    def test_missing_params_file(self):
        self.assert_error(run(["eval", self.cfg, "--params", self.path("nope.csv")]), 66, where=self.path("nope.csv"))

    def test_stdin_errors_name_stdin(self):
        p = run(["eval", self.cfg, "--params", "-"], stdin=",".join(NAMES) + "\n1,2\n")
        self.assert_error(p, 65, where="<stdin>:2")

    def test_params_option_is_required(self):
        self.assert_error(run(["eval", self.cfg]), 64, where="command line")


if __name__ == "__main__":
    unittest.main()
