"""How often float32 summation misses scatter_add's tolerance in its LARGE degenerate stress case
(every one of the 32768 update rows into one output row; docs/tasks.md: 1e-4 + 1e-4 |ref|), CPU only.

Each column of 32768 N(0,1) rows is summed in float32 by a running sum (the order of an atomic
chain), and by blocks of R rows first (a kernel pre-summing R rows a program), against a float64
sum. Prints the columns outside the bound (of 1024) and the worst error / bound, per seed.
usage: python3 bench/scatter_add_sum_bound.py [--seeds 1,2]
"""
import argparse

import numpy as np

ROWS, COLS = 32768, 1024  # scatter_add's LARGE updates


def misses(x, ref, block):
    partial = x.reshape(ROWS // block, block, COLS).sum(1, dtype=np.float32) if block > 1 else x
    total = np.cumsum(partial, axis=0, dtype=np.float32)[-1]
    err, bound = np.abs(total - ref), 1e-4 + 1e-4 * np.abs(ref)
    return int((err > bound).sum()), float((err / bound).max())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="1,2")
    args = parser.parse_args()
    print("| seed | rows pre-summed | columns outside the bound (of 1024) | worst error / bound |")
    print("|---|---|---|---|")
    for seed in map(int, args.seeds.split(",")):
        x = np.random.default_rng(seed).standard_normal((ROWS, COLS)).astype(np.float32)
        ref = x.astype(np.float64).sum(0)
        for block in (1, 8, 16, 32, 64):
            n, worst = misses(x, ref, block)
            print(f"| {seed} | {block} | {n} | {worst:.2f} |")


if __name__ == "__main__":
    main()
