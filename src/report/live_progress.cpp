#include "pallasbench/report/live_progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace pallasbench {
namespace {

constexpr std::size_t k_default_columns = 80;

std::string label_of(const task_progress& p) { return fmt::format("{} ({})", p.task, p.size); }

}  // namespace

live_progress_printer::live_progress_printer(std::ostream& out, std::unique_ptr<printer> inner, live_terminal terminal)
    : m_out(out), m_inner(std::move(inner)), m_terminal(std::move(terminal)) {}

live_progress_printer::~live_progress_printer() {
  try {
    clear();
  } catch (...) {  // a destructor must not throw; the stream's state says what failed
  }
}

void live_progress_printer::do_run_started(const run_header& header) {
  m_inner->run_started(header);
  m_status = {0, header.tasks, 0, 0, {}};
  m_start = m_terminal.now();
  m_running = true;
  draw();
}

void live_progress_printer::do_task_finished(const task_progress& p, const summary_row* row,
                                             const nlohmann::json* record) {
  clear();
  m_inner->task_finished(p, row, record);
  m_status.done = p.index;
  m_status.total = p.total;
  if (p.event == task_event::evaluated) ++m_status.evaluated;
  // Its lane is idle now; the next lanes_busy says what it took up.
  const auto label = label_of(p);
  if (const auto it = std::ranges::find(m_status.busy, label, &lane_activity::task); it != m_status.busy.end())
    m_status.busy.erase(it);
  draw();
}

void live_progress_printer::do_lanes_busy(const std::vector<lane_activity>& busy) {
  m_inner->lanes_busy(busy);
  m_status.busy = busy;
  if (m_terminal.now() - m_drawn_at >= m_terminal.redraw_every) draw();
}

void live_progress_printer::do_run_finished(const std::vector<summary_row>& rows, const run_totals& totals) {
  clear();
  m_running = false;
  m_inner->run_finished(rows, totals);
}

void live_progress_printer::draw() {
  if (!m_running) return;
  const auto now = m_terminal.now();
  m_status.elapsed_s = std::chrono::duration<double>(now - m_start).count();
  auto line = live_line(m_status, m_terminal.columns());
  m_drawn_at = now;
  if (m_drawn && line == m_line) return;  // the same text again would only flicker
  m_out << k_clear_line << line;
  m_out.flush();
  m_drawn = true;
  m_line = std::move(line);
}

void live_progress_printer::clear() {
  if (!m_drawn) return;
  m_out << k_clear_line;
  m_out.flush();
  m_drawn = false;
}

std::size_t terminal_columns(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const auto n = std::strtoul(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0) return n;
  }
  return k_default_columns;
}

bool wants_live_line(progress_mode mode, int fd) {
  if (mode != progress_mode::automatic) return mode == progress_mode::live;
  const char* term = std::getenv("TERM");
  return ::isatty(fd) == 1 && !(term && std::string_view(term) == "dumb");
}

std::unique_ptr<printer> with_progress(std::unique_ptr<printer> inner, std::ostream& out, int fd, progress_mode mode) {
  if (!wants_live_line(mode, fd)) return inner;
  return std::make_unique<live_progress_printer>(out, std::move(inner),
                                                 live_terminal{[fd] { return terminal_columns(fd); }});
}

}  // namespace pallasbench
