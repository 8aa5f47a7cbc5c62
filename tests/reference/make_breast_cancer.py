#!/usr/bin/python3
"""Writes tests/reference/data/breast_cancer.csv from scikit-learn's copy of the Wisconsin
diagnostic breast-cancer data (569 rows, 30 features), byte for byte reproducibly:

    /usr/bin/python3 tests/reference/make_breast_cancer.py      # needs python3-sklearn (apt)

Columns: the 30 features under identifier-friendly names (sklearn's "mean concave points" ->
mean_concave_points, "radius error" -> radius_error, ...), in sklearn's order, then
y = 1 for a malignant tumour and 0 for a benign one (sklearn's target is the reverse:
0 = malignant, 1 = benign). Values are written with repr(), which gives back the source
file's decimal text. 212 of the 569 rows are malignant.

Licence: scikit-learn ships the data (sklearn/datasets/data/breast_cancer.csv) under its
BSD-3-Clause licence; the data come from the UCI Machine Learning Repository, "Breast Cancer
Wisconsin (Diagnostic)", W. H. Wolberg, W. N. Street, O. L. Mangasarian (1995), which UCI
distributes under CC BY 4.0 (cite: Street, Wolberg & Mangasarian, Nuclear feature extraction
for breast tumor diagnosis, IS&T/SPIE 1993).
"""
import os
import re

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "data", "breast_cancer.csv")


def column_name(feature):
    """'mean concave points' -> 'mean_concave_points' (lower case, non-alphanumerics to '_')."""
    return re.sub(r"[^0-9a-z]+", "_", feature.lower()).strip("_")


def main():
    from sklearn.datasets import load_breast_cancer
    d = load_breast_cancer()
    names = [column_name(f) for f in d.feature_names]
    assert len(set(names)) == 30 and list(d.target_names) == ["malignant", "benign"]
    y = 1 - d.target                       # 1 = malignant
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", newline="\n") as f:
        f.write(",".join(names + ["y"]) + "\n")
        for row, yy in zip(d.data.tolist(), y.tolist()):
            f.write(",".join(repr(v) for v in row) + ",%d\n" % yy)
    print("%s: %d rows, %d features, %d malignant" % (OUT, d.data.shape[0], len(names),
                                                    int(np.sum(y))))


if __name__ == "__main__":
    main()
