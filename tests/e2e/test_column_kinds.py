"""A column's kind comes from all of its values, never its first alone: one bad cell in a
numeric column is a data error (65) naming it as FILE:LINE, never a hundred indicator columns;
control bytes and bytes that are not UTF-8 in a used cell are 65 at their line; a population-level
term of a column with nearly one level per row is refused unless /data/allow_many_levels lists it;
a column read as categorical without being declared is logged by fit; every MPI rank count gives
the same verdict; predict applies the fit's kinds, never its own."""
import json
import os
import shutil
import subprocess
import unittest

from bvi_test import BINARY, SEED_CSV, BinaryTestCase, logistic_config, run

MPIRUN = shutil.which("mpirun")
MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")

# What spreadsheets and locales write into a column of numbers. Each is written as the CSV field
# (quoted where it holds a comma) with the text the error must quote.
DIRTY = [
    ("#DIV/0!", "#DIV/0!"),
    ('"1,234"', "1,234"),
    ("-", "-"),
    (".", "."),
    ("1.2.3", "1.2.3"),
    ("TRUE", "TRUE"),
    ("$5", "$5"),
    ("5%", "5%"),
    ("2024-01-02", "2024-01-02"),
    ("1 234", "1 234"),
    ("0,5", None),  # an unquoted decimal comma: a ragged row, also 65 at the line
]


def mpirun(n, args):
    return subprocess.run([MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(n), BINARY] + args,
                          capture_output=True, text=True, timeout=300, env=MPI_ENV)


def seed_lines():
    with open(SEED_CSV, "rb") as f:
        return f.read().decode().splitlines()


