#!/usr/bin/env bash
# Device call 1c (issue 39): compare's GPU acceptance alone (bench/compare_gpu.sh at MEDIUM), for
# the last of the session's device budget.
# usage (device tool, from the repository root, build/ carried): OUT=$OUT bash <this file>
set -uo pipefail
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
compare_acceptance 200
tail -25 "$OUT/compare_gpu.log"
