// Progress on a terminal: the run's printers as they are, with a live line below their output,
// redrawn in place (live_line.hpp). Pipes, files and CI logs get the plain lines only.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pallasbench/core/enum_names.hpp"
#include "pallasbench/report/live_line.hpp"
#include "pallasbench/report/printer.hpp"

namespace pallasbench {

// auto: the live line when the progress stream is a terminal (and TERM is not "dumb").
enum class progress_mode { automatic, live, plain };

template <>
struct enum_names<progress_mode> {
  static constexpr std::string_view what = "progress mode";
  static constexpr std::array entries{
      std::pair{progress_mode::automatic, std::string_view("auto")},
      std::pair{progress_mode::live, std::string_view("live")},
      std::pair{progress_mode::plain, std::string_view("plain")},
  };
};

// Where the live line's width and times come from: the terminal and the steady clock, or fakes.
struct live_terminal {
  using clock = std::chrono::steady_clock;
  std::function<std::size_t()> columns;  // asked at each redraw: the window may be resized
  std::function<clock::time_point()> now = [] { return clock::now(); };
  // Redraws on lanes_busy at most this often (a task's end always redraws).
  std::chrono::milliseconds redraw_every{200};
};

// Wraps the printers that write to the terminal: every event clears the live line, lets them
// print (so the scrollback keeps every line they write) and draws it again below. The line is
// gone once the run finishes, or when the printer is destroyed (an exception ending the run).
class live_progress_printer final : public printer {
public:
  live_progress_printer(std::ostream& out, std::unique_ptr<printer> inner, live_terminal terminal);
  live_progress_printer(const live_progress_printer&) = delete;
  live_progress_printer& operator=(const live_progress_printer&) = delete;
  ~live_progress_printer() override;

private:
  void do_run_started(const run_header& header) override;
  void do_task_finished(const task_progress& progress, const summary_row* row, const nlohmann::json* record) override;
  void do_lanes_busy(const std::vector<lane_activity>& busy) override;
  void do_run_finished(const std::vector<summary_row>& rows, const run_totals& totals) override;
  void draw();
  void clear();

  std::ostream& m_out;
  std::unique_ptr<printer> m_inner;
  live_terminal m_terminal;
  live_status m_status;
  live_terminal::clock::time_point m_start{}, m_drawn_at{};
  std::string m_line;      // as last drawn
  bool m_running = false;  // between run_started and run_finished: the line may be drawn
  bool m_drawn = false;    // the line is on the screen
};

// The terminal's width (TIOCGWINSZ on `fd`), else $COLUMNS, else 80.
[[nodiscard]] std::size_t terminal_columns(int fd);

// Whether `mode` asks for the live line on a stream whose descriptor is `fd`.
[[nodiscard]] bool wants_live_line(progress_mode mode, int fd);

// `inner` as it is, or wrapped in a live_progress_printer drawing on `out` (descriptor `fd`).
[[nodiscard]] std::unique_ptr<printer> with_progress(std::unique_ptr<printer> inner, std::ostream& out, int fd,
                                                     progress_mode mode);

}  // namespace pallasbench
