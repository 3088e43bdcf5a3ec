// The run's summary: one row per record, printed by a printer chosen for the audience.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pallasbench {

struct summary_row {
  std::string task;
  int level = 0;
  std::string size;
  std::string status;
  std::optional<bool> robust;  // robustness_passed
  std::optional<double> max_abs_error;
  std::optional<double> kernel_us;     // median
  std::optional<double> reference_us;  // median of the XLA reference
  std::string timer;
  std::string device;   // "cpu" (interpret mode) or "gpu"
  std::string message;  // the error, for failed rows

  // Correct and robust: what exit code 0 means.
  [[nodiscard]] bool passed() const { return status == "ok" && robust.value_or(false); }
  // reference / kernel: above 1 the kernel is faster. None in CPU interpret mode, where the
  // kernel runs through an interpreter and no speed comparison means anything.
  [[nodiscard]] std::optional<double> ratio() const;
  [[nodiscard]] static summary_row from_record(const nlohmann::json& record);
};

class summary_printer {
public:
  virtual ~summary_printer() = default;
  virtual void print(std::ostream& out, const std::vector<summary_row>& rows) const = 0;
};

// Aligned columns for a terminal, with a count of statuses at the end.
class table_printer final : public summary_printer {
public:
  void print(std::ostream& out, const std::vector<summary_row>& rows) const override;
};

// A GitHub markdown table (bench/results).
class markdown_printer final : public summary_printer {
public:
  void print(std::ostream& out, const std::vector<summary_row>& rows) const override;
};

[[nodiscard]] std::unique_ptr<summary_printer> make_printer(const std::string& format);  // "table" | "markdown"

// One line per finished task: "[3/38] softmax (small) ok  max|err| 1.2e-07  kernel 81.2 us  2.3 s".
[[nodiscard]] std::string progress_line(std::size_t index, std::size_t total, const summary_row& row, double seconds);

}  // namespace pallasbench
