"""predict on a multilevel model: rows of known groups recomputed with numpy from draws.csv (the
design by hand, each group's r_F columns); a group the fit never saw gets effects drawn from the
fitted population per draw (the same bits for the same --seed, other draws for another seed, one
draw per group shared by its rows, centred on the population-level prediction); a level of a
population-level term the fit never saw is exit 65 at its FILE:LINE."""
import math
import unittest

import numpy as np

import multilevel_models as mm
from bvi_test import BinaryTestCase, read_csv_rows, run


def read_draws(path):
    with open(path) as f:
        rows = [l.strip() for l in f if not l.startswith("#")]
    header = rows[0].split(",")
    values = np.array([[float(v) for v in r.split(",")] for r in rows[2:]])
    return {h: values[:, i] for i, h in enumerate(header)}


class MultilevelPredict(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.cols = mm.simulate("normal", 300, seed=31)
        self.csv = self.path("d.csv")
        mm.write_csv(self.csv, self.cols)
        cfg = {"data": {"csv": self.csv},
               "model": {"likelihood": "normal", "formula": "y ~ x + sex + (1 + x | county)"},
               "inference": {"max_iterations": 40, "output_draws": 400, "seed": 5}}
        self.config = self.write_config(cfg)
        p = run(["fit", self.config, "--quiet", "--output", self.path("fit")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.draws = read_draws(self.path("fit/draws.csv"))
        self.levels = sorted(set(self.cols["county"]))

    def linear(self, x, male):
        d = self.draws
        return d["alpha"] + d["beta.1"] * x + d["beta.2"] * male

    def test_known_groups_against_numpy(self):
        new = self.write("new.csv", "x,sex,county\n0.5,male,Cairo\n-1.25,female,denver\n")
        p = run(["predict", self.config, "--fit", self.path("fit"), "--data", new])
        self.assertEqual(p.returncode, 0, p.stderr)
        got = read_csv_rows(p.stdout)
        for row, (x, male, county) in zip(got, [(0.5, 1.0, "Cairo"), (-1.25, 0.0, "denver")]):
            g = self.levels.index(county) + 1
            mu = self.linear(x, male) + self.draws["r_county.%d.1" % g] + x * self.draws["r_county.%d.2" % g]
            self.assertAlmostEqual(float(row["mean"]), mu.mean(), delta=1e-12)
            self.assertAlmostEqual(float(row["sd"]), mu.std(ddof=1), delta=1e-10)
            self.assertAlmostEqual(float(row["predictive_sd"]),
                                   math.sqrt(mu.var() + (self.draws["sigma"] ** 2).mean()), delta=1e-10)

    def test_new_groups_are_drawn_from_the_population(self):
        new = self.write("new.csv", "x,sex,county\n0.5,male,Oslo\n0.5,male,Oslo\n0.5,male,Rome\n0.5,male,Cairo\n")
        args = ["predict", self.config, "--fit", self.path("fit"), "--data", new]
        a, b, c = run(args), run(args + ["--seed", "5"]), run(args + ["--seed", "6"])
        for p in (a, b, c):
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(a.stdout, b.stdout)  # the fit's seed by default
        self.assertNotEqual(a.stdout, c.stdout)
        rows = read_csv_rows(a.stdout)
        self.assertEqual(rows[0], rows[1])  # one draw per new group, shared by its rows
        self.assertNotEqual(rows[0]["mean"], rows[2]["mean"])
        # Centred on the population-level prediction, with the group sds' spread added.
        pop = self.linear(0.5, 1.0)
        d = self.draws
        spread = np.sqrt(d["sd_county.1"] ** 2 + 0.25 * d["sd_county.2"] ** 2
                         + 2 * 0.5 * d["cor_county.2.1"] * d["sd_county.1"] * d["sd_county.2"])
        for row in rows[:3]:
            # mean over draws of pop_s + rho_s: pop's mean plus noise of sd ~ spread / sqrt(draws)
            self.assertLess(abs(float(row["mean"]) - pop.mean()), 5 * spread.mean() / math.sqrt(len(pop)))
            self.assertGreater(float(row["sd"]), float(rows[3]["sd"]))

    def test_an_unseen_level_of_a_population_level_term(self):
        new = self.write("new.csv", "x,sex,county\n0.5,male,Cairo\n0.1,other,Cairo\n")
        p = run(["predict", self.config, "--fit", self.path("fit"), "--data", new])
        self.assert_error(p, 65, where=new + ":3",
                          contains="column 'sex': level 'other' is not one of the levels the model was fitted with")


if __name__ == "__main__":
    unittest.main()
