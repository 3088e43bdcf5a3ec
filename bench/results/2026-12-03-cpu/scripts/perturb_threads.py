import sys, time, numpy as np
sys.path.insert(0, "python")
from pallasbench.task import domains
x = domains.normal(np.random.default_rng(1), (16384, 16384))
for n in (1, 2):
    domains.set_threads(n)
    c, t = time.process_time(), time.perf_counter()
    z = domains.perturb(np.random.default_rng([1, 7919, 0]), x, "real")
    print(f"after: perturb real, threads {n}: {time.perf_counter()-t:.2f} s wall ({time.process_time()-c:.2f} cpu), sum {float(z[::997, ::991].sum()):.6f}")
    del z
