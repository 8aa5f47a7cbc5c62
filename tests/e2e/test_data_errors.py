"""SPEC.md "Errors" for bad data: exit 65 at FILE:LINE (physical, 1-based, the header is line 1),
from fit, eval and check alike; and the same for eval's --params file, from a path or stdin."""
import os
import unittest

from bvi_errors import ErrorTestCase, edited, good_config, params_text

DATA = 65
NAMES = ["alpha", "beta.1", "beta.2"]
HEADER = "x1,x2,y"
ROWS = ["0.5,1.0,0", "-0.3,2.0,1", "1.2,-0.7,1", "0.1,0.4,0", "-1.5,0.9,1", "0.8,-1.1,0"]


def csv_with(line4=None, header=HEADER, rows=ROWS, insert=False):
    """The small dataset, with physical line 4 (the third data row) replaced or preceded."""
    rows = list(rows)
    if line4 is not None:
        if insert:
            rows.insert(2, line4)
        else:
            rows[2] = line4
    return header + "\n" + "\n".join(rows) + "\n"


# (test name, CSV text, line of the error, phrase in the message, config edits {pointer: value})
CASES = [
    ("non_numeric", csv_with("1.2,abc,1"), 4, "'abc'", {}),
    ("comma_decimal_separator", csv_with('1.2,"0,7",1'), 4, "'0,7'", {}),
    ("empty_feature_field", csv_with("1.2,,1"), 4, "empty field", {}),
    ("empty_response_field", csv_with("1.2,0.3,"), 4, "empty field", {}),
    ("blank_field", csv_with("1.2,   ,1"), 4, "empty field", {}),
    # NaN, like an empty cell or NA, is a missing value (data.missing).
    ("nan", csv_with("nan,0.3,1"), 4, "missing value 'nan'", {}),
    ("NA", csv_with("NA,0.3,1"), 4, "missing value 'NA'", {}),
    ("NaN_capitalized", csv_with("NaN,0.3,1"), 4, None, {}),
    ("inf", csv_with("1.2,inf,1"), 4, "non-finite", {}),
    ("negative_inf", csv_with("1.2,-inf,1"), 4, "non-finite", {}),
    ("infinity_word", csv_with("1.2,Infinity,1"), 4, None, {}),
    ("overflow", csv_with("1e400,0.3,1"), 4, "too large", {}),
    ("overflow_for_float32", csv_with("1e39,0.3,1"), 4, "too large for a float", {"/data/dtype": "float32"}),
    ("hex_number", csv_with("0x10,0.3,1"), 4, None, {}),
    ("response_two", csv_with("1.2,0.3,2"), 4, "'y'", {}),
    ("response_half", csv_with("1.2,0.3,0.5"), 4, "'y'", {}),
    ("response_negative", csv_with("1.2,0.3,-1"), 4, "'y'", {}),
    ("response_word", csv_with("1.2,0.3,yes"), 4, "'yes'", {}),
    ("response_nan", csv_with("1.2,0.3,nan"), 4, None, {}),
    ("ragged_short", csv_with("1.2,0.3"), 4, "expected 3 fields, found 2", {}),
    ("ragged_long", csv_with("1.2,0.3,1,9"), 4, "expected 3 fields, found 4", {}),
    ("trailing_comma", csv_with("1.2,0.3,1,"), 4, "found 4", {}),
    ("ragged_in_an_unused_column", "note,x1,x2,y\na,0.5,1.0,0\nb,-0.3,2.0,1\n1.2,-0.7,1\nd,0.1,0.4,0\n", 4,
     "ragged", {"/data/features": ["x1", "x2"]}),
    ("blank_line_in_the_middle", csv_with("", insert=True), 4, "blank line", {}),
    ("whitespace_line_in_the_middle", csv_with("   ", insert=True), 4, "ragged", {}),
    ("quote_inside_unquoted_field", csv_with('1.2,0"3,1'), 4, "inside an unquoted field", {}),
    ("text_after_closing_quote", csv_with('1.2,"0.3"x,1'), 4, "after a closing quote", {}),
    ("unterminated_quote", csv_with('1.2,"0.3,1'), 4, "unterminated", {}),
    ("missing_response_column", csv_with(None), 1, "'label'", {"/data/response": "label"}),
    ("response_differs_in_case", csv_with(None), 1, "did you mean 'y'", {"/data/response": "Y"}),
    ("missing_feature_column", csv_with(None), 1, "'x3'", {"/data/features": ["x1", "x3"]}),
    ("duplicate_header_column", csv_with(None, header="x1,x1,y"), 1, "2 times", {}),
    ("header_only", HEADER + "\n", 2, "no data rows", {}),
    ("header_only_without_newline", HEADER, 2, "no data rows", {}),
    ("header_and_blank_lines", HEADER + "\n\n\n", 2, "no data rows", {}),
    ("empty_file", "", 1, "empty", {}),
    ("blank_header", "\n" + csv_with(None), 1, "blank", {}),
    ("constant_feature_standardized", csv_with(None, rows=[r.split(",")[0] + ",3," + r[-1] for r in ROWS]), 1,
     "'x2' is constant", {"/data/standardize": True}),
    ("old_mac_line_endings", csv_with(None).replace("\n", "\r"), 1, "'y'", {}),
    ("bom_crlf_error_line", "\ufeff" + csv_with("1.2,abc,1").replace("\n", "\r\n"), 4, "'abc'", {}),
    ("last_row_without_newline", csv_with(None).rstrip("\n") + "\n1.2,0.3,7", 8, "'y'", {}),
    ("error_after_a_quoted_newline", "note,x1,x2,y\na,0.5,1.0,0\n\"two\nlines\",0.1,0.2,1\nc,zz,0.3,0\nd,1,2,1\n",
     5, "'zz'", {"/data/features": ["x1", "x2"]}),
    ("error_inside_a_quoted_newline", "x1,x2,y\n0.5,1.0,0\n0.1,\"0.2\n\",1\n0.3,0.3,0\n", 3, None, {}),
    # Another separator (R's write.csv2, a tab-separated export) is named as such at line 1.
    ("semicolon_separated", csv_with(None).replace(",", ";"), 1, "holding ';': fields must be separated by commas",
     {}),
    ("tab_separated", csv_with(None).replace(",", "\t"), 1, "holding tabs", {}),
    ("quoted_semicolon_separated", '"x1";"x2";"y"\n0.5;1.0;0\n', 1, "(fields must be separated by commas, not ';')",
     {}),
]


