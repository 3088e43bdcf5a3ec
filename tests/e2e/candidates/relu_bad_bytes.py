"""Writes bytes that are not UTF-8 to stderr, then fails: the failure must stay a failure (exit 1,
a valid JSON record), never a harness error."""
import os


def kernel(x):
    os.write(2, b"garbage \xff\xfe\xc3 not utf-8\n")
    raise ValueError("bad bytes \udcff in the message")
