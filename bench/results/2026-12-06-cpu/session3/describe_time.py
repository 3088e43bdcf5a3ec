import sys, time
sys.path.insert(0, "python")
t0 = time.perf_counter()
import jax  # noqa: F401
from jax.experimental import pallas  # noqa: F401
from pallasbench.worker.protocol import DescribeRequest
from pallasbench.worker.reference import Reference
t1 = time.perf_counter()
r = Reference()
req = DescribeRequest(candidate_files=[], max_source_bytes=1 << 20)
t2 = time.perf_counter(); r.cmd_describe(req); t3 = time.perf_counter()
one = DescribeRequest(candidate_files=[], max_source_bytes=1 << 20, tasks=["relu"]) if "tasks" in DescribeRequest.__dataclass_fields__ else None
print(f"imports {t1 - t0:.2f} s; whole-suite describe, first in the process {t3 - t2:.2f} s")
if one:
    r2 = Reference(); t4 = time.perf_counter(); r2.cmd_describe(one); t5 = time.perf_counter()
    print(f"describe of relu alone (after the whole suite's imports) {t5 - t4:.2f} s")
