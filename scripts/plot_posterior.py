#!/usr/bin/env python3
"""Plot a bayes-vi fit: posterior means against the truth (or a forest plot), and the ELBO trace.

Reproduces the figure of the seed notebook "Automatic batching for Bayesian inference": the
estimated posterior means with +/-2 sd error bars against the true coefficients, with the
y = x diagonal. Needs only numpy, matplotlib and the standard library.
"""

import argparse
import csv
import io
import json
import math
import os
import sys
import tempfile

PROG = "plot_posterior.py"

# sysexits.h codes, as bayes-vi itself uses them (SPEC.md), so a pipeline sees one convention.
EX_USAGE = 64        # bad command line
EX_DATAERR = 65      # bad input data
EX_NOINPUT = 66      # an input file cannot be opened
EX_CANTCREAT = 73    # the output cannot be written
EX_UNAVAILABLE = 1   # numpy/matplotlib missing (and Python's own code for an uncaught bug)

try:
    import numpy as np
    import matplotlib

    matplotlib.use("Agg")  # no display: render straight to a file
    import matplotlib.pyplot as plt
    from matplotlib.backend_bases import FigureCanvasBase
except ImportError as exc:  # e.g. run by a python3 without them: say which one to use
    sys.stderr.write(f"{PROG}: error: {sys.executable}: {exc}; run it with a Python that has "
                     "numpy and matplotlib (e.g. /usr/bin/python3)\n")
    sys.exit(EX_UNAVAILABLE)

EPILOG = """\
SUMMARY is the JSON document `bayes-vi fit` prints on stdout (or DIR/summary.json); `-` or
nothing reads it from stdin:
  bayes-vi fit config.json | %(prog)s --truth data/seed_true_beta.csv -o fig.png

panel 1, with --truth: posterior mean +/- 2 sd against the true value, the y = x diagonal, and
  the parameters whose +/-2 sd interval misses the truth highlighted (also listed on stderr).
  Every name in TRUE.csv must be a parameter of the summary; parameters without a true value
  (e.g. alpha) are left out of this panel with a warning.
panel 1, without --truth: a forest plot, mean +/- 2 sd and the 5-95 %% interval per parameter.
panel 2, with --elbo: the ELBO trace and the summary's final ELBO +/- se. When the early
  values lie more than 10 h below the end of the trace (its second half and the final ELBO,
  of height h), the y axis stops 3 h below the end so they do not flatten it; the legend
  says what was cut.

The output format follows the extension of OUT (.png, .pdf, .svg, ...; none means PNG). The
path written is printed on stderr; an existing OUT is replaced only once the new one is complete.

exit codes (those of bayes-vi, SPEC.md): 0 ok; 64 bad command line; 65 bad input data
(invalid JSON, no `parameters`, a wrong or non-finite field, a malformed CSV, names of TRUE.csv
missing from the summary); 66 an input file cannot be opened; 73 the output cannot be written;
1 numpy/matplotlib missing. Errors print one line `plot_posterior.py: error: WHERE: WHAT`.
"""


class InputError(Exception):
    """A user-facing failure: main() prints `PROG: error: WHERE: WHAT` and exits with code."""

    def __init__(self, code, where, what):
        super().__init__(f"{where}: {what}" if where else what)
        self.code = code


def warn(message):
    sys.stderr.write(f"{PROG}: warning: {message}\n")


class ArgumentParser(argparse.ArgumentParser):
    # argparse prints the usage block and exits 2; keep the one-line shape and code 64 instead.
    def error(self, message):
        raise InputError(EX_USAGE, "command line", f"{message} (see --help)")


def parse_args(argv):
    parser = ArgumentParser(
        prog=PROG,
        description="Plot the posterior summary of a bayes-vi fit and its ELBO trace.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("summary", nargs="?", default="-", metavar="SUMMARY.json",
                        help="summary document of `bayes-vi fit`; `-` or omitted: stdin")
    parser.add_argument("--truth", metavar="TRUE.csv",
                        help="CSV `name,true_value`: plot the means against these values")
    parser.add_argument("--elbo", metavar="elbo.csv",
                        help="CSV `iteration,seconds,elbo,rel_change` (bayes-vi fit --output DIR)")
    parser.add_argument("-o", "--output", default="posterior.png", metavar="OUT.png",
                        help="figure to write (default: %(default)s)")
    parser.add_argument("--title", help="figure title (default: built from the summary)")
    return parser.parse_args(argv)


# ---------------------------------------------------------------------------------------------
# Reading the inputs


