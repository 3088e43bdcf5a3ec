"""The CLI's Python-side tools (`pallasbench report --html`, `pallasbench export`, `pallasbench
list --format markdown`): the binary execs `python -m pallasbench.tools.<module>`
(src/cli/python_tool.cpp). They read records or the task files; the judgement in them is the C++
harness's.

Exit codes follow the CLI's: 0 done, 2 a usage error (a file that cannot be read, a corrupt line:
named with file:line), 3 anything else."""
from __future__ import annotations

import sys
import traceback
from typing import Callable

USAGE, HARNESS = 2, 3


class ToolUsageError(Exception):
    """Bad input the user can fix; the message names the file (and line)."""


def main(run: Callable[[list[str]], int], argv: list[str] | None = None) -> int:
    """Runs a tool's entry point with the CLI's exit codes and its "pallasbench: error:" lines."""
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except ToolUsageError as e:
        print(f"pallasbench: error: {e}", file=sys.stderr)
        return USAGE
    except Exception:  # a defect of the tool: its traceback, and the harness's exit code
        traceback.print_exc()
        return HARNESS
