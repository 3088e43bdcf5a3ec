import time, numpy as np
for _ in range(2):
    c, t = time.process_time(), time.perf_counter()
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((16384, 16384), dtype=np.float32) * np.float32(1.0)).astype(np.float32)
    print(f"before (harness a8cccfb domains.normal): 16384x16384 float32 {time.perf_counter()-t:.2f} s wall ({time.process_time()-c:.2f} cpu)")
    y = x
    c, t = time.process_time(), time.perf_counter()
    z = (y + 0.05 * float(np.std(y)) * rng.standard_normal(y.shape)).astype(y.dtype)
    print(f"before (a8cccfb domains.perturb, real): {time.perf_counter()-t:.2f} s wall ({time.process_time()-c:.2f} cpu)")
    del x, y, z
