#!/usr/bin/env python3
"""Posterior predictive checks of a bayes-vi fit, as bayesplot's pp_check draws them.

Reads the data the model was fitted to and the replicated datasets y_rep that
`bayes-vi predict CONFIG --fit DIR --replicates N YREP.csv` writes (a row per replicate, columns
y_rep.I for data row I, CmdStan's generated-quantities layout). Needs only numpy, matplotlib and
the standard library.
"""

import argparse
import csv
import json
import math
import os
import sys
import tempfile

PROG = "plot_ppc.py"

# sysexits.h codes, as bayes-vi itself uses them (SPEC.md).
EX_USAGE, EX_DATAERR, EX_NOINPUT, EX_CANTCREAT, EX_UNAVAILABLE = 64, 65, 66, 73, 1

try:
    import numpy as np
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as exc:
    sys.stderr.write(f"{PROG}: error: {sys.executable}: {exc}; run it with a Python that has "
                     "numpy and matplotlib (e.g. /usr/bin/python3)\n")
    sys.exit(EX_UNAVAILABLE)

EPILOG = """\
kinds (--kind; default auto: calibration for a 0/1 response, bars for counts, overlay otherwise):
  overlay      densities (Gaussian kernels) of y and of up to --lines replicates (ppc_dens_overlay)
  bars         the frequency of each count in y as bars, the replicates' median and 5-95 %% interval
               per count as points (ppc_bars); counts above 40 values wide are binned
  calibration  observed share of y = 1 against the predicted P(y = 1) (each row's share of ones
               over the replicates), in 10 bins of equal size with 90 %% binomial intervals
  stat         the histogram of a test statistic T over the replicates against T(y) (ppc_stat);
               --stat mean, sd, max or zeros (share of zeros); with --group COLUMN one panel per
               level of COLUMN (ppc_stat_grouped, at most 12 levels, the largest)
For stat, stderr gives T(y) and the posterior predictive p-value P(T(y_rep) >= T(y)) per panel.

exit codes (those of bayes-vi, SPEC.md): 0 ok; 64 bad command line; 65 bad input data (a
column missing, a number that is not one, y_rep columns naming rows the data lacks); 66 an input
file cannot be opened; 73 the output cannot be written; 1 numpy/matplotlib missing. Errors print
one line `plot_ppc.py: error: WHERE: WHAT`.
"""


class InputError(Exception):
    def __init__(self, code, where, what):
        super().__init__(f"{where}: {what}" if where else what)
        self.code = code


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        raise InputError(EX_USAGE, "command line", f"{message} (see --help)")


def parse_args(argv):
    p = ArgumentParser(prog=PROG, description="Posterior predictive checks of a bayes-vi fit.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, metavar="DATA.csv", help="the data the fit was made on")
    p.add_argument("--response", required=True, metavar="COLUMN", help="the response column")
    p.add_argument("--replicates", required=True, metavar="YREP.csv",
                   help="what predict --replicates wrote")
    p.add_argument("--kind", default="auto", choices=["auto", "overlay", "bars", "calibration", "stat"])
    p.add_argument("--stat", default="mean", choices=["mean", "sd", "max", "zeros"])
    p.add_argument("--group", metavar="COLUMN", help="stat by the levels of this data column")
    p.add_argument("--lines", type=int, default=50, metavar="N", help="replicates drawn by overlay")
    p.add_argument("--trials", metavar="COLUMN", help="binomial: show y / trials (calibration)")
    p.add_argument("--fit", metavar="DIR", help="the fit's folder: a response of labels (/data/levels) is "
                   "read as the fit read it, from DIR/summary.json")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="the figure (.png, .pdf, .svg)")
    a = p.parse_args(argv)
    if a.lines < 1:
        raise InputError(EX_USAGE, "--lines", "must be at least 1")
    if a.group and a.kind not in ("stat", "auto"):
        raise InputError(EX_USAGE, "--group", "goes with --kind stat")
    if a.group and a.kind == "auto":
        a.kind = "stat"
    return a


def open_text(path):
    try:
        return open(path, newline="")
    except OSError as exc:
        raise InputError(EX_NOINPUT, path, f"cannot open ({exc.strerror})")


def response_labels(fit_dir):
    """{label: value} for a response of labels, as the fit read it: its summary's data.levels at
    0 and 1 for the binary likelihoods, 1 ... K for the categorical ones; {} without labels."""
    path = os.path.join(fit_dir, "summary.json")
    with open_text(path) as f:
        try:
            data = json.load(f)["data"]
        except (ValueError, KeyError, TypeError):
            raise InputError(EX_DATAERR, path, "not a fit's summary (no data section)")
    levels = data.get("levels") or []
    first = 0 if data.get("likelihood") in ("bernoulli_logit", "bernoulli_probit") else 1
    return {label: float(first + k) for k, label in enumerate(levels)}


