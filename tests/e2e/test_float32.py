"""data.dtype float32: the seed fit in single precision (features and GEMMs in float, every sum
over rows in double) lands where the float64 fit lands: each posterior mean within 1e-3."""
import json
import unittest

from bvi_test import BinaryTestCase, SEED_CSV, SOURCE_DIR, run


class Float32SeedFit(BinaryTestCase):
    def fit(self, dtype):
        cfg = json.load(open(SOURCE_DIR + "/configs/seed_logistic.json"))
        cfg["data"]["csv"] = SEED_CSV
        cfg["data"]["dtype"] = dtype
        p = run(["fit", self.write_config(cfg, dtype + ".json"), "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def test_means_agree_with_float64(self):
        f64, f32 = self.fit("float64"), self.fit("float32")
        names = [q["name"] for q in f64["parameters"]]
        self.assertEqual(names, [q["name"] for q in f32["parameters"]])
        self.assertEqual(len(names), 10)
        for a, b in zip(f64["parameters"], f32["parameters"]):
            self.assertLessEqual(abs(a["mean"] - b["mean"]), 1e-3, (a["name"], a["mean"], b["mean"]))
            self.assertLessEqual(abs(a["sd"] - b["sd"]), 1e-3, (a["name"], a["sd"], b["sd"]))
        self.assertLessEqual(abs(f64["elbo"] - f32["elbo"]), 1e-2 * abs(f64["elbo"]))

    def test_float32_is_not_float64_in_disguise(self):
        # The two precisions must actually differ somewhere, or the test above proves nothing.
        f64, f32 = self.fit("float64"), self.fit("float32")
        self.assertNotEqual([q["mean"] for q in f64["parameters"]], [q["mean"] for q in f32["parameters"]])


if __name__ == "__main__":
    unittest.main()