def read_text(path):
    """Text of a file, or of stdin for `-`; the name to use in messages."""
    if path == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise InputError(EX_USAGE, "command line",
                             "no SUMMARY.json given and stdin is a terminal (pipe `bayes-vi fit` "
                             "into it or name a file)")
        raw, name = sys.stdin.buffer.read(), "stdin"
    else:
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError as exc:
            raise InputError(EX_NOINPUT, path, f"cannot open: {exc.strerror}") from None
        name = path
    try:
        return raw.decode("utf-8-sig"), name
    except UnicodeDecodeError as exc:
        raise InputError(EX_DATAERR, name, f"not UTF-8 text (byte {exc.start})") from None


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def load_summary(path):
    """The summary document, checked: a dict with a non-empty list `parameters`."""
    text, name = read_text(path)
    if not text.strip():
        raise InputError(EX_DATAERR, name, "empty input (did the fit fail?)")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(EX_DATAERR, f"{name}:{exc.lineno}:{exc.colno}",
                         f"invalid JSON: {exc.msg}") from None
    if not isinstance(doc, dict):
        raise InputError(EX_DATAERR, f"{name}: /", "expected a JSON object")

    params = doc.get("parameters")
    if params is None:
        raise InputError(EX_DATAERR, f"{name}: /parameters", "missing")
    if not isinstance(params, list) or not params:
        raise InputError(EX_DATAERR, f"{name}: /parameters", "expected a non-empty array")

    seen = set()
    for i, p in enumerate(params):
        where = f"{name}: /parameters/{i}"
        if not isinstance(p, dict):
            raise InputError(EX_DATAERR, where, "expected an object")
        if not isinstance(p.get("name"), str) or not p["name"]:
            raise InputError(EX_DATAERR, f"{where}/name", "expected a non-empty string")
        if p["name"] in seen:
            raise InputError(EX_DATAERR, f"{where}/name", f"duplicate parameter '{p['name']}'")
        seen.add(p["name"])
        if p.get("feature") is not None and not isinstance(p["feature"], str):
            raise InputError(EX_DATAERR, f"{where}/feature", "expected a string")
        for key in ("mean", "sd", "q05", "q50", "q95"):
            value = p.get(key)
            if value is None and key in ("q05", "q50", "q95"):
                continue  # optional: the forest plot then shows mean +/- 2 sd only
            if not is_number(value) or not math.isfinite(value):
                raise InputError(EX_DATAERR, f"{where}/{key}",
                                 f"expected a finite number, got {json.dumps(value)}")
        if p["sd"] < 0:
            raise InputError(EX_DATAERR, f"{where}/sd", f"negative ({p['sd']})")

    # Optional keys only annotate the figure; null means absent, a wrong type is a bug upstream.
    optional = {"elbo": is_number, "elbo_se": is_number, "pareto_k": is_number,
                "iterations": lambda v: is_number(v) and math.isfinite(v) and v == int(v),
                "algorithm": lambda v: isinstance(v, str),
                "converged": lambda v: isinstance(v, bool)}
    for key, ok in optional.items():
        if doc.get(key) is not None and not ok(doc[key]):
            raise InputError(EX_DATAERR, f"{name}: /{key}",
                             f"unexpected value {json.dumps(doc[key])}")
    return doc


def read_csv(path, required):
    """Rows of a CSV with a header, as (line number, dict); checks the required columns."""
    text, name = read_text(path)
    reader = csv.reader(io.StringIO(text))
    header = None
    rows = []
    for row in reader:
        line = reader.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if header is None:
            header = [c.strip() for c in row]
            missing = [c for c in required if c not in header]
            if missing:
                raise InputError(EX_DATAERR, f"{name}:{line}",
                                 f"header lacks column(s) {', '.join(missing)} "
                                 f"(expected {','.join(required)})")
            continue
        if len(row) != len(header):
            raise InputError(EX_DATAERR, f"{name}:{line}",
                             f"{len(row)} fields, the header has {len(header)}")
        rows.append((line, dict(zip(header, (c.strip() for c in row)))))
    if header is None:
        raise InputError(EX_DATAERR, name, "empty file")
    if not rows:
        raise InputError(EX_DATAERR, name, "no data rows")
    return name, rows


def parse_float(text, where, column, allow_empty=False):
    if allow_empty and text == "":
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise InputError(EX_DATAERR, where, f"{column}: unparsable number '{text}'") from None


