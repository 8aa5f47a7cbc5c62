"""cmake --install into a temporary prefix gives a working tool: the binary runs from there, its
--version names the project version, and the installed example config fits with the installed
data; the plotting script is installed beside it."""
import json
import os
import re
import shutil
import subprocess
import unittest

from bvi_test import BinaryTestCase, SOURCE_DIR

BUILD_DIR = os.environ.get("BVI_BUILD_DIR", os.path.join(SOURCE_DIR, "build"))


def project_version():
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt")) as f:
        return re.search(r"project\(bayes-vi VERSION ([0-9.]+)", f.read()).group(1)


@unittest.skipUnless(shutil.which("cmake"), "cmake not installed")
class Install(BinaryTestCase):
    def setUp(self):
        super().setUp()
        p = subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", self.path("prefix")], capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.bin = self.path("prefix/bin/bayes-vi")
        self.share = self.path("prefix/share/bayes-vi")

    def test_installed_files(self):
        for rel in ["bin/bayes-vi", "share/bayes-vi/configs/seed_logistic.json", "share/bayes-vi/data/seed_logistic.csv",
                    "share/bayes-vi/scripts/plot_posterior.py", "share/bayes-vi/scripts/slurm/fit.sbatch",
                    "share/doc/bayes-vi/README.md", "share/doc/bayes-vi/config.md",
                    "share/doc/bayes-vi/loo.md", "share/doc/bayes-vi/ppc.md",
                    "share/bayes-vi/scripts/plot_ppc.py"]:
            self.assertTrue(os.path.exists(self.path("prefix/" + rel)), rel)
        self.assertTrue(os.access(self.bin, os.X_OK))
        self.assertTrue(os.access(self.share + "/scripts/plot_posterior.py", os.X_OK))

    def test_version(self):
        p = subprocess.run([self.bin, "--version"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertTrue(p.stdout.startswith(project_version()), p.stdout)
        if os.path.isdir(os.path.join(SOURCE_DIR, ".git")):
            self.assertIn("(git ", p.stdout)

    def test_installed_config_fits_from_anywhere(self):
        # Relative data paths resolve against the config's folder, not the working directory.
        p = subprocess.run([self.bin, "fit", self.share + "/configs/seed_logistic.json", "--quiet"],
                           capture_output=True, text=True, cwd=self.tmp, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(json.loads(p.stdout)["parameters"]), 10)


if __name__ == "__main__":
    unittest.main()
