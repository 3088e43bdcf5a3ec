"""Waits while being traced, to be killed from outside (test_tracer_killed_from_outside)."""
import time


def kernel(x):
    time.sleep(600)