def load_truth(path):
    """{name: true value} from a CSV `name,true_value`."""
    name, rows = read_csv(path, ["name", "true_value"])
    truth = {}
    for line, row in rows:
        where = f"{name}:{line}"
        if row["name"] in truth:
            raise InputError(EX_DATAERR, where, f"duplicate name '{row['name']}'")
        value = parse_float(row["true_value"], where, "true_value")
        if not math.isfinite(value):
            raise InputError(EX_DATAERR, where, f"true_value: not finite ({row['true_value']})")
        truth[row["name"]] = value
    return name, truth


def load_elbo(path):
    """(iterations, elbo values) in file order; non-finite ELBO values are dropped with a warning."""
    name, rows = read_csv(path, ["iteration", "elbo"])
    iteration, elbo = [], []
    for line, row in rows:
        where = f"{name}:{line}"
        it = parse_float(row["iteration"], where, "iteration")
        if not math.isfinite(it):
            raise InputError(EX_DATAERR, where, f"iteration: not finite ({row['iteration']})")
        iteration.append(it)
        # An evaluation the optimizer recovered from may be logged as nan/-inf: keep going.
        elbo.append(parse_float(row["elbo"], where, "elbo", allow_empty=True))
    iteration, elbo = np.array(iteration), np.array(elbo)
    finite = np.isfinite(elbo)
    if not finite.any():
        raise InputError(EX_DATAERR, name, "no finite ELBO value")
    if not finite.all():
        warn(f"{name}: {np.count_nonzero(~finite)} non-finite ELBO value(s) not plotted")
    return iteration[finite], elbo[finite]


def match_truth(params, truth, truth_name):
    """The parameters that have a true value, each with it; every truth name must be known."""
    known = {p["name"] for p in params}
    unknown = [n for n in truth if n not in known]
    if unknown:
        shown = ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        raise InputError(EX_DATAERR, truth_name,
                         f"name(s) not among the summary's parameters: {shown} "
                         f"(the summary has {', '.join(sorted(known)[:5])}"
                         f"{', ...' if len(known) > 5 else ''})")
    matched = [p for p in params if p["name"] in truth]
    left_out = [p["name"] for p in params if p["name"] not in truth]
    if left_out:
        warn(f"{truth_name}: no true value for {', '.join(left_out)}; left out of the panel")
    return matched, np.array([truth[p["name"]] for p in matched])


# ---------------------------------------------------------------------------------------------
# What the figure shows


def interval_misses(true, mean, sd):
    """Mask of the parameters whose mean +/- 2 sd interval does not contain the true value."""
    return np.abs(np.asarray(mean) - np.asarray(true)) > 2.0 * np.asarray(sd)


