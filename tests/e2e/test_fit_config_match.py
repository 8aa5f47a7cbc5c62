"""The commands that read a fit (`loo`, `predict`) against the config they are given: a config
naming another response, default terms that are not the fit's, another number of categories, and
output paths that clash with each other or with the files read, are refused before any work with
one line and the exit code of SPEC.md (78 for a config that is not the fit's model, 64 for the
command line), never answered for the fit's model under the config's name."""
import json
import os
import unittest

from bvi_fit import run_fit, seed_config
from bvi_test import DATA_DIR, SEED_CSV, BinaryTestCase, run


class TestFitConfigMatch(BinaryTestCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._class_tmp = tempfile.TemporaryDirectory()
        tmp = cls._class_tmp.name
        # The seed data with a second response column, the first flipped.
        with open(SEED_CSV) as f:
            lines = f.read().splitlines()
        cls.csv = os.path.join(tmp, "two_responses.csv")
        with open(cls.csv, "w") as f:
            f.write(lines[0] + ",z\n")
            for line in lines[1:]:
                f.write(line + "," + ("1" if line.endswith("0") else "0") + "\n")
        cfg = seed_config(inference=None)
        cfg["data"]["csv"] = cls.csv
        cfg["data"]["features"] = ["x1", "x2", "x3"]
        cls.cfg = cfg
        cls.cfg_path = os.path.join(tmp, "fit.json")
        with open(cls.cfg_path, "w") as f:
            json.dump(cfg, f)
        cls.fit = os.path.join(tmp, "fit")
        p = run_fit([cls.cfg_path, "--output", cls.fit, "--quiet"])
        if p.returncode != 0:
            raise AssertionError("fit failed: " + p.stderr)

    @classmethod
    def tearDownClass(cls):
        cls._class_tmp.cleanup()

    def variant(self, name, **data):
        cfg = json.loads(json.dumps(self.cfg))
        for k, v in data.items():
            if v is None:
                cfg["data"].pop(k, None)
            else:
                cfg["data"][k] = v
        return self.write_config(cfg, name)

    def test_the_fits_own_config_is_accepted(self):
        for cmd in (["loo"], ["predict"]):
            p = run(cmd + [self.cfg_path, "--fit", self.fit])
            self.assertEqual(p.returncode, 0, p.stderr)

    def test_another_response_is_refused(self):
        other = self.variant("z.json", response="z")
        for cmd in ("loo", "predict"):
            p = run([cmd, other, "--fit", self.fit])
            self.assert_error(p, 78, where="/data/response", contains="'y'")
        # The same through a formula: its place is the formula.
        cfg = json.loads(json.dumps(self.cfg))
        del cfg["data"]["features"]
        del cfg["data"]["response"]
        cfg["model"].pop("intercept", None)
        cfg["model"]["formula"] = "z ~ 0 + x1 + x2 + x3"
        p = run(["loo", self.write_config(cfg, "formula.json"), "--fit", self.fit])
        self.assert_error(p, 78, where="/model/formula", contains="response")

    def test_default_terms_that_are_not_the_fits_are_refused(self):
        # No features: every other column (x1..x10 and z) is a term; the fit has three.
        p = run(["loo", self.variant("defaults.json", features=None), "--fit", self.fit])
        self.assert_error(p, 78, where="/data/features", contains="x1, x2, x3")
        # A fit made with the default terms is read back with them.
        cfg = seed_config(inference=None)
        cfg_path = self.write_config(cfg, "seed_defaults.json")
        fit = self.path("fit_defaults")
        self.assertEqual(run_fit([cfg_path, "--output", fit, "--quiet"]).returncode, 0)
        self.assertEqual(run(["loo", cfg_path, "--fit", fit]).returncode, 0)

    def test_another_number_of_categories_is_refused(self):
        cfg = {"data": {"csv": os.path.join(DATA_DIR, "lik_categorical_logit.csv")},
               "model": {"likelihood": "categorical_logit", "formula": "y ~ x1 + x2"}}
        path = self.write_config(cfg, "cat.json")
        fit = self.path("fit_cat")
        p = run_fit([path, "--output", fit, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(run(["predict", path, "--fit", fit]).returncode, 0)
        cfg["model"]["categories"] = 6
        p = run(["predict", self.write_config(cfg, "cat6.json"), "--fit", fit])
        self.assert_error(p, 78, where="/model/categories", contains="3 categories")

    def test_clashing_output_paths_are_refused_and_nothing_is_written(self):
        good = self.write("good.json", "good\n")
        same = os.path.join(os.path.dirname(good), ".", "good.json")
        p = run(["loo", self.cfg_path, "--fit", self.fit, "--output", good, "--pointwise", same])
        self.assert_error(p, 64, contains="same file")
        p = run(["predict", self.cfg_path, "--fit", self.fit, "--metrics", good, "--replicates", "5", same])
        self.assert_error(p, 64, contains="same file")
        with open(good) as f:
            self.assertEqual(f.read(), "good\n")
        # An output over a file the command reads: the fit's, the config, the data.
        summary = os.path.join(self.fit, "summary.json")
        with open(summary) as f:
            before = f.read()
        p = run(["loo", self.cfg_path, "--fit", self.fit, "--output", summary])
        self.assert_error(p, 64, contains="the fit's summary.json")
        p = run(["loo", self.cfg_path, "--fit", self.fit, "--pointwise", os.path.join(self.fit, "draws.csv")])
        self.assert_error(p, 64, contains="the fit's draws.csv")
        p = run(["predict", self.cfg_path, "--fit", self.fit, "--metrics", self.cfg_path])
        self.assert_error(p, 64, contains="the config")
        p = run(["predict", self.cfg_path, "--fit", self.fit, "--replicates", "2", self.csv])
        self.assert_error(p, 64, contains="the data")
        with open(summary) as f:
            self.assertEqual(f.read(), before)


if __name__ == "__main__":
    unittest.main()
