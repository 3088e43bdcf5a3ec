import sys, time
sys.path.insert(0, "tests/python"); sys.path.insert(0, "python")
import test_compiler_artifacts as t
from pallasbench.worker import compiler_artifacts
from jax._src.interpreters import mlir
from jax._src.lib.mlir import ir
from jax.experimental.mosaic import gpu as mosaic_gpu
compiler_artifacts.load_mosaic_runtime()
e = t._exported("flash_attention", "small", "float32", "mosaic_gpu")
calls = compiler_artifacts.pallas_custom_calls(ir.Module.parse(e.mlir_module(), context=mlir.make_ir_context()).operation, with_mosaic=True) if False else None
from pallasbench.worker import executor
_, kernels, _ = executor.describe_module(e)
text = kernels[0]["ir"]
ctx = mlir.make_ir_context(); mosaic_gpu.dialect.register_dialect(ctx); ctx.allow_unregistered_dialects = True
with ctx:
    m = ir.Module.parse(text)
    t0 = time.perf_counter(); n = sum(1 for _ in compiler_artifacts._operations(m.operation)); t1 = time.perf_counter()
    print("generator", n, t1 - t0)
    ops = []
    def cb(op):
        ops.append(op); return ir.WalkResult.ADVANCE
    t0 = time.perf_counter(); m.operation.walk(cb); t1 = time.perf_counter()
    print("walk", len(ops), t1 - t0, type(ops[1]), ops[1].name)
    t0 = time.perf_counter(); names = [o.name for o in ops]; print("names", time.perf_counter() - t0)
