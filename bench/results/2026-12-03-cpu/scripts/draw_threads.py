import sys, time, numpy as np
sys.path.insert(0, "python")
from pallasbench.task import domains
for n in (1, 2, 1, 2):
    domains.set_threads(n)
    c, t = time.process_time(), time.perf_counter()
    x = domains.normal(np.random.default_rng(1), (16384, 16384))
    print(f"threads {n}: normal 16384x16384 float32 {time.perf_counter()-t:.2f} s wall ({time.process_time()-c:.2f} cpu), sum {float(x[::997, ::991].sum()):.6f}")
    del x
