import sys, time, cProfile, pstats
sys.path.insert(0, "tests/python"); sys.path.insert(0, "python")
import test_compiler_artifacts as t
from pallasbench.worker import executor, compiler_artifacts
compiler_artifacts.load_mosaic_runtime()
exps = [t._exported(n, "small", "float32", "mosaic_gpu") for n in ("softmax", "layernorm", "flash_attention", "add")]
for e in exps[:1]: executor.describe_module(e)  # warm
t0 = time.perf_counter()
pr = cProfile.Profile(); pr.enable()
for e in exps: executor.describe_module(e)
pr.disable()
print("describe x4", time.perf_counter() - t0)
pstats.Stats(pr).sort_stats("cumulative").print_stats(18)
