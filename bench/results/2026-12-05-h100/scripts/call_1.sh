#!/usr/bin/env bash
# Call 1 (2026-12-05, an H100: no H200 could be started): the GPU machine's ml_dtypes, then every
# variant prepared on the CPU and never timed (bench/prepared_probes.sh).
# usage (device tool, from the repository root):
nvidia-smi -L > $OUT/gpu.txt 2>&1
python3 -c "import ml_dtypes, numpy; print('ml_dtypes', ml_dtypes.__version__, 'numpy', numpy.__version__)" > $OUT/ml_dtypes.txt 2>&1
python3 -X importtime -c "import jax" 2>&1 | grep -E "ml_dtypes_ext| jax$" >> $OUT/ml_dtypes.txt
OUT=$OUT timeout 420 bash bench/prepared_probes.sh > $OUT/call_1.log 2>&1