def read_data(path, response, group, labels):
    """The response (NaN where empty or NA; a label its value in `labels`) and the group labels of
    every data row."""
    with open_text(path) as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header:
            raise InputError(EX_DATAERR, path, "empty file")
        for name in [response] + ([group] if group else []):
            if name not in header:
                raise InputError(EX_DATAERR, f"{path}:1", f"no column '{name}'")
        jy = header.index(response)
        jg = header.index(group) if group else None
        y, g = [], []
        for line, row in enumerate(reader, start=2):
            if len(row) != len(header):
                raise InputError(EX_DATAERR, f"{path}:{line}", f"{len(row)} fields, the header has {len(header)}")
            text = row[jy].strip()
            if text in labels:
                y.append(labels[text])
            elif text in ("", "NA", "NaN", "nan"):
                y.append(math.nan)
            else:
                try:
                    y.append(float(text))
                except ValueError:
                    hint = (" nor one of the fit's labels" if labels else
                            " (a response of labels: give --fit DIR, whose summary lists them)")
                    raise InputError(EX_DATAERR, f"{path}:{line}", f"'{text}' in column '{response}' is not a number"
                                     + hint)
            if jg is not None:
                g.append(row[jg])
    return np.array(y), g


def read_replicates(path, rows):
    """The replicates as a matrix (replicates x columns) and each column's data row (0-based)."""
    with open_text(path) as f:
        header = f.readline().strip().split(",")
        index = []
        for name in header:
            if not name.startswith("y_rep.") or not name[6:].isdigit():
                raise InputError(EX_DATAERR, f"{path}:1", f"'{name}' is not a y_rep.I column (predict --replicates writes them)")
            i = int(name[6:]) - 1
            if not 0 <= i < rows:
                raise InputError(EX_DATAERR, f"{path}:1", f"'{name}' names a row the data (of {rows} rows) lacks")
            index.append(i)
        values = []
        for line_no, line in enumerate(f, start=2):
            if not line.strip():
                continue
            cells = line.rstrip("\r\n").split(",")
            if len(cells) != len(index):
                raise InputError(EX_DATAERR, f"{path}:{line_no}",
                                 f"{len(cells)} fields, the header has {len(index)} (a truncated file?)")
            try:
                row = [float(c) for c in cells]
            except ValueError:
                raise InputError(EX_DATAERR, f"{path}:{line_no}", "a field that is not a number")
            if not all(np.isfinite(row)):
                raise InputError(EX_DATAERR, f"{path}:{line_no}", "a number that is not finite")
            values.append(row)
    if not values:
        raise InputError(EX_DATAERR, path, "no replicates (only the header)")
    return np.array(values, dtype=float).reshape(len(values), len(index)), np.array(index)


STATS = {
    "mean": (lambda v: np.mean(v, axis=-1), "mean"),
    "sd": (lambda v: np.std(v, axis=-1, ddof=1), "sd"),
    "max": (lambda v: np.max(v, axis=-1), "max"),
    "zeros": (lambda v: np.mean(v == 0, axis=-1), "share of zeros"),
}


def kde(v, grid):
    """Gaussian kernel density with Scott's bandwidth."""
    sd = np.std(v)
    h = 1.06 * (sd if sd > 0 else 1.0) * len(v) ** -0.2
    z = (grid[:, None] - v[None, :]) / h
    return np.exp(-0.5 * z * z).sum(axis=1) / (len(v) * h * math.sqrt(2 * math.pi))


def plot_overlay(ax, y, yrep, lines):
    lo = min(y.min(), np.quantile(yrep, 0.001))
    hi = max(y.max(), np.quantile(yrep, 0.999))
    grid = np.linspace(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo), 300)
    for r in range(min(lines, yrep.shape[0])):
        ax.plot(grid, kde(yrep[r], grid), color="#9ecae1", lw=0.7, alpha=0.7,
                label="y_rep" if r == 0 else None)
    ax.plot(grid, kde(y, grid), color="#08306b", lw=2, label="y")
    ax.set_xlabel("response")
    ax.set_ylabel("density")
    ax.legend()


def plot_bars(ax, y, yrep):
    top = int(max(y.max(), np.quantile(yrep, 0.99)))
    width = max(1, math.ceil((top + 1) / 40))
    edges = np.arange(0, top + width + 1, width)
    obs = np.histogram(y, edges)[0]
    rep = np.array([np.histogram(r, edges)[0] for r in yrep])
    mid = edges[:-1] + (width - 1) / 2
    ax.bar(mid, obs, width=0.9 * width, color="#9ecae1", label="y")
    med, q05, q95 = (np.quantile(rep, q, axis=0) for q in (0.5, 0.05, 0.95))
    ax.errorbar(mid, med, yerr=[med - q05, q95 - med], fmt="o", color="#08306b", ms=3,
                label="y_rep median, 5-95 %")
    ax.set_xlabel("count" if width == 1 else f"count (bins of {width})")
    ax.set_ylabel("rows")
    ax.legend()


