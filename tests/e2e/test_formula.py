"""/model/formula: a formula and the structured config it stands for give the same fit, byte for
byte (summary apart from timing, draws.csv); check --explain prints that structured config, which
fits the same again; every malformed formula is one config error at /model/formula with the
column and the place; a formula excludes the keys it stands for; offset(log(t)) is the exposure t;
factor(x) reads x as categories."""
import json
import os
import unittest

import multilevel_models as mm
from bvi_test import BinaryTestCase, run

TIMING = {"seconds", "threads", "ranks"}
INFERENCE = {"max_iterations": 30, "draws_per_step": 64, "output_draws": 50, "final_elbo_draws": 1000,
             "seed": 4}


class Formula(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.csv = self.path("data.csv")
        mm.write_csv(self.csv, mm.simulate("bernoulli_logit", 400, seed=3))

    def fit(self, cfg, name):
        out = self.path(name)
        p = run(["fit", self.write_config(cfg, name + ".json"), "--quiet", "--output", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "summary.json")) as f:
            summary = {k: v for k, v in json.load(f).items() if k not in TIMING}
        with open(os.path.join(out, "draws.csv"), "rb") as f:
            draws = f.read()
        return summary, draws

    def test_formula_and_structured_form_fit_the_same(self):
        formula = {"data": {"csv": self.csv},
                   "model": {"likelihood": "bernoulli_logit",
                             "formula": "y ~ x * sex + (1 + x | county) + (1 | school)"},
                   "inference": INFERENCE}
        structured = {"data": {"csv": self.csv, "response": "y", "features": ["x", "sex", "x:sex"]},
                      "model": {"likelihood": "bernoulli_logit", "intercept": True,
                                "groups": [{"by": "county", "terms": ["x"]}, {"by": ["school"]}]},
                      "inference": INFERENCE}
        a = self.fit(formula, "formula")
        b = self.fit(structured, "structured")
        # The summaries name their own config files; all else is the same.
        self.assertNotEqual(a[0]["data"].pop("config"), b[0]["data"].pop("config"))
        self.assertEqual(a[0], b[0])
        self.assertEqual(a[1], b[1])
        self.assertIn("r_county.6.2", [p["name"] for p in a[0]["parameters"]])
        # check --explain prints the structured form, with the defaults filled in; it fits the same.
        explain = run(["check", self.write_config(formula, "f.json"), "--explain"])
        self.assertEqual(explain.returncode, 0, explain.stderr)
        resolved = json.loads(explain.stdout)
        self.assertNotIn("formula", resolved["model"])
        self.assertEqual(resolved["data"]["features"], ["x", "sex", "x:sex"])
        self.assertEqual(resolved["model"]["groups"][0]["by"], ["county"])
        # The same numbers; only the reasons for the method and family differ (given, not chosen).
        explained = self.fit(resolved, "explained")
        reasons = ("method_choice", "algorithm_choice")
        for key in reasons:
            self.assertEqual(explained[0][key], "given in the config")
        explained[0]["data"].pop("config")
        self.assertEqual({k: v for k, v in explained[0].items() if k not in reasons},
                         {k: v for k, v in a[0].items() if k not in reasons})
        self.assertEqual(explained[1], a[1])

    def fits_alike(self, formula, structured):
        """The two configs' fits, byte for byte apart from the config paths; the formula's."""
        a = self.fit(formula, "formula")
        b = self.fit(structured, "structured")
        a[0]["data"].pop("config")
        b[0]["data"].pop("config")
        self.assertEqual(a[0], b[0])
        self.assertEqual(a[1], b[1])
        return a[0]

    def test_offset_log_is_the_exposure(self):
        # offset(log(t)), as R writes an exposure, stands for /data/exposure t: the same fit byte
        # for byte; beside /data/exposure it is refused like every key a formula stands for.
        rows = ["y,x,t"] + ["%d,%r,%r" % (int(3 * t * (1 + 0.2 * x) + 0.5), x, t)
                            for x, t in ((i % 7 - 3.0, 1.0 + (i % 5)) for i in range(200))]
        csv = self.write("counts.csv", "\n".join(rows) + "\n")
        formula = {"data": {"csv": csv}, "model": {"likelihood": "poisson_log", "formula": "y ~ x + offset(log(t))"},
                   "inference": INFERENCE}
        structured = {"data": {"csv": csv, "response": "y", "features": ["x"], "exposure": "t"},
                      "model": {"likelihood": "poisson_log", "intercept": True}, "inference": INFERENCE}
        summary = self.fits_alike(formula, structured)
        self.assertAlmostEqual([p for p in summary["parameters"] if p["name"] == "alpha"][0]["mean"], 1.1, delta=0.1)
        formula["data"]["exposure"] = "t"
        self.assert_error(run(["check", self.write_config(formula, "both.json")]), 78, where="/data/exposure",
                          contains="given by /model/formula as well")

    def test_factor_reads_a_numeric_column_as_categories(self):
        # factor(dose), as R users write numeric codes, stands for /data/categorical ["dose"]:
        # the same fit byte for byte, one coefficient per level but the first.
        rows = ["y,x,dose"] + ["%r,%r,%d" % (0.3 * (i % 3) + 0.1 * (i % 7), (i % 7) - 3.0, 10 * (i % 3 + 1))
                               for i in range(120)]
        csv = self.write("doses.csv", "\n".join(rows) + "\n")
        priors = {"sigma": {"half_normal": {"scale": 1}}}
        formula = {"data": {"csv": csv}, "model": {"likelihood": "normal", "formula": "y ~ x + factor(dose)",
                                                   "priors": priors}, "inference": INFERENCE}
        structured = {"data": {"csv": csv, "response": "y", "features": ["x", "dose"], "categorical": ["dose"]},
                      "model": {"likelihood": "normal", "intercept": True, "priors": priors}, "inference": INFERENCE}
        summary = self.fits_alike(formula, structured)
        self.assertEqual([p["label"] for p in summary["parameters"] if p["name"].startswith("beta")],
                         ["x", "dose[20]", "dose[30]"])

    def test_a_fit_serves_its_config_whatever_the_term_order(self):
        # The design puts terms in order of degree as R does (x, sex, x:sex), whatever order the
        # formula wrote them in; predict and loo, given the fit's own config, must take it as that
        # model's fit (they compared the written order with the fit's and refused it, exit 78).
        cfg = {"data": {"csv": self.csv},
               "model": {"likelihood": "bernoulli_logit", "formula": "y ~ x:sex + x + sex + (1 | county)"},
               "inference": INFERENCE}
        path = self.write_config(cfg, "interaction_first.json")
        out = self.path("interaction_first")
        p = run(["fit", path, "--quiet", "--output", out])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "summary.json")) as f:
            labels = [q["label"] for q in json.load(f)["parameters"] if q["name"].startswith("beta")]
        self.assertEqual(labels[0], "x")
        self.assertTrue(labels[-1].startswith("x:sex"), labels)
        for command in (["predict", path, "--fit", out, "--data", self.csv],
                        ["loo", path, "--fit", out]):
            with self.subTest(command=command[0]):
                p = run(command)
                self.assertEqual(p.returncode, 0, p.stderr)
        # A config whose terms differ (not only in order) is still another model's.
        cfg["model"]["formula"] = "y ~ x + sex + (1 | county)"
        self.assert_error(run(["loo", self.write_config(cfg, "other.json"), "--fit", out]), 78,
                          where="/data/features", contains="was made with the terms x, sex, x:sex")

    def assert_formula_error(self, formula, contains, where="/model/formula", extra=None):
        cfg = {"data": {"csv": self.csv}, "model": {"likelihood": "bernoulli_logit", "formula": formula}}
        for edit in extra or []:
            edit(cfg)
        path = self.write_config(cfg)
        for command in (["check", path], ["fit", path, "--quiet"]):
            self.assert_error(run(command), 78, where=where, contains=contains)

    def test_formula_errors(self):
        cases = [
            ("y ~ x + (1 | county", "col 9: unbalanced '(': no ')' after it: y ~ x + ^(1 | county"),
            ("y ~ x + xx", "col 9: unknown column 'xx' (did you mean 'x'?): y ~ x + ^xx"),
            ("y ~ x + (1 | countyy)", "col 14: unknown column 'countyy' (did you mean 'county'?)"),
            ("y ~ x + + z", "col 9: empty term"),
            ("y ~ x | county", "col 7: '|' outside parentheses"),
            ("y ~ x + y", "col 9: the response 'y' cannot also be a predictor"),
            ("y ~ x + z + x", "col 13: duplicate term 'x' (already at col 5)"),
            ("y ~ (1 | county) + (x | county)", "already has a term"),
            ("yy ~ x", "col 1: unknown column 'yy' (did you mean 'y'?)"),
            ("y ~ x + offset(z)", "takes no offset"),
            ("y ~ x + offset(log(z))", "takes no exposure"),
            ("y ~ x + offset(sqrt(z))", "col 16: only log() inside offset()"),
        ]
        for formula, contains in cases:
            with self.subTest(formula=formula):
                if "takes no" in contains:
                    self.assert_formula_error(formula, contains,
                                              where="/data/exposure" if "log" in formula else "/data/offset")
                else:
                    self.assert_formula_error(formula, contains)

    def test_a_formula_excludes_the_keys_it_stands_for(self):
        for key, edit in (("/data/response", lambda c: c["data"].update(response="y")),
                          ("/data/features", lambda c: c["data"].update(features=["x"])),
                          ("/model/intercept", lambda c: c["model"].update(intercept=True)),
                          ("/model/groups", lambda c: c["model"].update(groups=[]))):
            with self.subTest(key=key):
                self.assert_formula_error("y ~ x", "given by /model/formula as well", where=key, extra=[edit])
        self.assert_formula_error(17, "expected a string")


if __name__ == "__main__":
    unittest.main()
