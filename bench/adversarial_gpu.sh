#!/usr/bin/env bash
# The adversarial corpus's hostile and trust classes on the GPU machine, each through `eval`
# (tracer sandboxed, executor on the GPU), with the verdict it must get; relu_interpret_true.py
# is the GPU-only case. Prints one line per case and writes the records to $OUT/adversarial/.
# usage: bench/adversarial_gpu.sh SIZE [CANDIDATE.py ...]  (the named cases only, when given)
set -uo pipefail
size=${1:-small}
only=("${@:2}")
out=${OUT:-/tmp}/adversarial
mkdir -p "$out"
# candidate task expected-status expected-robust [size, "-" for SIZE] [timed] [more eval flags]
# relu_stale_output.py runs at MEDIUM: at SMALL its 1 MiB of traffic floors at ~0.25 us, below
# any launch, so only a size whose bytes take longer than a launch can show a memo under the floor.
cases=(
  "relu_interpret_true.py relu ok false"
  "softmax_patches_harness.py softmax ok false"
  "relu_fd_writes.py relu crashed false"
  "relu_replay_cache.py relu ok true"
  "layernorm_hunts_reference.py layernorm incorrect false"
  "matmul_f16_in_kernel.py matmul ok true"
  "matmul_f16_inline_asm.py matmul ok true"
  "matmul_bf16x3.py matmul ok true"
  "matmul_bf16_in_kernel.py matmul incorrect false"
  "softmax_dead_pallas.py softmax ok false"
  "softmax_branch_guarded.py softmax ok false"
  "softmax_foreign_custom_call.py softmax compile_error false"
  "softmax_pure_callback.py softmax compile_error false"
  "softmax_xla.py softmax ok false"
  "matmul_f16_inputs.py matmul ok false"
  "softmax_jax_ops_gpu.py softmax ok true"
  "flash_attention_jax_decode_attention.py flash_attention ok true"
  "reduce_sum_two_pass.py reduce_sum ok true"
  "relu_stale_output.py relu timing_rejected true medium timed"
  "reduce_sum_seed_table.py reduce_sum ok true - timed"
  "reduce_sum_timing_differs.py reduce_sum incorrect true - timed --seed 20261201"
  "softmax_no_max.py softmax incorrect false"
  "layernorm_naive_variance.py layernorm incorrect false"
  "layernorm_two_pass.py layernorm ok true"
  "layernorm_welford.py layernorm ok true"
  "layernorm_jax_ops_gpu.py layernorm ok true"
  "layernorm_xla.py layernorm ok false"
  "embedding_lookup_dynamic_slice.py embedding_lookup ok false"
  "reverse_complement_flip_outside.py reverse_complement ok false"
  "nucleotide_onehot_transposed.py nucleotide_onehot ok false"
  "matmul_weight_packing.py matmul ok true"
  "embedding_lookup_packed_table.py embedding_lookup ok true"
  "relu_padded.py relu ok true"
  "matmul_split_k.py matmul ok true"
)
fails=0
for c in "${cases[@]}"; do
  read -r file task want_status want_robust case_size timed extra <<<"$c"
  [ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $file "* ]] || continue
  name=${file%.py}
  [ -z "$case_size" ] || [ "$case_size" = - ] && case_size=$size
  timing=(--no-timing)
  [ "$name" = relu_replay_cache ] || [ "$timed" = timed ] && timing=(--timing-budget 1)
  # shellcheck disable=SC2086  # extra holds further flags, split on purpose
  build/pallasbench eval --task "$task" --candidate "tests/adversarial/$file" --size "$case_size" --device gpu \
    "${timing[@]}" $extra --json >"$out/$name.json" 2>"$out/$name.log"
  line=$(python3 - "$out/$name.json" "$want_status" "$want_robust" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"FAIL no record ({e})"); sys.exit()
got = (r["status"], str(r["result"]["robustness_passed"]).lower())
sa = r["result"]["filters"]["source_analysis"]["reason"]
median = (r.get("timing") or {}).get("median_us")
ok = got == (sys.argv[2], sys.argv[3])
err = (r.get("error") or {}).get("message", "")
t = r.get("timing") or {}
floor = (t.get("floor") or {})
launch = (t.get("launch_check") or {})
print(f"{'ok  ' if ok else 'FAIL'} status={got[0]} robust={got[1]} median_us={median} "
      f"floor_us={floor.get('floor_us')} below={floor.get('samples_below')} "
      f"launch={launch.get('by_name')}/{launch.get('by_geometry')}/{launch.get('without')} "
      f"source_analysis={sa[:120]!r} error={err[:160]!r}")
PY
)
  case "$line" in FAIL*) fails=$((fails + 1)) ;; esac
  printf "%-42s %s\n" "$file" "$line"
done
echo "adversarial_gpu: $fails case(s) off their verdict"