def plot_calibration(ax, y, yrep):
    p = yrep.mean(axis=0)
    order = np.argsort(p, kind="stable")
    bins = [b for b in np.array_split(order, min(10, len(y))) if len(b)]
    px = np.array([p[b].mean() for b in bins])
    obs = np.array([y[b].mean() for b in bins])
    n = np.array([len(b) for b in bins])
    half = 1.645 * np.sqrt(np.clip(px * (1 - px), 1e-12, None) / n)  # binomial sd of a bin's share
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect calibration")
    ax.fill_between(px, np.clip(px - half, 0, 1), np.clip(px + half, 0, 1), color="#9ecae1",
                    alpha=0.6, label="90 % interval if calibrated")
    ax.plot(px, obs, "o-", color="#08306b", label="observed share of y = 1")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted P(y = 1)")
    ax.set_ylabel("observed share of y = 1")
    ax.legend(loc="upper left")


def plot_stat(ax, y, yrep, stat, title=None):
    f, label = STATS[stat]
    t_rep, t_obs = f(yrep), float(f(y))
    p = float(np.mean(t_rep >= t_obs))
    ax.hist(t_rep, bins=30, color="#9ecae1")
    ax.axvline(t_obs, color="#08306b", lw=2, label=f"T(y) = {t_obs:.4g}")
    ax.set_xlabel(f"T = {label}")
    ax.set_title(f"{title + ': ' if title else ''}p = {p:.3f}", fontsize=9)
    ax.legend(fontsize=8)
    return t_obs, p


def save(fig, path):
    folder = os.path.dirname(os.path.abspath(path))
    fmt = os.path.splitext(path)[1][1:].lower() or "png"
    try:
        fd, tmp = tempfile.mkstemp(prefix=".plot_ppc.", suffix="." + fmt, dir=folder)
    except OSError as exc:
        raise InputError(EX_CANTCREAT, path, f"cannot create ({exc.strerror})")
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format=fmt, dpi=110)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it 0600; give it a normal file's mode
        os.replace(tmp, path)
    except (OSError, ValueError) as exc:
        os.unlink(tmp)
        raise InputError(EX_CANTCREAT, path, f"cannot write ({exc})")


def main(argv):
    a = parse_args(argv)
    y_all, groups = read_data(a.data, a.response, a.group, response_labels(a.fit) if a.fit else {})
    yrep, index = read_replicates(a.replicates, len(y_all))
    y = y_all[index]
    if np.any(np.isnan(y)):
        raise InputError(EX_DATAERR, a.data, f"row {index[np.isnan(y)][0] + 1} of a y_rep column has no response")
    binary = bool(np.all((y == 0) | (y == 1)) and np.all((yrep == 0) | (yrep == 1)))
    counts = bool(np.all(y == np.round(y)) and np.all(y >= 0) and np.all(yrep == np.round(yrep)))
    kind = a.kind if a.kind != "auto" else ("calibration" if binary else "bars" if counts else "overlay")
    if kind == "calibration" and not binary:
        raise InputError(EX_DATAERR, a.data, f"calibration needs a 0/1 response; '{a.response}' is not one")
    if kind == "bars" and not counts:
        raise InputError(EX_DATAERR, a.data, f"bars need counts; '{a.response}' has values that are not")
    n_rep = yrep.shape[0]
    if kind == "stat" and a.group:
        labels = np.array([groups[i] for i in index])
        levels, sizes = np.unique(labels, return_counts=True)
        keep = levels[np.argsort(-sizes, kind="stable")][:12]
        if len(levels) > 12:
            sys.stderr.write(f"{PROG}: warning: {len(levels)} levels of {a.group}; the 12 largest are drawn\n")
        keep = sorted(keep)
        cols = min(4, len(keep))
        nrows = math.ceil(len(keep) / cols)
        fig, axes = plt.subplots(nrows, cols, figsize=(3.2 * cols, 2.6 * nrows), squeeze=False)
        for k, level in enumerate(keep):
            m = labels == level
            t, p = plot_stat(axes[k // cols][k % cols], y[m], yrep[:, m], a.stat, f"{a.group} = {level}")
            sys.stderr.write(f"{PROG}: {a.group} = {level}: T(y) = {float(t)!r}, p = {float(p)!r}\n")
        for k in range(len(keep), nrows * cols):
            axes[k // cols][k % cols].axis("off")
        fig.suptitle(f"{STATS[a.stat][1]} of {a.response} by {a.group}: {n_rep} replicates")
    else:
        fig, ax = plt.subplots(figsize=(6, 4))
        if kind == "overlay":
            plot_overlay(ax, y, yrep, a.lines)
        elif kind == "bars":
            plot_bars(ax, y, yrep)
        elif kind == "calibration":
            plot_calibration(ax, y, yrep)
        else:
            t, p = plot_stat(ax, y, yrep, a.stat)
            sys.stderr.write(f"{PROG}: T(y) = {float(t)!r}, p = {float(p)!r}\n")
        fig.suptitle(f"{a.response}: {len(y)} rows, {n_rep} replicates ({kind})", fontsize=10)
    fig.tight_layout()
    save(fig, a.output)
    sys.stderr.write(f"{PROG}: wrote {a.output}\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except InputError as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        sys.exit(exc.code)
