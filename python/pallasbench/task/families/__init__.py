"""Task families: what the task files of one family share, declared once.

A task file under tasks/levelN/ keeps its own name, level, category, shapes, tolerance,
reference, kernel and tuned configuration; what every member of its family has alike (inputs
and how they are drawn, stress cases, flags, byte model) it imports by name from its family's
module here, whose docstring says what that is. The family's kernel code lives in
pallasbench.kernels (bundled into every record's triton_code); nothing here runs inside a kernel
or imports pallasbench.kernels.

  elementwise  float maps over matrices: the activations, exp/log/rsqrt/clamp, add/multiply/maximum
  matmul       the matmul-epilogue and GLU tasks on kernels.tiled_matmul
  rows         norms, softmax-class ops and row reductions on kernels.rowwise / kernels.reductions
  attention    the attention tasks on kernels.online_attention
  genomics     the tasks over DNA bases
"""
