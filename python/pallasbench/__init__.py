"""PallasBench's Python side: the worker the C++ harness drives, and the task vocabulary."""
