#!/usr/bin/env bash
# A short check of the GPU code paths before a long device call: CUPTI timing, ceilings, compiler
# capture, ncu parsing. usage (device tool): bench/smoke.sh
cd "$(dirname "$0")/.."
rm -rf /tmp/smoke
timeout 150 build/pallasbench run relu matmul --size small --out /tmp/smoke 2>&1 | tail -8
python3 - <<'PY'
import json
for line in open("/tmp/smoke/records.jsonl"):
    r = json.loads(line)
    t = r["timing"] or {}
    print(r["kernel_name"], r["status"], {k: t.get(k) for k in ("timer", "timer_error", "median_us", "noise", "samples",
          "speedup", "speedup_ci95", "l2_flush_bytes", "throttled_samples", "wall_median_us", "span_median_us")})
    print("  kernels", t.get("kernels"), "ref", t.get("reference_kernels"), "clock", t.get("sm_clock_mhz"))
    print("  stopping", t.get("stopping"), "|", (t.get("reference") or {}).get("stopping"))
    print("  roofline", r["roofline"])
    a = r["artifacts"]
    print("  artifacts", {k: (v if k in ("mode", "unavailable", "capture_s", "tools_s", "ptx", "sass", "ptxas") else type(v).__name__) for k, v in a.items()})
    print("  summary", json.dumps(a.get("summary"))[:1500])
    print("  triton_ir", [(m["name"], m["num_warps"], (m["ir"] or "")[:80]) for m in (a.get("triton_ir") or [])])
    print("  error", r["error"], (r["stderr_tail"] or "")[-1500:])
env = json.loads(open("/tmp/smoke/records.jsonl").readline())["environment"]
print("gpu env", json.dumps(env.get("gpu"))[:3000])
PY
ls -R /tmp/smoke | head -20
OUT=/tmp/smoke-fid timeout 100 bash -c 'mkdir -p $OUT; python3 bench/fidelity.py ours relu small; ncu --csv --clock-control none --cache-control all --metrics gpu__time_duration.sum --launch-count 12 python3 bench/fidelity.py target relu small 10 2>&1 | tail -5'
