"""Reading loo's --pointwise CSV in the loo tests."""
import csv

import numpy as np


def read_pointwise(path):
    """The rows of loo's --pointwise CSV, as dicts of text."""
    with open(path) as f:
        return list(csv.DictReader(f))


def pointwise_column(rows, name):
    """One column of read_pointwise's rows as floats, NA as NaN."""
    return np.array([float(r[name]) if r[name] != "NA" else np.nan for r in rows])
