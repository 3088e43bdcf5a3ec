def kernel(x):
    raise ValueError("this candidate refuses to trace")
