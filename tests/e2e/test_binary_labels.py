"""A binary response as text (R's factor: "No"/"Yes"), with /data/levels [failure, success]: the
labels read as 0 and 1, so the fit, its summary numbers and draws are byte for byte those of the
same rows coded 0/1, for both links; check names the success label; predict reads labelled rows
and scores them as the 0/1 rows; loo runs. Errors: text without the list says what is missing (65
at FILE:LINE), a label not in the list is 65 at its line, a list of other than 2 labels is 78.
Small data (150 rows): a few CPU-seconds."""
import json
import os
import random
import unittest

from bvi_test import BinaryTestCase, run

TIMING = {"seconds", "threads", "ranks"}
LEVELS = ["No", "Yes"]


def make_rows(n=150, seed=5):
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        x1, x2 = rng.gauss(0, 1), rng.gauss(0, 1)
        eta = -0.4 + 1.2 * x1 - 0.7 * x2
        y = 1 if rng.random() < 1 / (1 + 2.718281828459045 ** -eta) else 0
        rows.append((x1, x2, y))
    return rows


class BinaryLabels(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.rows = make_rows()
        self.ints = self.write("ints.csv", "x1,x2,y\n" + "".join("%r,%r,%d\n" % r for r in self.rows))
        # Labels with stray spaces on some cells: compared without them.
        self.text = self.write("text.csv", "x1,x2,y\n" + "".join(
            "%r,%r,%s\n" % (a, b, (" Yes" if i % 7 == 0 else "Yes") if y else "No")
            for i, (a, b, y) in enumerate(self.rows)))

    def config(self, csv, likelihood, levels=True, name="c.json"):
        data = {"csv": csv}
        if levels:
            data["levels"] = LEVELS
        cfg = {"data": data, "model": {"likelihood": likelihood, "formula": "y ~ x1 + x2"},
               "inference": {"seed": 2, "output_draws": 100}}
        return self.write_config(cfg, name)

    def fit(self, config, out):
        p = run(["fit", config, "--quiet", "--threads", "1", "--output", self.path(out)])
        self.assertEqual(p.returncode, 0, p.stderr)
        s = {k: v for k, v in json.loads(p.stdout).items() if k not in TIMING}
        with open(self.path(out + "/draws.csv"), "rb") as f:
            return s, f.read()

    def test_labels_give_the_integer_fit(self):
        for likelihood in ("bernoulli_logit", "bernoulli_probit"):
            with self.subTest(likelihood=likelihood):
                ints = self.config(self.ints, likelihood, levels=False, name="ints.json")
                text = self.config(self.text, likelihood, name="text.json")
                a, a_draws = self.fit(ints, "fa_" + likelihood)
                b, b_draws = self.fit(text, "fb_" + likelihood)
                self.assertEqual(a["parameters"], b["parameters"])
                self.assertEqual(a["elbo"], b["elbo"])
                self.assertEqual(a_draws, b_draws)
                with open(self.path("fb_%s/summary.json" % likelihood)) as f:
                    self.assertEqual(json.load(f)["data"]["levels"], LEVELS)
        ones = sum(r[2] for r in self.rows)
        p = run(["check", self.config(self.text, "bernoulli_logit")])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("y: %d of 150 are 1 (Yes; " % ones, p.stdout)

    def test_predict_and_loo_read_the_labels(self):
        text = self.config(self.text, "bernoulli_logit", name="text.json")
        ints = self.config(self.ints, "bernoulli_logit", levels=False, name="ints.json")
        self.fit(text, "fit")
        self.fit(ints, "fit_ints")
        a = run(["predict", text, "--fit", self.path("fit"), "--metrics", self.path("ma.json")])
        b = run(["predict", ints, "--fit", self.path("fit_ints"), "--metrics", self.path("mb.json")])
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(b.returncode, 0, b.stderr)
        self.assertEqual(a.stdout, b.stdout)
        with open(self.path("ma.json")) as f, open(self.path("mb.json")) as g:
            self.assertEqual(json.load(f), json.load(g))
        bad = self.write("new.csv", "x1,x2,y\n0.1,0.2,Yes\n0.3,0.1,Maybe\n")
        self.assert_error(run(["predict", text, "--fit", self.path("fit"), "--data", bad]), 65, where=bad + ":3",
                          contains="'Maybe' is not one of the categories in /data/levels")
        p = run(["loo", text, "--fit", self.path("fit")])
        self.assertEqual(p.returncode, 0, p.stderr)
        q = run(["loo", ints, "--fit", self.path("fit_ints")])
        self.assertEqual(json.loads(p.stdout)["elpd_loo"], json.loads(q.stdout)["elpd_loo"])

    def test_errors(self):
        self.assert_error(run(["check", self.config(self.text, "bernoulli_logit", levels=False)]), 65,
                          where=self.text + ":2", contains="a binary response as text needs /data/levels")
        with open(self.text) as f:
            lines = f.read().splitlines()
        lines[4] = lines[4].rsplit(",", 1)[0] + ",maybe"
        odd = self.write("odd.csv", "\n".join(lines) + "\n")
        self.assert_error(run(["check", self.config(odd, "bernoulli_logit")]), 65, where=odd + ":5",
                          contains="'maybe' is not one of the categories in /data/levels")
        for levels in (["No"], ["No", "Yes", "Maybe"]):
            cfg = {"data": {"csv": self.text, "levels": levels},
                   "model": {"likelihood": "bernoulli_probit", "formula": "y ~ x1"}}
            self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/data/levels",
                              contains="a binary response has 2 labels")
        cfg = {"data": {"csv": self.ints, "levels": LEVELS}, "model": {"likelihood": "poisson_log", "formula": "y ~ x1"}}
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/data/levels",
                          contains="poisson_log likelihood takes no levels")


if __name__ == "__main__":
    unittest.main()