class DataErrors(ErrorTestCase):
    def check_all_commands(self, data_path, cfg, where, contains):
        cfg_path = self.write_json(cfg)
        params = self.write("params.csv", params_text(NAMES))
        lines = set()
        for args in (["check", cfg_path],
                     ["fit", cfg_path, "--threads", "2"],
                     ["eval", cfg_path, "--params", params]):
            with self.subTest(command=args[0]):
                lines.add(self.assert_fails(self.run_bvi(args), DATA, where, contains))
        self.assertEqual(len(lines), 1, "the same message from every command: %r" % lines)

    def config_for(self, text, edits=None, mode="w"):
        data = self.write("data.csv", text, mode)
        cfg = good_config(data)
        for pointer, value in (edits or {}).items():
            cfg = edited(cfg, pointer, value)
        return data, cfg

    def test_the_small_dataset_is_good(self):
        _, cfg = self.config_for(csv_with(None))
        for args in (["check"], ["fit"], ["eval", "--params", self.write("p.csv", params_text(NAMES))]):
            with self.subTest(command=args[0]):
                self.assert_ok(self.run_bvi([args[0], self.write_json(cfg)] + args[1:]))

    def test_bom_and_crlf_are_fine(self):
        _, cfg = self.config_for(("\ufeff" + csv_with(None)).replace("\n", "\r\n").encode("utf-8"), mode="wb")
        for args in (["check"], ["fit"], ["eval", "--params", self.write("p.csv", params_text(NAMES))]):
            with self.subTest(command=args[0]):
                self.assert_ok(self.run_bvi([args[0], self.write_json(cfg)] + args[1:]))

    def test_quoted_numbers_are_fine(self):
        _, cfg = self.config_for(csv_with('"1.2","-0.7","1"'))
        self.assert_ok(self.run_bvi(["check", self.write_json(cfg)]))

    def test_binary_garbage(self):
        data, cfg = self.config_for(bytes(range(256)) * 40, mode="wb")
        self.check_all_commands(data, cfg, data + ":1", None)

    def test_a_file_with_only_the_response_fits_the_intercept(self):
        # Every column but the response is a feature by default; here there are none, which is
        # an intercept-only model, not an error.
        _, cfg = self.config_for("y\n0\n1\n1\n0\n")
        for command in ("check", "fit"):
            with self.subTest(command=command):
                self.assert_ok(self.run_bvi([command, self.write_json(cfg)]))

    def test_error_deep_in_a_larger_file(self):
        rows = ["%.3f,%.3f,%d" % ((i % 17) / 7.0, (i % 5) - 2.0, i % 2) for i in range(6000)]
        rows[5000 - 2] = "0.5,oops,1"  # physical line 5000
        data, cfg = self.config_for(HEADER + "\n" + "\n".join(rows) + "\n")
        self.check_all_commands(data, cfg, data + ":5000", "'oops'")

    def test_the_first_of_two_errors_is_reported_whatever_the_threads(self):
        rows = ["%.3f,%.3f,%d" % ((i % 17) / 7.0, (i % 5) - 2.0, i % 2) for i in range(6000)]
        rows[5000 - 2] = "0.5,0.1,3"
        rows[3000 - 2] = "0.5,0.1"
        data, cfg = self.config_for(HEADER + "\n" + "\n".join(rows) + "\n")
        cfg_path = self.write_json(cfg)
        for threads in ("1", "4"):
            with self.subTest(threads=threads):
                self.assert_fails(self.run_bvi(["fit", cfg_path, "--threads", threads]), DATA, data + ":3000",
                                  "ragged")


