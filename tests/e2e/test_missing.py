"""Missing values (NA, empty, NaN) in the columns a model uses: by default one error with their
number and the first one's FILE:LINE; with data.missing "drop" the rows are left out with a
warning giving their number, and the log joint is that of the file without them; a missing
grouping level or an empty level name is missing too; columns the model does not use never
matter; predict leaves the fields of such rows empty, one output line per input row."""
import unittest

from bvi_test import BinaryTestCase, read_csv_rows, run

HEADER = "y,x,g,unused"
ROWS = ["%.2f,%.2f,%s,%s" % (0.3 * i - 2, ((i * 37) % 11) / 5 - 1, "ABCD"[i % 4], ["junk", "NA", ""][i % 3])
        for i in range(40)]


def with_cells(changes):
    """ROWS with (row index, column index, text) cells replaced."""
    rows = [r.split(",") for r in ROWS]
    for i, c, text in changes:
        rows[i][c] = text
    return [",".join(r) for r in rows]


class Missing(BinaryTestCase):
    def config(self, csv, missing=None, formula="y ~ x + (1 | g)"):
        data = {"csv": csv}
        if missing:
            data["missing"] = missing
        return {"data": data, "model": {"likelihood": "normal", "formula": formula,
                                        "priors": {"beta": {"normal": {"loc": 0, "scale": 2}},
                                                   "alpha": {"normal": {"loc": 0, "scale": 5}},
                                                   "sigma": {"half_normal": {"scale": 2}},
                                                   "sd_g": {"half_normal": {"scale": 1}}}}}

    def csv(self, rows, name="d.csv"):
        return self.write(name, HEADER + "\n" + "\n".join(rows) + "\n")

    def eval_at(self, cfg, point):
        names = ["alpha", "beta.1", "sigma", "sd_g.1"] + ["r_g.%d.1" % k for k in range(1, 5)]
        params = ",".join(names) + "\n" + ",".join(repr(point[n]) for n in names) + "\n"
        p = run(["eval", self.write_config(cfg, "e.json"), "--params", "-", "--grad"], stdin=params)
        self.assertEqual(p.returncode, 0, p.stderr)
        return read_csv_rows(p.stdout)[0], p.stderr

    def test_error_by_default_with_the_count_and_the_first_line(self):
        csv = self.csv(with_cells([(5, 1, "NA"), (9, 0, ""), (20, 2, "NaN")]))
        for command in ("check", "fit", "eval"):
            args = [command, self.write_config(self.config(csv))] + (["--params", csv] if command == "eval" else [])
            self.assert_error(run(args), 65, where=csv + ":7",
                              contains="column 'x': missing value 'NA'; 3 of 40 rows have missing values")
        p = run(["check", self.write_config(self.config(csv))])
        self.assertIn('"drop"', p.stderr)

    def test_drop_leaves_the_rows_out(self):
        changes = [(5, 1, "NA"), (9, 0, ""), (20, 2, "NaN"), (33, 2, "  "), (34, 0, "nan")]
        dropped = self.csv(with_cells(changes))
        kept = self.csv([r for i, r in enumerate(ROWS) if i not in {5, 9, 20, 33, 34}], "kept.csv")
        point = {"alpha": 0.2, "beta.1": -0.4, "sigma": 1.1, "sd_g.1": 0.7, "r_g.1.1": 0.1, "r_g.2.1": -0.2,
                 "r_g.3.1": 0.3, "r_g.4.1": 0.05}
        a, warning = self.eval_at(self.config(dropped, "drop"), point)
        b, _ = self.eval_at(self.config(kept), point)
        for key in a:
            self.assertAlmostEqual(float(a[key]), float(b[key]), delta=1e-10 * max(1, abs(float(b[key]))), msg=key)
        self.assertIn("dropped 5 of 40 rows with missing values", warning)
        self.assertIn("the first at %s:7: column 'x': missing value 'NA'" % dropped, warning)
        report = run(["check", self.write_config(self.config(dropped, "drop"))]).stdout
        self.assertIn("data        %s: 35 rows" % dropped, report)
        self.assertIn("missing     dropped 5 of 40 rows", report)

    def test_unused_columns_never_matter(self):
        # 'unused' holds text, NA and empty cells; a model without it neither parses nor counts them.
        report = run(["check", self.write_config(self.config(self.csv(ROWS)))])
        self.assertEqual(report.returncode, 0, report.stderr)
        self.assertIn("40 rows", report.stdout)

    def test_every_row_missing(self):
        csv = self.csv(with_cells([(i, 1, "NA") for i in range(40)]))
        self.assert_error(run(["check", self.write_config(self.config(csv, "drop"))]), 65, where=csv + ":2",
                          contains="every row has a missing value")

    def test_predict_leaves_rows_with_missing_values_empty(self):
        csv = self.csv(with_cells([(3, 1, "")]))
        cfg = self.config(csv, "drop")
        cfg["inference"] = {"max_iterations": 5, "output_draws": 20, "final_elbo_draws": 1000}
        path = self.write_config(cfg, "fit.json")
        p = run(["fit", path, "--quiet", "--output", self.path("fit")])
        self.assertEqual(p.returncode, 0, p.stderr)
        new = self.write("new.csv", "x,g\n0.5,A\n,B\n1.5,C\n")
        p = run(["predict", path, "--fit", self.path("fit"), "--data", new])
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), 4)
        self.assertEqual(lines[2], ",,,,")
        self.assertNotEqual(lines[1], ",,,,")
        # With data.missing "error", predict refuses such rows as fit does.
        cfg["data"]["missing"] = "error"
        p = run(["predict", self.write_config(cfg, "strict.json"), "--fit", self.path("fit"), "--data", new])
        self.assert_error(p, 65, where=new + ":3", contains="empty field")


if __name__ == "__main__":
    unittest.main()
