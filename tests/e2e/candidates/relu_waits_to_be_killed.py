"""Writes its worker's pid where the test says, then waits to be killed from outside."""
import os
import time


def kernel(x):
    with open(os.environ["PALLASBENCH_TEST_PIDFILE"], "w") as f:
        f.write(str(os.getpid()))
    time.sleep(600)
