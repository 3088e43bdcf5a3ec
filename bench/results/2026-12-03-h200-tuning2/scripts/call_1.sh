#!/usr/bin/env bash
# Issue 19 on the H200, call 1 of this session: (1) attention_forward LARGE float32 with the
# split-TF32 first query blocks (the precision fix, unverified on a GPU); (2) the Mosaic GPU
# matmul variants, float32 then bfloat16, each size and dtype its own process so a hang or a
# crash loses only that part; (3) the attention variants for LARGE (qk_softmax store_scores,
# transformer_block splits, attention_forward precise rows); (4) the row-kernel variants.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-tuning2/scripts/call_1.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
MM=matmul,linear_bias_relu,swiglu,mlp_block
timed_run large_attention_forward 60 run --size large attention_forward
timed_probe mosaic_f32_medium 80 --tasks $MM --variants mosaic --sizes medium --dtypes float32 --samples 30 --budget-s 70
timed_probe mosaic_f32_large 80 --tasks $MM --variants mosaic --sizes large --dtypes float32 --samples 30 --budget-s 70
timed_probe mosaic_bf16 70 --tasks matmul,mlp_block --variants mosaic --sizes medium,large --dtypes bfloat16 --samples 30 --budget-s 60
timed_probe attention 110 --tasks attention_forward,transformer_block,qk_softmax --sizes large --dtypes float32 --samples 30 --budget-s 100
timed_probe rows 150 --tasks reduce_sum,layernorm,rmsnorm,log_softmax,sigmoid_bce,fused_bias_gelu_dropout,reduce_max,fused_softmax_cross_entropy,fused_layer_norm_relu,cosine_sim,col_sum,scatter_add \
  --sizes medium,large --dtypes float32,bfloat16 --samples 30 --budget-s 140
probe_done
python3 bench/run_summary.py /tmp/large_attention_forward > $OUT/summary.txt 2>&1
tail -3 $OUT/summary.txt
