"""Every example config under configs/ passes `check`, and configs/likelihoods/ has one per
likelihood the config reference lists, each naming its own likelihood and reading its bundled
data under data/, regenerated identically by data/make_likelihood_data.py."""
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


if __name__ == "__main__":
    unittest.main()
