"""/data/reference_levels (R's relevel): a categorical column's chosen level comes first, so the
treatment contrasts are against it. The fit with trt's reference moved is the same likelihood
reparameterized: every coefficient is the difference of the default fit's, up to what the
independent normal(0, 10) priors, not invariant under the change, move (~1e-4 of a posterior sd
at 600 rows); a numeric column's level matches by value;
predict applies the fit's order to new rows; a group term's levels follow it too. Errors: a level
the column lacks, a numeric or unused column, an unknown column and a non-string level are 78 at
/data/reference_levels/COLUMN. Small data: a few CPU-seconds."""
import json
import random
import unittest

from bvi_test import BinaryTestCase, read_csv_rows, run

EFFECT = {"drug": -1.0, "drug+": -0.5, "placebo": 0.0}


def make_rows(n=600, seed=7):
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        trt = ["placebo", "drug", "drug+"][i % 3]
        dose = [1, 2, 3][(i // 3) % 3]
        x = rng.gauss(0, 1)
        y = 0.5 + EFFECT[trt] + 0.3 * dose + 0.8 * x + rng.gauss(0, 1)
        rows.append("%r,%s,%d,%r" % (y, trt, dose, x))
    return "y,trt,dose,x\n" + "\n".join(rows) + "\n"


class ReferenceLevels(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.csv = self.write("d.csv", make_rows())

    def config(self, reference=None, formula="y ~ trt + x", categorical=None, name="c.json"):
        data = {"csv": self.csv}
        if reference is not None:
            data["reference_levels"] = reference
        if categorical:
            data["categorical"] = categorical
        cfg = {"data": data, "model": {"likelihood": "normal", "formula": formula,
                                       "priors": {"beta": {"normal": {"loc": 0, "scale": 10}},
                                                  "alpha": {"normal": {"loc": 0, "scale": 10}},
                                                  "sigma": {"half_normal": {"scale": 5}}}},
               "inference": {"seed": 3}}
        return self.write_config(cfg, name)

    def fit(self, config, out=None):
        args = ["fit", config, "--quiet", "--threads", "1"] + (["--output", self.path(out)] if out else [])
        p = run(args)
        self.assertEqual(p.returncode, 0, p.stderr)
        return {q.get("label", q["name"]): q for q in json.loads(p.stdout)["parameters"]}

    def test_the_reference_moves_first(self):
        default = self.fit(self.config(name="default.json"))
        self.assertIn("trt[drug+]", default)  # sorted: drug is the reference
        self.assertIn("trt[placebo]", default)
        moved = self.fit(self.config({"trt": "placebo"}, name="moved.json"), out="fit")
        self.assertEqual([k for k in moved if k.startswith("trt")], ["trt[drug]", "trt[drug+]"])
        # The same model: placebo's effect against drug, negated, is drug's against placebo.
        sd = moved["trt[drug]"]["sd"]
        self.assertAlmostEqual(moved["trt[drug]"]["mean"], -default["trt[placebo]"]["mean"], delta=0.005 * sd)
        self.assertAlmostEqual(moved["trt[drug+]"]["mean"],
                               default["trt[drug+]"]["mean"] - default["trt[placebo]"]["mean"], delta=0.005 * sd)
        self.assertAlmostEqual(moved["x"]["mean"], default["x"]["mean"], delta=0.005 * moved["x"]["sd"])
        for level in ("drug", "drug+"):
            self.assertLess(abs(moved["trt[%s]" % level]["mean"] - EFFECT[level]), 4 * moved["trt[%s]" % level]["sd"])
        # predict reads new rows with the fit's order.
        new = self.write("new.csv", "y,trt,dose,x\n0,placebo,1,0\n0,drug,1,0\n")
        p = run(["predict", self.config({"trt": "placebo"}, name="moved.json"), "--fit", self.path("fit"),
                 "--data", new])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        with open(self.path("fit/draws.csv")) as f:
            lines = [l.strip().split(",") for l in f if not l.startswith("#")]
        header, draws = lines[0], [[float(v) for v in l] for l in lines[2:]]  # line 2: q's mean
        a, b = header.index("alpha"), header.index("beta.1")  # beta.1: trt[drug]
        self.assertAlmostEqual(float(rows[0]["mean"]), sum(d[a] for d in draws) / len(draws), delta=1e-9)
        self.assertAlmostEqual(float(rows[1]["mean"]), sum(d[a] + d[b] for d in draws) / len(draws), delta=1e-9)

    def test_check_and_a_kind_from_all_values(self):
        # check says the order was changed; a column whose first value reads as a number but
        # which is text (so categorical once all its values are read) takes a reference too.
        p = run(["check", self.config({"trt": "placebo"}, name="k.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("categorical trt: 3 levels: placebo, drug, drug+; byte order, placebo first "
                      "(/data/reference_levels)", p.stdout)
        rows = ["y,m"] + ["%d,%s" % (i % 3, ["1", "u", "v"][i % 3]) for i in range(60)]
        csv = self.write("m.csv", "\n".join(rows) + "\n")
        cfg = {"data": {"csv": csv, "reference_levels": {"m": "u"}},
               "model": {"likelihood": "normal", "formula": "y ~ m"}}
        p = run(["check", self.write_config(cfg, "m.json")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("features    m[1] m[v]", p.stdout)
        # fit and kfold too (their preflight reads text columns alone, keeping the first guess).
        p = run(["fit", self.write_config(cfg, "m.json"), "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([q["label"] for q in json.loads(p.stdout)["parameters"] if q["name"].startswith("beta")],
                         ["m[1]", "m[v]"])
        p = run(["kfold", self.write_config(cfg, "m.json"), "--folds", "3", "--output", self.path("kf")])
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_numeric_levels_and_group_terms(self):
        # dose read as categories: "3" (and "3.0", by value) first; as a grouping factor the
        # groups follow the same order.
        for level in ("3", "3.0"):
            got = self.fit(self.config({"dose": level}, formula="y ~ dose + x", categorical=["dose"],
                                       name="dose.json"))
            self.assertEqual([k for k in got if k.startswith("dose")], ["dose[1]", "dose[2]"])
        p = run(["fit", self.config({"trt": "placebo"}, formula="y ~ x + (1 | trt)", name="g.json"), "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        names = [q.get("label", "") for q in json.loads(p.stdout)["parameters"] if q.get("label", "").startswith("trt[")]
        self.assertEqual([n.split("]")[0] + "]" for n in names], ["trt[placebo]", "trt[drug]", "trt[drug+]"])

    def test_errors(self):
        cases = [({"trt": "plaecbo"}, "trt", "'plaecbo' is not a level of 'trt' in the rows used (its levels: drug, "
                                             "drug+, placebo)"),
                 ({"x": "1"}, "x", "'x' is numeric"),
                 ({"dose": "1"}, "dose", "factor(x) in a formula, or /data/categorical, reads it as one"),
                 ({"tret": "placebo"}, "tret", "no column 'tret'"),
                 ({"trt": 2}, "trt", "expected the reference level as a string")]
        for reference, column, contains in cases:
            with self.subTest(reference=reference):
                self.assert_error(run(["check", self.config(reference, formula="y ~ trt + x + dose")]), 78,
                                  where="/data/reference_levels/" + column, contains=contains)
        self.assert_error(run(["check", self.config({"dose": "1"}, formula="y ~ trt + x")]), 78,
                          where="/data/reference_levels/dose", contains="not a column of the model")
        self.assert_error(run(["check", self.config({"y": "1"}, formula="y ~ trt + x")]), 78,
                          where="/data/reference_levels/y", contains="'y' is the response")


if __name__ == "__main__":
    unittest.main()
