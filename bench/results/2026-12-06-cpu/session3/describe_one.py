import sys, time
sys.path.insert(0, "python")
import jax  # noqa: F401
from jax.experimental import pallas  # noqa: F401
from pallasbench.worker.protocol import DescribeRequest
from pallasbench.worker.reference import Reference
t0 = time.perf_counter()
Reference().cmd_describe(DescribeRequest(candidate_files=[], max_source_bytes=1 << 20, tasks=["relu"]))
print(f"describe of relu alone, first in the process {time.perf_counter() - t0:.2f} s")
