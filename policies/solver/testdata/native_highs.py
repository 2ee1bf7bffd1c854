#!/usr/bin/env python3
"""Time native HiGHS (the copy bundled in SciPy's linprog, method='highs')
on LP files exported by the benchmarks, for comparison with the wasm layer.

    SCHEDLAB_EXPORT_BENCH_MODELS=/tmp/benchmodels go test -run TestExportBenchmarkModels ./policies/solver/
    python3 policies/solver/testdata/native_highs.py /tmp/benchmodels/lp4000x2070.mps

Reads only what the benchmark MPS files use (N/L/G/E rows, RHS, UP/LO
bounds); continuous models only. Debian: apt-get install python3-scipy.
"""
import sys
import time

import numpy as np
import scipy
from scipy.optimize import linprog
from scipy.sparse import csr_matrix, diags


def read_mps(path):
    rows, order, cols, colorder = {}, [], {}, []
    obj, sense, sec = None, 1, None
    entries, cost, rhs, bounds = [], {}, {}, {}
    for line in open(path):
        if not line.strip():
            continue
        if not line[0].isspace():
            sec = line.split()[0]
            continue
        f = line.split()
        if sec == "OBJSENSE":
            sense = -1 if f[0].startswith("MAX") else 1
        elif sec == "ROWS":
            if f[0] == "N":
                obj = f[1]
            else:
                rows[f[1]] = (f[0], len(order))
                order.append(f[1])
        elif sec == "COLUMNS":
            if len(f) >= 3 and f[1] == "'MARKER'":
                sys.exit("integer columns are not supported")
            if f[0] not in cols:
                cols[f[0]] = len(colorder)
                colorder.append(f[0])
            for k in range(1, len(f), 2):
                if f[k] == obj:
                    cost[f[0]] = float(f[k + 1])
                else:
                    entries.append((rows[f[k]][1], cols[f[0]], float(f[k + 1])))
        elif sec == "RHS":
            for k in range(1, len(f), 2):
                rhs[f[k]] = float(f[k + 1])
        elif sec == "BOUNDS":
            bounds.setdefault(f[2], []).append((f[0], float(f[3])))
    m, n = len(order), len(colorder)
    c = sense * np.array([cost.get(name, 0.0) for name in colorder])
    a = csr_matrix(([v for _, _, v in entries], ([i for i, _, _ in entries], [j for _, j, _ in entries])), shape=(m, n))
    sign, b = np.zeros(m), np.zeros(m)
    for name in order:
        kind, i = rows[name]
        b[i] = rhs.get(name, 0.0)
        sign[i] = {"L": 1, "G": -1, "E": 0}[kind]
    ineq = sign != 0
    a_ub, b_ub = diags(sign[ineq]) @ a[ineq], sign[ineq] * b[ineq]
    a_eq, b_eq = (a[~ineq], b[~ineq]) if (~ineq).any() else (None, None)
    bnds = []
    for name in colorder:
        lo, hi = 0.0, None
        for kind, v in bounds.get(name, []):
            if kind == "UP":
                hi = v
            elif kind == "LO":
                lo = v
        bnds.append((lo, hi))
    return c, a_ub, b_ub, a_eq, b_eq, bnds, sense


def main():
    print("scipy", scipy.__version__)
    for path in sys.argv[1:]:
        c, a_ub, b_ub, a_eq, b_eq, bnds, sense = read_mps(path)
        times = []
        for _ in range(10):
            t0 = time.perf_counter()
            r = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bnds, method="highs")
            times.append(time.perf_counter() - t0)
        times.sort()
        print(f"{path}: objective {sense * r.fun:.10g} iterations {r.nit} "
              f"min {times[0] * 1e3:.1f} ms median {times[len(times) // 2] * 1e3:.1f} ms (linprog call, incl. Python)")


if __name__ == "__main__":
    main()
