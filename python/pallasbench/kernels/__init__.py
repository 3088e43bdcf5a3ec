"""Kernel families shared by several task files. A record bundles the source of every module here
that a kernel file imports, and of the modules those import (reference.kernel_modules_used)."""
