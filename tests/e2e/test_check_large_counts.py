"""`check` on counts beyond 2^63. A count response (and a binomial's trials) may be any integer-valued
double the likelihood accepts, so fit takes y = 1e19 or 1e300; check must then report the total as
the double it sums, not a long long that overflowed to -9223372036854775808. Small totals stay
exact integers."""
import json
import unittest

from bvi_test import BinaryTestCase, run


class CheckLargeCounts(BinaryTestCase):
    def check(self, likelihood, rows, trials=False):
        header = "x1,trials,y\n" if trials else "x1,y\n"
        csv_path = self.write(likelihood + ".csv", header + "".join(",".join(r) + "\n" for r in rows))
        data = {"csv": csv_path, "response": "y", "features": ["x1"]}
        if trials:
            data["trials"] = "trials"
        cfg = {"data": data, "model": {"likelihood": likelihood, "intercept": True}}
        p = run(["check", self.write(likelihood + ".json", json.dumps(cfg))])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("-9223372036854775808", p.stdout)
        return p.stdout

    def test_count_totals_beyond_long_long(self):
        for likelihood in ("poisson_log", "negative_binomial_log"):
            for big, total in (("1e19", "1e+19"), ("1e300", "1e+300")):
                with self.subTest(likelihood=likelihood, y=big):
                    out = self.check(likelihood, [("0.5", "3"), ("-1.0", big), ("0.2", "0")])
                    self.assertIn(", total %s, mean " % total, out)
        # below 2^53 the total is the exact integer it was
        out = self.check("poisson_log", [("0.5", "3"), ("-1.0", "4503599627370496"), ("0.2", "0")])
        self.assertIn(", total 4503599627370499, mean ", out)

    def test_binomial_totals_beyond_long_long(self):
        out = self.check("binomial_logit", [("0.5", "1e19", "1e19"), ("-1.0", "1e19", "5"), ("0.2", "4", "1")],
                         trials=True)
        self.assertIn(", total 1e+19, mean ", out)
        self.assertIn("per row, total 2e+19, 50 % successes", out)


if __name__ == "__main__":
    unittest.main()
