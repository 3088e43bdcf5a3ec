import os


def kernel(x):
    os.abort()
