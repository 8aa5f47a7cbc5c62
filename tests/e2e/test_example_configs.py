"""Every example config under configs/ passes `check`, and configs/likelihoods/ has one per
likelihood the config reference lists, each naming its own likelihood and reading its bundled
data under data/, regenerated identically by data/make_likelihood_data.py. The multilevel
examples (configs/multilevel/) also evaluate their log joint, and their data is what
data/make_multilevel_data.py writes."""
import filecmp
import glob
import json
import os
import shutil
import subprocess
import unittest

import likelihood_models as lm
from bvi_test import BinaryTestCase, SOURCE_DIR, run

CONFIGS = sorted(glob.glob(os.path.join(SOURCE_DIR, "configs", "**", "*.json"), recursive=True))


class ExampleConfigs(BinaryTestCase):
    def test_every_example_config_checks(self):
        self.assertGreaterEqual(len(CONFIGS), 7)
        for path in CONFIGS:
            with self.subTest(config=os.path.relpath(path, SOURCE_DIR)):
                p = run(["check", path])
                self.assertEqual(p.returncode, 0, p.stderr)

    def test_one_per_likelihood(self):
        for family in lm.FAMILIES:
            with self.subTest(likelihood=family):
                path = os.path.join(SOURCE_DIR, "configs", "likelihoods", family + ".json")
                self.assertEqual(json.load(open(path))["model"]["likelihood"], family)
                p = run(["check", path])
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("lik_%s.csv: 200 rows, 3 features" % family, p.stdout)

    def test_bundled_data_is_what_the_script_writes(self):
        # The script writes next to itself: run a copy in a temporary folder and compare.
        shutil.copy(os.path.join(SOURCE_DIR, "data", "make_likelihood_data.py"), self.tmp)
        subprocess.run(["/usr/bin/python3", os.path.join(self.tmp, "make_likelihood_data.py")], check=True)
        for family in lm.FAMILIES:
            name = "lik_%s.csv" % family
            self.assertTrue(filecmp.cmp(os.path.join(self.tmp, name), os.path.join(SOURCE_DIR, "data", name),
                                        shallow=False), name)

    def test_multilevel_examples_evaluate(self):
        configs = sorted(glob.glob(os.path.join(SOURCE_DIR, "configs", "multilevel", "*.json")))
        self.assertEqual(len(configs), 4)
        for path in configs:
            with self.subTest(config=os.path.basename(path)):
                # A few steps of a fit for the parameter names and a point (the approximation's mean,
                # draws.csv's first row, on the outputs' scale), then eval there: a finite value.
                cfg = json.load(open(path))
                cfg["data"]["csv"] = os.path.normpath(os.path.join(os.path.dirname(path), cfg["data"]["csv"]))
                cfg["inference"] = {"max_iterations": 2, "draws_per_step": 8, "output_draws": 1,
                                    "final_elbo_draws": 1000, "eval_elbo": 1, "elbo_samples": 8}
                local = self.write_config(cfg, os.path.basename(path))
                out = self.path(os.path.basename(path) + ".out")
                p = run(["fit", local, "--quiet", "--output", out])
                self.assertEqual(p.returncode, 0, p.stderr)
                with open(os.path.join(out, "draws.csv")) as f:
                    rows = [l.strip() for l in f if not l.startswith("#")]
                header, mean = rows[0].split(",")[3:], rows[1].split(",")[3:]
                params = ",".join(header) + "\n" + ",".join(mean) + "\n"
                p = run(["eval", path, "--params", "-", "--grad"], stdin=params)
                self.assertEqual(p.returncode, 0, p.stderr)
                values = [float(v) for v in p.stdout.splitlines()[1].split(",")]
                self.assertEqual(len(values), 1 + len(header))
                self.assertTrue(all(v == v and abs(v) < float("inf") for v in values))

    def test_multilevel_data_is_what_the_script_writes(self):
        shutil.copy(os.path.join(SOURCE_DIR, "data", "make_multilevel_data.py"), self.tmp)
        subprocess.run(["/usr/bin/python3", os.path.join(self.tmp, "make_multilevel_data.py")], check=True)
        for name in ("ml_radon.csv", "ml_sleep.csv", "ml_survey.csv", "ml_clinics.csv"):
            self.assertTrue(filecmp.cmp(os.path.join(self.tmp, name), os.path.join(SOURCE_DIR, "data", name),
                                        shallow=False), name)


if __name__ == "__main__":
    unittest.main()
