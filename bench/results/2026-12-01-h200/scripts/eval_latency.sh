#!/usr/bin/env bash
# How long one evaluation takes, through the tracer/executor path (build/pallasbench) and
# through the harness before it (an older checkout whose binary sits in OLD/build/pallasbench).
# usage: bench/results/2026-12-01-h200/scripts/eval_latency.sh OLD SIZE DEVICE REPEATS   -> a table on stdout
#   cold: one `eval` of a user candidate, the whole command (every process started for it);
#   warm: per-task seconds of a `run` of the six harness tasks as the runner prints them (the
#         reference process, and the executor or candidate worker, already up after the first);
#   users (new only: the old `eval` takes one candidate): per-candidate seconds of one `eval` of
#         four user candidates, each in a fresh sandboxed tracer, one executor for all: a
#         warm-executor evaluation of one candidate, against the old cold `eval`.
# --no-timing throughout: what is compared is the evaluation's own cost, not the timing budget.
set -uo pipefail
old=$1 size=$2 device=$3 repeats=$4
candidate=tests/e2e/candidates/relu_good.py
tasks=(add layernorm matmul reduce_sum relu softmax)
now() { date +%s.%N; }
printf "%-5s %-6s %-5s %s\n" harness kind repeat "seconds (warm: per task, in run order ${tasks[*]})"
for round in $(seq 1 "$repeats"); do
  for which in new old; do
    bin=build/pallasbench
    [ "$which" = old ] && bin=$old/build/pallasbench
    t0=$(now)
    $bin eval --task relu --candidate "$candidate" --size "$size" --device "$device" --no-timing >/dev/null 2>&1
    rc=$?
    t1=$(now)
    printf "%-5s %-6s %-5s %.2f (exit %d)\n" "$which" cold "$round" "$(awk "BEGIN{print $t1 - $t0}")" "$rc"
    out=$(mktemp -d)
    t0=$(now)
    per_task=$($bin run "${tasks[@]}" --size "$size" --device "$device" --no-timing --out "$out/r" 2>&1 |
               grep -E '^\[[0-9]+/' | sed -E 's/.* ([0-9.]+) s$/\1/' | tr '\n' ' ')
    t1=$(now)
    printf "%-5s %-6s %-5s %s (whole run %.2f)\n" "$which" warm "$round" "$per_task" "$(awk "BEGIN{print $t1 - $t0}")"
    rm -rf "$out"
    if [ "$which" = new ]; then
      t0=$(now)
      per_candidate=$($bin eval --task relu --candidate "$candidate" --candidate "$candidate" --candidate "$candidate" \
                      --candidate "$candidate" --size "$size" --device "$device" --no-timing 2>&1 |
                      grep -E '^\[[0-9]+/' | sed -E 's/.* ([0-9.]+) s$/\1/' | tr '\n' ' ')
      t1=$(now)
      printf "%-5s %-6s %-5s %s (whole eval %.2f)\n" "$which" users "$round" "$per_candidate" "$(awk "BEGIN{print $t1 - $t0}")"
    fi
  done
done