def _make_case(text, line, contains, edits):
    def test(self):
        mode = "wb" if isinstance(text, bytes) else "w"
        data, cfg = self.config_for(text, edits, mode)
        self.check_all_commands(data, cfg, "%s:%d" % (data, line), contains)
    return test


for _name, _text, _line, _contains, _edits in CASES:
    setattr(DataErrors, "test_" + _name, _make_case(_text, _line, _contains, _edits))


class ParamsErrors(ErrorTestCase):
    """eval --params: every parameter must have a column; values are data (65) at FILE:LINE."""

    def setUp(self):
        super().setUp()
        self.cfg = self.write_json(good_config(self.write("data.csv", csv_with(None))))

    def eval_file(self, text):
        path = self.write("params.csv", text)
        return path, self.run_bvi(["eval", self.cfg, "--params", path])

    def eval_stdin(self, text):
        return self.run_bvi(["eval", self.cfg, "--params", "-"], stdin=text)

    def test_good_file_and_stdin(self):
        self.assert_ok(self.eval_file(params_text(NAMES))[1])
        self.assert_ok(self.eval_stdin(params_text(NAMES)))

    def test_missing_parameter_column(self):
        path, p = self.eval_file(params_text(NAMES[:2]))
        self.assert_fails(p, DATA, path + ":1", "'beta.2'")
        self.assert_fails(self.eval_stdin(params_text(NAMES[1:])), DATA, "<stdin>:1", "'alpha'")

    def test_parameter_named_in_other_case(self):
        path, p = self.eval_file(params_text(["Alpha", "beta.1", "beta.2"]))
        self.assert_fails(p, DATA, path + ":1", "'alpha'")

    def test_duplicate_parameter_column(self):
        path, p = self.eval_file(params_text(NAMES + ["beta.1"]))
        self.assert_fails(p, DATA, path + ":1", "'beta.1'")

    def test_bad_value(self):
        text = params_text(NAMES, rows=1) + "0.1,x,0.2\n"
        path, p = self.eval_file(text)
        self.assert_fails(p, DATA, path + ":3", "'x'")
        self.assert_fails(self.eval_stdin(text), DATA, "<stdin>:3", "'x'")

    def test_non_finite_value(self):
        text = params_text(NAMES, rows=2) + "0.1,0.2,inf\n"
        path, p = self.eval_file(text)
        self.assert_fails(p, DATA, path + ":4", "non-finite")

    def test_ragged_row(self):
        text = params_text(NAMES, rows=1) + "0.1,0.2\n"
        path, p = self.eval_file(text)
        self.assert_fails(p, DATA, path + ":3", "ragged")
        self.assert_fails(self.eval_stdin(text), DATA, "<stdin>:3", "ragged")

    def test_bad_quoting(self):
        path, p = self.eval_file(params_text(NAMES, rows=1) + '0.1,"0.2,0.3\n')
        self.assert_fails(p, DATA, path + ":3", "unterminated")

    def test_no_rows(self):
        path, p = self.eval_file(",".join(NAMES) + "\n")
        self.assert_fails(p, DATA, path + ":2", "no parameter rows")
        self.assert_fails(self.eval_stdin(",".join(NAMES) + "\n"), DATA, "<stdin>:2", "no parameter rows")

    def test_empty_file_and_empty_stdin(self):
        path, p = self.eval_file("")
        self.assert_fails(p, DATA, path + ":1", "empty")
        self.assert_fails(self.eval_stdin(""), DATA, "<stdin>:1", "empty")

    def test_error_deep_in_stdin(self):
        rows = ["0.1,0.2,0.3"] * 3000
        rows[2500 - 2] = "0.1,0.2,zz"
        self.assert_fails(self.eval_stdin(",".join(NAMES) + "\n" + "\n".join(rows) + "\n"), DATA, "<stdin>:2500",
                          "'zz'")

    def test_params_path_is_a_directory(self):
        os.mkdir(self.path("dir"))
        self.assert_fails(self.run_bvi(["eval", self.cfg, "--params", self.path("dir")]), 66, self.path("dir"))


if __name__ == "__main__":
    unittest.main()
