"""The genomics family: kernels over uint8 DNA bases (A=0, C=1, G=2, T=3): nucleotide_onehot,
reverse_complement, sequence_match, hamming_distance, gc_content, kmer_count.

No float input: their kernels compare, count and index bases (INTEGER_OPS: the record gives no
percentage of a float FLOP ceiling) and run the same at every dtype; their byte models count
bases at one byte each whatever `itemsize` says.

What members import from here by name: the flags (no dot, no order-dependent sum), INTEGER_OPS
and STRESS, the genomics stress block: degenerate (every base the same, poly-A) runs; tiny and
large have no float input to scale, offset no row statistic to shift, and all-distinct bases are
impossible with four of them (kmer_count, whose distinct case is a de Bruijn sequence, declares
its own).
"""

from pallasbench.task.stress import NO_FLOAT_INPUT, NO_ROW_STATISTIC, stress_cases

USES_TF32 = False
ORDER_DEPENDENT = False
# Their "flops" are integer operations (compares, counts, index arithmetic): no float ceiling applies.
INTEGER_OPS = True
STRESS = stress_cases("degenerate", tiny=NO_FLOAT_INPUT, large=NO_FLOAT_INPUT, offset=NO_ROW_STATISTIC,
                      distinct="four bases: all-distinct is impossible")
