"""Categorical predictors: which columns are categorical (text in the values, or declared),
the order of levels (bytes in C order for text, numeric for numbers; '01' is '1'), R's coding and
the coefficient names for main effects and interactions, with and without an intercept, and the
errors: a numeric column with text further down, a population-level term with too many levels, a
grouping factor with one level, a categorical response, an unknown declared column."""
import json
import os
import unittest

from bvi_test import BinaryTestCase, run

PRIORS = {"beta": {"normal": {"loc": 0, "scale": 1}}, "alpha": {"normal": {"loc": 0, "scale": 5}}}


class Categorical(BinaryTestCase):
    def data(self, header, rows, name="d.csv"):
        return self.write(name, header + "\n" + "\n".join(rows) + "\n")

    def config(self, csv, **model):
        return {"data": {"csv": csv}, "model": {"likelihood": "normal", **model}}

    def check(self, cfg, code=0):
        p = run(["check", self.write_config(cfg)])
        self.assertEqual(p.returncode, code, p.stderr)
        return p.stdout

    def features_line(self, report):
        return [l for l in report.splitlines() if l.startswith("features")][0].split()[1:]

    def grid(self):
        """sex x region x x, every combination present."""
        rows = []
        for i in range(24):
            sex = ["female", "male"][i % 2]
            region = ["north", "south", "east"][(i // 2) % 3]
            rows.append("%s,%s,%s,%.2f" % (0.1 * i, sex, region, 0.5 * ((i * 7) % 5) - 1))
        return self.data("y,sex,region,x", rows)

    def test_coding_and_names_follow_r(self):
        csv = self.grid()
        cases = {
            "y ~ sex": ["sex[male]"],
            "y ~ 0 + sex": ["sex[female]", "sex[male]"],
            "y ~ x:sex": ["x:sex[female]", "x:sex[male]"],
            "y ~ x + x:sex": ["x", "x:sex[male]"],
            "y ~ x * sex": ["x", "sex[male]", "x:sex[male]"],
            # Levels in byte order: east, north, south; the reference is east.
            "y ~ region": ["region[north]", "region[south]"],
            # sex + sex:region: region nested in sex, every sex gets its region contrasts.
            "y ~ sex + sex:region": ["sex[male]", "sex[female]:region[north]", "sex[male]:region[north]",
                                     "sex[female]:region[south]", "sex[male]:region[south]"],
            "y ~ sex * region": ["sex[male]", "region[north]", "region[south]", "sex[male]:region[north]",
                                 "sex[male]:region[south]"],
        }
        for formula, names in cases.items():
            with self.subTest(formula=formula):
                self.assertEqual(self.features_line(self.check(self.config(csv, formula=formula))), names)

    def test_labels_in_the_summary(self):
        csv = self.grid()
        cfg = self.config(csv, formula="y ~ x * sex")
        cfg["inference"] = {"max_iterations": 5, "output_draws": 10, "final_elbo_draws": 1000}
        p = run(["fit", self.write_config(cfg), "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        params = {q["name"]: q for q in json.loads(p.stdout)["parameters"]}
        self.assertEqual(params["beta.2"]["label"], "sex[male]")
        self.assertEqual(params["beta.2"]["feature"], "sex[male]")
        self.assertEqual(params["beta.3"]["label"], "x:sex[male]")

    def test_which_columns_are_categorical_and_how_levels_sort(self):
        rows = ["%d,%s,%s,%s,%s" % (i, ["b", "B", "a", "\xe9t\xe9", "A"][i % 5], ["10", "2", "01", "1", "2.5"][i % 5],
                                    ["7", "3", "12"][i % 3], ["x1", "x2"][i % 2]) for i in range(20)]
        csv = self.data("y,word,id,num,txt", rows)
        # A text column is categorical without being declared (bytes: upper case first, UTF-8 last).
        report = self.check(self.config(csv, formula="y ~ word"))
        self.assertIn("categorical word: 5 levels: A, B, a, b, \xe9t\xe9; byte order", report)
        # Declared numbers: numeric order, '01' and '1' one level named '1', non-integers allowed.
        cfg = self.config(csv, formula="y ~ id + num")
        cfg["data"]["categorical"] = ["id", "num"]
        report = self.check(cfg)
        self.assertIn("categorical id: 4 levels: 1, 2, 2.5, 10; numeric order", report)
        self.assertIn("categorical num: 3 levels: 3, 7, 12; numeric order", report)
        self.assertEqual(self.features_line(report), ["id[2]", "id[2.5]", "id[10]", "num[7]", "num[12]"])
        # Undeclared numbers stay numeric.
        self.assertEqual(self.features_line(self.check(self.config(csv, formula="y ~ num"))), ["num"])
        # With no features listed, every column is a term, text ones categorical.
        cfg = {"data": {"csv": csv, "response": "y"}, "model": {"likelihood": "normal", "intercept": True}}
        self.assertEqual(self.features_line(self.check(cfg))[:4], ["word[B]", "word[a]", "word[b]", "word[\xe9t\xe9]"])

    def test_errors(self):
        # A column of numbers with text further down: 65 at the line, with advice (test_column_kinds.py).
        csv = self.data("y,x", ["1,2", "2,3", "3,abc", "4,1"], "num.csv")
        p = run(["check", self.write_config(self.config(csv, formula="y ~ x"))])
        self.assert_error(p, 65, where=csv + ":4", contains="list it in /data/categorical")
        # A population-level term with more than 1000 levels: 78 at the term, advising a group term.
        rows = ["%d,g%d" % (i % 3, i) for i in range(1200)]
        big = self.data("y,g", rows, "big.csv")
        p = run(["check", self.write_config(self.config(big, formula="y ~ g"))])
        self.assert_error(p, 78, where="/model/formula", contains="model a categorical column with many levels as a group term")
        p = run(["check", self.write_config({"data": {"csv": big, "response": "y", "features": ["g"]},
                                             "model": {"likelihood": "normal", "intercept": True}})])
        self.assert_error(p, 78, where="/data/features/0", contains="1199 coefficients")
        # As a group term it is fine.
        self.assertIn("groups      g: 1200 groups", self.check(self.config(big, formula="y ~ 1 + (1 | g)")))
        # A grouping factor with one level: 65 (a fact of the data).
        one = self.data("y,x,g", ["%d,%d,A" % (i, i) for i in range(5)], "one.csv")
        p = run(["check", self.write_config(self.config(one, formula="y ~ x + (1 | g)"))])
        self.assert_error(p, 65, where=one + ":1", contains="grouping factor 'g' has a single level ('A')")
        # A categorical response, an unknown declared column: 78 at the pointer.
        cfg = self.config(csv, formula="y ~ x")
        cfg["data"]["categorical"] = ["y"]
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/data/categorical/0", contains="response")
        cfg["data"]["categorical"] = ["xx"]
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/data/categorical/0",
                          contains="did you mean 'x'?")


if __name__ == "__main__":
    unittest.main()
