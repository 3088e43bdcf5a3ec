// The live progress line a terminal shows while a run works (live_progress.hpp draws it): what is
// done, what each busy lane is doing, how long it took and how long it may still take.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pallasbench/report/printer.hpp"

namespace pallasbench {

// Back to the line's first column and erase it (ECMA-48 CR, EL 2): before each redraw, and to
// leave the terminal clean.
inline constexpr std::string_view k_clear_line = "\r\x1b[2K";

struct live_status {
  std::size_t done = 0, total = 0;  // tasks told so far, of the run's
  std::size_t evaluated = 0;        // of `done`, those evaluated in this run: the ETA's pace
  double elapsed_s = 0;             // since the run started
  std::vector<lane_activity> busy;
};

// Seconds still to go at the pace so far (elapsed / evaluated * remaining); none until a task has
// been evaluated (recorded ones take no time and would make it meaningless).
[[nodiscard]] std::optional<double> eta_seconds(const live_status& status);

// "0:07", "12:34", "1:02:03" (whole seconds, rounded down).
[[nodiscard]] std::string format_clock(double seconds);

// "[3/38] elapsed 0:12  ETA 2:10 | softmax (small) compile | add (small) timing", cut to fit
// `columns` (with "..." at the cut, in fewer bytes than `columns` so that it never wraps).
[[nodiscard]] std::string live_line(const live_status& status, std::size_t columns);

// `text` in at most `width` bytes, ending in "..." when cut, never inside a UTF-8 sequence.
[[nodiscard]] std::string fit_width(std::string text, std::size_t width);

}  // namespace pallasbench