class ColumnKinds(BinaryTestCase):
    def dirty_seed(self, field, line=2, column=0, name="dirty.csv"):
        """The seed CSV with the cell of `column` on physical `line` replaced by `field` (bytes)."""
        lines = [l.encode() for l in seed_lines()]
        cells = lines[line - 1].split(b",")
        cells[column] = field if isinstance(field, bytes) else field.encode()
        lines[line - 1] = b",".join(cells)
        return self.write(name, b"\n".join(lines) + b"\n", mode="wb")

    def fit_and_check(self, cfg):
        """Both commands, which must fail the same way: [(name, CompletedProcess)]."""
        path = self.write_config(cfg)
        return [("fit", run(["fit", path, "--quiet"])), ("check", run(["check", path]))]

    def test_clean_seed_is_unchanged(self):
        p = run(["fit", self.write_config(logistic_config()), "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        names = [q["name"] for q in json.loads(p.stdout)["parameters"]]
        self.assertEqual(names, ["beta.%d" % i for i in range(1, 11)])
        self.assertNotIn("categorical", run(["check", self.write_config(logistic_config())]).stdout)

    def test_one_bad_cell_in_a_numeric_column(self):
        for field, text in DIRTY:
            for line in (2, 60):  # the first value (once the guess), and one further down
                with self.subTest(field=field, line=line):
                    csv = self.dirty_seed(field, line)
                    for command, p in self.fit_and_check(logistic_config(csv)):
                        with self.subTest(command=command):
                            if text is None:
                                self.assert_error(p, 65, where="%s:%d" % (csv, line), contains="ragged row")
                                continue
                            self.assert_error(p, 65, where="%s:%d" % (csv, line),
                                              contains="column 'x1' holds numbers, but 1 of its 100 values is "
                                                       "not: '%s'" % text)
                            self.assertIn("/data/missing", p.stderr)
                            self.assertIn("list it in /data/categorical", p.stderr)

    def test_several_bad_cells_are_named_with_their_lines(self):
        lines = seed_lines()
        for at, field in ((3, "#DIV/0!"), (10, "-"), (20, "-"), (30, "n/a"), (40, "#REF!")):
            cells = lines[at - 1].split(",")
            cells[2] = field
            lines[at - 1] = ",".join(cells)
        csv = self.write("several.csv", "\n".join(lines) + "\n")
        for command, p in self.fit_and_check(logistic_config(csv)):
            with self.subTest(command=command):
                self.assert_error(p, 65, where=csv + ":3",
                                  contains="column 'x3' holds numbers, but 5 of its 100 values are not: '#DIV/0!' "
                                           "(also '-' at line 10, 'n/a' at line 30, ...)")

    def test_a_declared_categorical_column_takes_anything(self):
        csv = self.dirty_seed("#DIV/0!")
        cfg = logistic_config(csv, features=["x1", "x2"], categorical=["x1"], allow_many_levels=["x1"])
        out = run(["check", self.write_config(cfg)])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("categorical x1: 100 levels", out.stdout)

    def test_bytes_no_text_csv_holds(self):
        cases = [(b"0.5\x00", "control byte \\x00"), (b"\x00", "control byte \\x00"),
                 (b"1\x01", "control byte \\x01"), (b"\x1b[0m", "control byte \\x1b"),
                 (b"caf\xe9", "byte \\xe9, which is not UTF-8"), (b"\xff\xfe", "byte \\xff, which is not UTF-8")]
        for field, phrase in cases:
            for line in (2, 50):
                with self.subTest(field=field, line=line):
                    csv = self.dirty_seed(field, line)
                    for command, p in self.fit_and_check(logistic_config(csv)):
                        with self.subTest(command=command):
                            self.assert_error(p, 65, where="%s:%d" % (csv, line), contains=phrase)
        # In a categorical column: the label is refused, never a level.
        rows = ["y,x,g"] + ["%d,%d,%s" % (i % 2, i, "ab"[i % 2]) for i in range(20)]
        rows[7] = "0,6,caf\xe9"
        csv = self.write("labels.csv", ("\n".join(rows) + "\n").encode("latin-1"), mode="wb")
        cfg = {"data": {"csv": csv}, "model": {"likelihood": "normal", "formula": "x ~ g"}}
        for command, p in self.fit_and_check(cfg):
            with self.subTest(command=command):
                self.assert_error(p, 65, where=csv + ":8", contains="column 'g': 'caf\\xe9' holds byte \\xe9, which is not UTF-8")
        # A UTF-16 file: its header's NULs, or its byte order mark, at line 1.
        with open(SEED_CSV) as f:
            text = f.read()
        for encoding, phrase in (("utf-16-le", "holds control byte \\x00"),
                                 ("utf-16", "the file is UTF-16 (it starts with a UTF-16 byte order mark)")):
            utf16 = self.write(encoding + ".csv", text.encode(encoding), mode="wb")
            for command, p in self.fit_and_check(logistic_config(utf16)):
                with self.subTest(command=command, encoding=encoding):
                    self.assert_error(p, 65, where=utf16 + ":1", contains=phrase)
        # In a column the model does not use: not read, not an error.
        csv = self.dirty_seed(b"caf\xe9", 5)
        p = run(["check", self.write_config(logistic_config(csv, features=["x2", "x3"]))])
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_text_columns_stay_categorical_and_fit_says_so(self):
        # A first value that is a number, then labels: categorical, read again as text.
        rows = ["y,x,g"] + ["%.1f,%d,%s" % (0.3 * i, i % 7, "7" if i == 0 else "abc"[i % 3]) for i in range(30)]
        csv = self.write("mixed.csv", "\n".join(rows) + "\n")
        cfg = self.write_config({"data": {"csv": csv}, "model": {"likelihood": "normal", "formula": "y ~ x + g"}})
        out = run(["check", cfg])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("categorical g: 4 levels: 7, a, b, c; byte order", out.stdout)
        p = run(["fit", cfg, "--threads", "1"])
        self.assertEqual(p.returncode, 0, p.stderr)
        notes = [l for l in p.stderr.splitlines() if "read as categorical" in l]
        self.assertEqual(len(notes), 1, p.stderr)
        self.assertIn("column 'g' is read as categorical (not all its values are numbers): 4 levels", notes[0])
        labels = [q.get("label") for q in json.loads(p.stdout)["parameters"]]
        self.assertIn("g[c]", labels)
        # --quiet and --log-level warn silence it; a declared column is not noted.
        self.assertNotIn("read as categorical", run(["fit", cfg, "--log-level", "warn"]).stderr)
        declared = self.write_config({"data": {"csv": csv, "categorical": ["g"]},
                                      "model": {"likelihood": "normal", "formula": "y ~ x + g"}}, "declared.json")
        self.assertNotIn("read as categorical", run(["fit", declared]).stderr)

    def test_many_levels_in_a_population_level_term(self):
        lines = seed_lines()
        lines[0] += ",id"
        for i in range(1, len(lines)):
            lines[i] += ",p%03d" % i
        csv = self.write("ids.csv", "\n".join(lines) + "\n")
        cfg = logistic_config(csv, features=["x1", "id"])
        for command, p in self.fit_and_check(cfg):
            with self.subTest(command=command):
                self.assert_error(p, 65, where=csv + ":1",
                                  contains="column 'id' has 100 levels in the 100 rows used")
                self.assertIn("(1 | id)", p.stderr)
                self.assertIn("/data/allow_many_levels", p.stderr)
        # Declared categorical: still refused; allowed: x1 and one indicator per id (no intercept).
        cfg["data"]["categorical"] = ["id"]
        self.assert_error(run(["check", self.write_config(cfg)]), 65, where=csv + ":1")
        cfg["data"]["allow_many_levels"] = ["id"]
        out = run(["check", self.write_config(cfg)])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("100 rows, 101 features", out.stdout)
        self.assertIn("categorical id: 100 levels", out.stdout)
        # As a group term, fine; a name that is no column is a config error at its pointer.
        group = {"data": {"csv": csv}, "model": {"likelihood": "bernoulli_logit", "formula": "y ~ x1 + (1 | id)"}}
        self.assertEqual(run(["check", self.write_config(group)]).returncode, 0)
        cfg["data"]["allow_many_levels"] = ["idd"]
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/data/allow_many_levels/0",
                          contains="did you mean 'id'?")
        # A few levels over many rows is no ID: 9 levels (below the floor of 10) in 12 rows.
        rows = ["y,g"] + ["%d,l%d" % (i, i % 9) for i in range(12)]
        small = self.write("small.csv", "\n".join(rows) + "\n")
        self.assertEqual(run(["check", self.write_config(
            {"data": {"csv": small}, "model": {"likelihood": "normal", "formula": "y ~ g"}})]).returncode, 0)

    def big_file(self, name, dirty=()):
        """2000 rows, so that two ranks each read some: y, x1, x2, g (a label column)."""
        rows = ["y,x1,x2,g"]
        for i in range(2000):
            rows.append("%d,%.3f,%.3f,%s" % ((i * 7) % 3 == 0, ((i * 37) % 101) / 50.0 - 1, ((i * 13) % 17) / 8.0 - 1,
                                             "abcd"[i % 4]))
        for line, field in dirty:
            cells = rows[line - 1].split(",")
            cells[1] = field
            rows[line - 1] = ",".join(cells)
        return self.write(name, "\n".join(rows) + "\n")

    @unittest.skipUnless(MPIRUN, "mpirun not found")
    def test_two_ranks_decide_the_same(self):
        cases = {
            # One bad cell in the second rank's rows only, then one in each rank's.
            "late": [(1900, "#DIV/0!")],
            "both": [(10, "-"), (1500, '"1,5"'), (1990, "#N/A")],
            # A control byte in the second rank's rows.
            "nul": [(1800, "1\x00")],
        }
        for name, dirty in cases.items():
            csv = self.big_file(name + ".csv", dirty)
            cfg = self.write_config({"data": {"csv": csv},
                                     "model": {"likelihood": "bernoulli_logit", "formula": "y ~ x1 + x2 + g"}},
                                    name + ".json")
            one = run(["check", cfg])
            self.assertEqual(one.returncode, 65, one.stderr)
            self.assert_error(one, 65)
            for command in ("check", "fit"):
                with self.subTest(case=name, command=command):
                    two = mpirun(2, [command, cfg] + (["--quiet"] if command == "fit" else []))
                    self.assertEqual(two.returncode, 65, two.stderr)
                    # Open MPI adds its own report of the exit after ours.
                    ours = [l for l in two.stderr.splitlines() if l.startswith("bayes-vi:")]
                    self.assertEqual(ours, [one.stderr.strip()])
                    self.assertEqual(two.stdout, "")
        both = run(["check", self.write_config({"data": {"csv": self.big_file("b.csv", cases["both"])},
                                                "model": {"likelihood": "bernoulli_logit",
                                                          "formula": "y ~ x1 + x2 + g"}}, "b.json")])
        self.assertIn("3 of its 2000 values are not: '-' (also '1,5' at line 1500, '#N/A' at line 1990)", both.stderr)
        # Mostly text with a number first, split over the ranks: categorical on both, same report.
        rows = ["y,x1,x2,g"] + ["%d,%.2f,%d,%s" % (i % 2, (i % 13) / 6.0, i % 5, "7" if i == 0 else "pq"[i % 2])
                                for i in range(2000)]
        csv = self.write("mixed.csv", "\n".join(rows) + "\n")
        cfg = self.write_config({"data": {"csv": csv},
                                 "model": {"likelihood": "bernoulli_logit", "formula": "y ~ x1 + g"}}, "mixed.json")
        one = run(["check", cfg])
        self.assertEqual(one.returncode, 0, one.stderr)
        self.assertIn("categorical g: 3 levels: 7, p, q; byte order", one.stdout)
        two = mpirun(2, ["check", cfg])
        self.assertEqual(two.returncode, 0, two.stderr)
        self.assertEqual(two.stdout, one.stdout)
        fit_one = run(["fit", cfg, "--quiet", "--threads", "1"])
        fit_two = mpirun(2, ["fit", cfg, "--quiet", "--threads", "1"])
        self.assertEqual(fit_one.returncode, 0, fit_one.stderr)
        self.assertEqual(fit_two.returncode, 0, fit_two.stderr)
        strip = lambda s: {k: v for k, v in json.loads(s).items() if k not in ("seconds", "threads", "ranks")}
        self.assertEqual(strip(fit_two.stdout), strip(fit_one.stdout))

    def test_predict_applies_the_fits_kinds(self):
        # Fitted with g categorical (labels a, b and 10) and x numeric.
        rows = ["y,x,g"] + ["%.2f,%d,%s" % (0.1 * i, i % 5, ["a", "b", "10"][i % 3]) for i in range(30)]
        csv = self.write("train.csv", "\n".join(rows) + "\n")
        cfg = self.write_config({"data": {"csv": csv}, "model": {"likelihood": "normal", "formula": "y ~ x + g"}})
        out = self.path("fit")
        p = run(["fit", cfg, "--quiet", "--output", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        # New rows whose g holds only numbers: still the labels '10' (and a known one), not numbers.
        new = self.write("new.csv", "y,x,g\n1,1,10\n2,2,10\n3,3,10\n")
        p = run(["predict", cfg, "--fit", out, "--data", new])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.strip().splitlines()), 4)
        # A label the fit never saw in g: refused at its line, as a level, not read as a number.
        unseen = self.write("unseen.csv", "y,x,g\n1,1,10\n2,2,11\n")
        self.assert_error(run(["predict", cfg, "--fit", out, "--data", unseen]), 65, where=unseen + ":3",
                          contains="level '11' is not one of the levels the model was fitted with")
        # New rows whose x is text from the first row: x stays numeric, the text an error at its line.
        text = self.write("text.csv", "y,x,g\n1,abc,a\n2,def,b\n")
        self.assert_error(run(["predict", cfg, "--fit", out, "--data", text]), 65, where=text + ":2",
                          contains="non-numeric value 'abc' (the model was fitted with this column as numeric)")
        # Control bytes in a used cell of new rows: 65 at the line.
        nul = self.write("nul.csv", b"y,x,g\n1,1,a\n2,2,b\x00\n", mode="wb")
        self.assert_error(run(["predict", cfg, "--fit", out, "--data", nul]), 65, where=nul + ":3",
                          contains="control byte \\x00")


if __name__ == "__main__":
    unittest.main()
