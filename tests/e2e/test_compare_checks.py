"""What `bayes-vi compare` (and `loo`) must refuse or flag beyond other data: fits of the same
responses in another row order (the row hash), a loo document whose pointwise file is not its own
(the values' sum against the document's elpd_loo), and kfold results mixed with loo ones (a
warning, and each model's criterion in the output)."""
import json
import os
import shutil
import subprocess
import unittest

from bvi_fit import load_json, run_fit
from bvi_test import BINARY, SEED_CSV, BinaryTestCase, run
from test_loo import LooFits, model_config


def seed_lines():
    with open(SEED_CSV) as f:
        lines = f.read().splitlines()
    return lines[0], lines[1:]


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


class TestRowOrder(LooFits):
    def shuffled_fit(self):
        """Model b fitted to the seed data's rows in reverse order: the same responses (the same
        response hash), other rows at each position."""
        head, body = seed_lines()
        ys = [l.split(",")[-1] for l in body]
        self.assertNotEqual(ys, ys[::-1])  # the order matters for these responses
        data = self.write("reversed.csv", "\n".join([head] + body[::-1]) + "\n")
        cfg = model_config(self.FEATURES_B)
        cfg["data"]["csv"] = data
        cp = self.write_config(cfg, "reversed.json")
        fit = self.path("fit_reversed")
        p = run_fit([cp, "--output", fit, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        return cp, fit

    def test_summary_and_loo_record_the_row_hash(self):
        d = json.loads(self.loo("a").stdout)
        summary = load_json(os.path.join(self.fits["a"][1], "summary.json"))["data"]
        self.assertRegex(summary["row_hash"], "^[0-9a-f]{16}$")
        self.assertEqual(d["row_hash"], summary["row_hash"])
        self.assertNotEqual(d["row_hash"], d["response_hash"])
        # Both fits are of the same rows.
        other = load_json(os.path.join(self.fits["b"][1], "summary.json"))["data"]
        self.assertEqual(other["row_hash"], summary["row_hash"])

    def test_compare_refuses_rows_in_another_order(self):
        cp, fit = self.shuffled_fit()
        a = load_json(os.path.join(self.fits["a"][1], "summary.json"))["data"]
        r = load_json(os.path.join(fit, "summary.json"))["data"]
        self.assertEqual(a["response_hash"], r["response_hash"])  # what the old check saw
        self.assertNotEqual(a["row_hash"], r["row_hash"])
        self.assert_error(run(["compare", self.fits["a"][1], fit]), 65, where=fit, contains="another order")
        # The same with loo documents.
        doc_a, pw_a = self.path("loo_a.json"), self.path("pw_a.csv")
        self.loo("a", "--output", doc_a, "--pointwise", pw_a)
        doc_r, pw_r = self.path("loo_r.json"), self.path("pw_r.csv")
        p = run(["loo", cp, "--fit", fit, "--output", doc_r, "--pointwise", pw_r])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assert_error(run(["compare", doc_a, doc_r]), 65, where=doc_r, contains="another order")

    def test_loo_refuses_a_fit_of_rows_in_another_order(self):
        cp, fit = self.shuffled_fit()
        # The config of the reversed rows with the fit of the original ones (the same model b).
        p = run(["loo", cp, "--fit", self.fits["b"][1]])
        self.assert_error(p, 65, contains="another order")

    def test_outputs_of_earlier_versions_have_no_row_hash(self):
        # A summary and loo documents without row_hash (as earlier versions wrote them) are
        # still taken: only the response hash is checked then.
        old = self.path("old_fit")
        shutil.copytree(self.fits["b"][1], old)
        summary = load_json(os.path.join(old, "summary.json"))
        del summary["data"]["row_hash"]
        write_json(os.path.join(old, "summary.json"), summary)
        p = run(["loo", self.fits["b"][0], "--fit", old])
        self.assertEqual(p.returncode, 0, p.stderr)
        docs = []
        for name in ("a", "b"):
            doc, pw = self.path("loo_%s.json" % name), self.path("pw_%s.csv" % name)
            self.loo(name, "--output", doc, "--pointwise", pw)
            d = load_json(doc)
            del d["row_hash"]
            write_json(doc, d)
            docs.append(doc)
        p = run(["compare"] + docs)
        self.assertEqual(p.returncode, 0, p.stderr)
        # An old document against a new fit folder too.
        p = run(["compare", docs[0], self.fits["b"][1]])
        self.assertEqual(p.returncode, 0, p.stderr)

    @unittest.skipUnless(shutil.which("mpirun"), "mpirun not installed")
    def test_mpi_fit_with_dropped_rows_has_the_row_hash_of_one_process(self):
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1")
        data = self.path("sim.csv")
        self.assertEqual(run(["simulate", "--rows", "6000", "--features", "3", "--seed", "8",
                              "--output", data]).returncode, 0)
        # Rows with a missing response near the top only: rank 0's shard is shorter than its
        # records, so rank 1's rows start at another index among the rows used than in the file.
        with open(data) as f:
            lines = f.read().splitlines()
        for i in range(5, 400, 9):
            cells = lines[i].split(",")
            cells[0 if lines[0].split(",")[0] == "y" else -1] = ""
            lines[i] = ",".join(cells)
        with open(data, "w") as f:
            f.write("\n".join(lines) + "\n")
        cfg = model_config()
        cfg["data"] = {"csv": data, "response": "y", "missing": "drop"}
        cfg = self.write_config(cfg)
        serial, ranks = self.path("serial"), self.path("ranks")
        p = run_fit([cfg, "--output", serial, "--quiet"])
        self.assertEqual(p.returncode, 0, p.stderr)
        p = subprocess.run(["mpirun", "--oversubscribe", "-n", "2", BINARY, "fit", cfg, "--output", ranks,
                            "--quiet"], capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        a = load_json(os.path.join(serial, "summary.json"))
        b = load_json(os.path.join(ranks, "summary.json"))
        self.assertGreater(a["dropped_rows"], 0)
        self.assertEqual(a["data"]["response_hash"], b["data"]["response_hash"])
        self.assertEqual(a["data"]["row_hash"], b["data"]["row_hash"])
        # And loo (one process, rows in file order) accepts the ranks' fit.
        q = run(["loo", cfg, "--fit", ranks, "--draws", "100"])
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertEqual(json.loads(q.stdout)["row_hash"], a["data"]["row_hash"])


class TestPointwiseFile(LooFits):
    def loo_doc(self, name, *extra):
        doc, pw = self.path("loo_%s.json" % name), self.path("pw_%s.csv" % name)
        self.loo(name, "--output", doc, "--pointwise", pw, *extra)
        return doc, pw

    def test_a_document_pointing_to_another_models_pointwise_file(self):
        a, pw_a = self.loo_doc("a")
        b, pw_b = self.loo_doc("b")
        d = load_json(a)
        d["pointwise_file"] = pw_b
        write_json(a, d)
        self.assert_error(run(["compare", a, b]), 65, where=pw_b, contains="elpd_loo")
        # A copy of the other model's file in the document's place (the same name).
        d["pointwise_file"] = pw_a
        write_json(a, d)
        shutil.copy(pw_b, pw_a)
        self.assert_error(run(["compare", a, b]), 65, where=pw_a, contains="elpd_loo")

    def test_one_value_edited(self):
        a, pw_a = self.loo_doc("a")
        b, _ = self.loo_doc("b")
        with open(pw_a) as f:
            lines = f.read().splitlines()
        cells = lines[7].split(",")
        cells[1] = repr(float(cells[1]) - 0.25)
        lines[7] = ",".join(cells)
        with open(pw_a, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.assert_error(run(["compare", a, b]), 65, where=pw_a, contains="elpd_loo")

    def test_a_row_fewer(self):
        a, pw_a = self.loo_doc("a")
        b, _ = self.loo_doc("b")
        with open(pw_a) as f:
            lines = f.read().splitlines()
        with open(pw_a, "w") as f:
            f.write("\n".join(lines[:-1]) + "\n")
        self.assert_error(run(["compare", a, b]), 65, where=pw_a, contains="rows")

    def test_subsampled_document_with_an_edited_value(self):
        a, pw_a = self.loo_doc("a", "--subsample", "40")
        b, _ = self.loo_doc("b", "--subsample", "40")
        self.assertEqual(run(["compare", a, b]).returncode, 0)
        with open(pw_a) as f:
            lines = f.read().splitlines()
        i = next(i for i in range(1, len(lines)) if lines[i].split(",")[2] == "1")
        cells = lines[i].split(",")
        cells[3] = repr(float(cells[3]) - 0.25)
        lines[i] = ",".join(cells)
        with open(pw_a, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.assert_error(run(["compare", a, b]), 65, where=pw_a, contains="elpd_loo")


class TestCriteria(LooFits):
    def test_kfold_and_loo_together_warn_and_say_which_is_which(self):
        kf = self.path("kf")
        p = run(["kfold", self.fits["a"][0], "--folds", "4", "--output", kf])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc, pw = self.path("loo_b.json"), self.path("pw_b.csv")
        self.loo("b", "--output", doc, "--pointwise", pw)
        kdoc = os.path.join(kf, "kfold.json")
        for other in (doc, self.fits["b"][1]):
            p = run(["compare", kdoc, other])
            self.assertEqual(p.returncode, 0, p.stderr)
            warnings = [l for l in p.stderr.splitlines() if l.startswith("bayes-vi: warning:") and "kfold" in l]
            self.assertEqual(len(warnings), 1, p.stderr)
            models = {m["model"]: m for m in json.loads(p.stdout)["models"]}
            self.assertEqual(models[kdoc]["criterion"], "kfold")
            self.assertEqual(models[other]["criterion"], "loo")
        # The table says it too, in a column of its own.
        p = run(["compare", kdoc, doc, "--format", "table"])
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0].split()[-1], "criterion")
        self.assertEqual(sorted(l.split()[-1] for l in lines[1:3]), ["kfold", "loo"])
        # Loo documents alone: no warning, no column, and each model's criterion in the JSON.
        doc_a, pw_a = self.path("loo_a.json"), self.path("pw_a.csv")
        self.loo("a", "--output", doc_a, "--pointwise", pw_a)
        p = run(["compare", doc_a, doc, "--format", "table"])
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertNotIn("criterion", p.stdout)
        self.assertEqual([m["criterion"] for m in json.loads(run(["compare", doc_a, doc]).stdout)["models"]],
                         ["loo", "loo"])
        # A kfold result among subsampled loo documents is named as one.
        sub, sub_pw = self.path("sub_b.json"), self.path("sub_b.csv")
        self.loo("b", "--subsample", "40", "--output", sub, "--pointwise", sub_pw)
        p = run(["compare", kdoc, sub])
        self.assert_error(p, 65, where=kdoc, contains="is a kfold result and others are subsampled")


if __name__ == "__main__":
    unittest.main()