def elbo_ylim(elbo, keep=()):
    """y range of the ELBO panel: (low, high, mask of the points below low).

    The early ELBO is often thousands of nats below the final one; on a linear axis that turns
    the end of the trace, the part worth reading, into a flat line. The end is the trace's second
    half plus `keep` (values that must stay visible: the final ELBO +/- se), of height h. When
    the trace goes more than 10 h below the end, the axis stops 3 h below it; otherwise the whole
    trace is shown.
    """
    elbo = np.asarray(elbo, dtype=float)
    keep = [v for v in keep if math.isfinite(v)]
    tail = elbo[len(elbo) // 2:]
    end_low = min([tail.min(), *keep])
    high = max([elbo.max(), *keep])
    h = high - end_low
    if h <= 0:  # a flat or one-point trace: some room around it
        h = max(1e-3 * abs(high), 1e-6)
    low = end_low - 3.0 * h if elbo.min() < end_low - 10.0 * h else elbo.min()
    pad = 0.06 * (high - low) if high > low else h
    return low - pad, high + pad, elbo < low - pad


def label_of(p):
    feature = p.get("feature")
    return f"{feature} ({p['name']})" if feature else p["name"]


def minus(text):
    return text.replace("-", "\u2212")  # typographic minus in figure text


def fmt_pm(value, se=None):
    """`value ± se` with the value rounded to the precision of se's two significant digits."""
    if se is None or not math.isfinite(se) or se <= 0:
        return minus(f"{value:.6g}")
    decimals = min(max(0, 1 - math.floor(math.log10(se))), 8)
    return minus(f"{value:.{decimals}f} \u00b1 {se:.2g}")


def pareto_k_text(k):
    # Yao et al. (2018): k < 0.5 good, 0.5-0.7 usable, > 0.7 the approximation is unreliable.
    if math.isnan(k):
        return r"$\hat{k}$ = nan"
    verdict = "good" if k < 0.5 else "ok" if k < 0.7 else "unreliable"
    return minus(rf"$\hat{{k}}$ = {k:.2f} ({verdict})")


def default_title(doc, width_in):
    """A line of what ran, broken between items to fit a figure width_in inches wide."""
    parts = []
    if doc.get("algorithm"):
        parts.append(f"{doc['algorithm']} VI")
    if doc.get("iterations") is not None:
        run = f"{int(doc['iterations'])} iterations"
        # Without a tolerance (tol_rel_obj null) the run has a fixed length: nothing to converge.
        if doc.get("converged") is not None and (doc.get("tol_rel_obj") is not None or doc["converged"]):
            run += " (converged)" if doc["converged"] else " (not converged)"
        parts.append(run)
    if doc.get("elbo") is not None:
        parts.append(f"ELBO {fmt_pm(doc['elbo'], doc.get('elbo_se'))}")
    if doc.get("pareto_k") is not None:
        parts.append(pareto_k_text(doc["pareto_k"]))
    if not parts:
        return "bayes-vi fit"
    limit = int(12 * width_in)  # characters of an 11 pt line; mathtext counts long, which is safe
    lines = ["bayes-vi fit: " + parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + 2 + len(part) > limit:
            lines[-1] += ","
            lines.append(part)
        else:
            lines[-1] += ", " + part
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Panels


def plot_truth_panel(ax, params, true):
    mean = np.array([p["mean"] for p in params])
    sd = np.array([p["sd"] for p in params])
    miss = interval_misses(true, mean, sd)

    low = min(true.min(), (mean - 2 * sd).min())
    high = max(true.max(), (mean + 2 * sd).max())
    pad = 0.06 * (high - low) if high > low else 1.0
    lim = (low - pad, high + pad)
    ax.plot(lim, lim, ls="--", color="0.5", lw=1, label="y = x", zorder=1)

    n, n_miss = len(params), int(miss.sum())
    covered = "mean \u00b1 2 sd" + (f" (all {n} cover the truth)" if not n_miss else "")
    ax.errorbar(true[~miss], mean[~miss], yerr=2 * sd[~miss], fmt="o", ms=5, color="C0",
                ecolor="C0", elinewidth=1.2, capsize=3, label=covered, zorder=3)
    if n_miss:
        ax.errorbar(true[miss], mean[miss], yerr=2 * sd[miss], fmt="s", ms=5, color="C3",
                    ecolor="C3", elinewidth=1.2, capsize=3,
                    label=f"misses the truth ({n_miss} of {n})", zorder=4)
        for p, x, y in zip(np.array(params, dtype=object)[miss], true[miss], mean[miss]):
            ax.annotate(p.get("feature") or p["name"], (x, y), xytext=(6, -3),
                        textcoords="offset points", color="C3", fontsize=9)

    ax.set_xlim(lim)
    ax.set_ylim(lim)
    ax.set_aspect("equal")
    ax.set_xlabel("true value")
    ax.set_ylabel("posterior mean \u00b1 2 sd")
    ax.set_title("Posterior means vs. true coefficients")
    ax.grid(True, color="0.92", zorder=0)
    # The points hug the diagonal, so the upper-left or lower-right corner is free; matplotlib's
    # "best" ignores error bars, so pick the corner the bars and points leave emptier.
    mid = 0.5 * (lim[0] + lim[1])
    xs = np.concatenate([true, true, true])
    ys = np.concatenate([mean, mean - 2 * sd, mean + 2 * sd])
    upper_left = np.count_nonzero((xs < mid) & (ys > mid))
    lower_right = np.count_nonzero((xs > mid) & (ys < mid))
    ax.legend(loc="upper left" if upper_left <= lower_right else "lower right", fontsize=9,
              framealpha=0.9)
    return miss


def plot_forest_panel(ax, params):
    n = len(params)
    y = np.arange(n)[::-1]  # first parameter on top
    mean = np.array([p["mean"] for p in params])
    sd = np.array([p["sd"] for p in params])

    ax.axvline(0.0, color="0.6", lw=1, ls="--", zorder=1)
    ax.hlines(y, mean - 2 * sd, mean + 2 * sd, color="C0", lw=1.2, label="mean \u00b1 2 sd",
              zorder=2)
    with_q = [i for i, p in enumerate(params) if p.get("q05") is not None
              and p.get("q95") is not None]
    if with_q:
        ax.hlines(y[with_q], [params[i]["q05"] for i in with_q],
                  [params[i]["q95"] for i in with_q], color="C0", lw=5, alpha=0.45,
                  label="5\u201395 % interval", zorder=3)
    ax.plot(mean, y, "o", color="C0", ms=5, label="mean", zorder=4)

    ax.set_yticks(y)
    ax.set_yticklabels([label_of(p) for p in params])
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("value")
    ax.set_title("Posterior summary")
    ax.grid(True, axis="x", color="0.92", zorder=0)
    # Outside, under the axis: inside, it would sit on some parameter's interval whatever the
    # corner ("best" ignores hlines).
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, fontsize=9,
              frameon=False)


def plot_elbo_panel(ax, iteration, elbo, doc):
    final, se = doc.get("elbo"), doc.get("elbo_se")
    keep = []
    if final is not None and math.isfinite(final):
        band = se if se is not None and math.isfinite(se) else 0.0
        keep = [final - band, final + band]
    low, high, cut = elbo_ylim(elbo, keep)

    style = dict(marker="o", ms=3) if len(elbo) <= 60 else {}
    ax.plot(iteration, elbo, color="C0", lw=1, label="ELBO estimate during the fit", **style)
    if keep:
        ax.axhline(final, color="C1", lw=1.3, ls="--",
                   label=f"final ELBO {fmt_pm(final, se)}")
        if keep[1] > keep[0]:
            ax.axhspan(keep[0], keep[1], color="C1", alpha=0.2, lw=0)
    ax.set_ylim(low, high)
    if cut.any():  # a legend entry, not loose text, so it cannot land on the trace
        lowest = np.argmin(elbo)
        ax.plot([], [], "v", color="0.45", ms=5,
                label=minus(f"{cut.sum()} earlier value(s) below the axis\n(lowest "
                            f"{elbo[lowest]:.4g} at iteration {iteration[lowest]:g})"))
    ax.set_xlabel("iteration")
    ax.set_ylabel("ELBO (nats)")
    ax.set_title("ELBO trace")
    ax.grid(True, color="0.92")
    ax.legend(loc="lower right", fontsize=9, framealpha=0.9)


# ---------------------------------------------------------------------------------------------


def output_format(path):
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if not ext:
        return "png"
    if ext not in FigureCanvasBase.get_supported_filetypes():
        raise InputError(EX_USAGE, "command line",
                         f"-o {path}: unsupported image type '.{ext}' (use .png, .pdf or .svg)")
    return ext


def save_figure(fig, path, fmt):
    """Write atomically: render to a temporary file beside `path`, then rename over it."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".plot_posterior.", suffix="." + fmt, dir=folder)
    except OSError as exc:
        raise InputError(EX_CANTCREAT, path, f"cannot create: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format=fmt, dpi=120)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it 0600; give it a normal file's mode
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(EX_CANTCREAT, path, f"cannot write: {exc.strerror}") from None
    finally:  # whatever failed, leave no temporary file behind
        if os.path.exists(tmp):
            os.unlink(tmp)


def run(argv):
    args = parse_args(argv)
    fmt = output_format(args.output)
    doc = load_summary(args.summary)
    params = doc["parameters"]
    truth = load_truth(args.truth) if args.truth else None
    trace = load_elbo(args.elbo) if args.elbo else None

    matched = None
    if truth is not None:
        truth_name, values = truth
        matched, true = match_truth(params, values, truth_name)

    # Panel 1 is square with --truth (so the diagonal sits at 45 degrees) and grows with the
    # number of rows as a forest plot; the ELBO panel takes the rest of an 11 in wide figure.
    height = 4.5 if matched is not None else max(4.5, 1.6 + 0.3 * len(params))
    if trace is not None:
        width = 11.0
        fig, (ax1, ax2) = plt.subplots(
            1, 2, figsize=(width, height), layout="constrained",
            gridspec_kw={"width_ratios": [1, 1.5 if matched is not None else 1.3]})
    else:
        width = 5.6 if matched is not None else 6.5
        fig, ax1 = plt.subplots(figsize=(width, height), layout="constrained")

    if matched is not None:
        miss = plot_truth_panel(ax1, matched, true)
        names = [label_of(p) for p, m in zip(matched, miss) if m]
        sys.stderr.write(f"{PROG}: {len(matched) - len(names)} of {len(matched)} +/-2 sd "
                         f"intervals cover the truth"
                         + (f"; misses: {', '.join(names)}\n" if names else "\n"))
    else:
        plot_forest_panel(ax1, params)
    if trace is not None:
        plot_elbo_panel(ax2, *trace, doc)

    fig.suptitle(args.title if args.title is not None else default_title(doc, width), fontsize=11)
    save_figure(fig, args.output, fmt)
    plt.close(fig)
    sys.stderr.write(f"{PROG}: wrote {args.output}\n")


def main(argv=None):
    try:
        run(sys.argv[1:] if argv is None else argv)
    except InputError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return exc.code
    return 0


if __name__ == "__main__":
    sys.exit(main())
