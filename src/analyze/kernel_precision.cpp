// analyze_kernel_precision: float types, dot precisions and narrowing ops in the IR of the Pallas
// kernels (Triton's, or Mosaic GPU's lowered module), as the executor decoded it (one MLIR op per
// line).
#include "pallasbench/analyze/module_analysis.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace pallasbench {
namespace {

using json = nlohmann::json;

bool is_float_type(std::string_view t) {
  return t == "f16" || t == "bf16" || t == "f32" || t == "f64" || t == "tf32" || t == "f80" || t == "f128" ||
         t.starts_with("f8E") || t.starts_with("f6E") || t.starts_with("f4E");
}
// Significand bits (the implicit one included) of an MLIR float type; 0 for an unknown one.
int significand_bits(std::string_view t) {
  if (t == "f128") return 113;
  if (t == "f80") return 64;
  if (t == "f64") return 53;
  if (t == "f32") return 24;
  if (t == "tf32" || t == "f16") return 11;
  if (t == "bf16") return 8;
  // f8E4M3FN, f8E5M2, f6E2M3FN, f4E2M1FN, ...: the digits after 'M' are the stored bits.
  const std::size_t m = t.rfind('M');
  if (m != std::string_view::npos && m + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[m + 1])))
    return (t[m + 1] - '0') + 1;
  return 0;
}
// A float type less precise than the task's own (f32 for float32 tasks, bf16 for bfloat16 ones).
// TF32 is not a value type of its own here: the dot precision check handles it.
bool is_narrow_float(std::string_view t, std::string_view task_float) {
  return is_float_type(t) && t != "tf32" && significand_bits(t) < significand_bits(task_float);
}
bool is_int_type(std::string_view t) {
  return t.size() > 1 && (t[0] == 'i' || (t[0] == 'u' && t[1] == 'i')) &&
         std::all_of(t.begin() + (t[0] == 'u' ? 2 : 1), t.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Element types written on a line, in order: "f32" in tensor<16x512xf32>, !tt.ptr<f32>, ": f32".
std::vector<std::string_view> element_types(std::string_view line) {
  std::vector<std::string_view> found;
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = 0; i < line.size();) {
    if (!word_char(line[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < line.size() && word_char(line[end])) ++end;
    std::string_view word = line.substr(i, end - i);
    const char before = i == 0 ? ' ' : line[i - 1];
    if (before != '%' && before != '@' && before != '#' && before != '^' && before != '.' && before != '$') {
      // A shape's "16x512xf32" is one word: the type follows its last 'x' after a digit.
      const std::size_t x = word.rfind('x');
      if (x != std::string_view::npos && x > 0 &&
          (std::isdigit(static_cast<unsigned char>(word[x - 1])) || word[x - 1] == '?'))
        word = word.substr(x + 1);
      if (is_float_type(word) || is_int_type(word)) found.push_back(word);
    }
    i = end;
  }
  return found;
}

// Inline PTX in a string on the line (Mosaic GPU's wgmma, mma and cvt; Triton's
// elementwise_inline_asm): ".f32.tf32.tf32" in "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32"
// names the instruction's types, which no MLIR type on the line shows. Written by hand: no library
// here parses PTX, and only the type suffixes matter.
std::string_view ptx_float_type(std::string_view suffix) {
  static const std::map<std::string_view, std::string_view> types = {
      {"tf32", "tf32"},       {"f16", "f16"},           {"f16x2", "f16"},         {"bf16", "bf16"},
      {"bf16x2", "bf16"},     {"f32", "f32"},           {"f64", "f64"},           {"e4m3", "f8E4M3FN"},
      {"e4m3x2", "f8E4M3FN"}, {"e5m2", "f8E5M2"},       {"e5m2x2", "f8E5M2"},     {"e2m3", "f6E2M3FN"},
      {"e2m3x2", "f6E2M3FN"}, {"e3m2", "f6E3M2FN"},     {"e3m2x2", "f6E3M2FN"},   {"e2m1", "f4E2M1FN"},
      {"e2m1x2", "f4E2M1FN"}};
  const auto it = types.find(suffix);
  return it == types.end() ? std::string_view{} : it->second;
}

std::vector<std::string_view> ptx_types(std::string_view line) {
  std::vector<std::string_view> found;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;  // an escaped character, \" included
      continue;
    }
    if (line[i] == '"') quoted = !quoted;
    if (!quoted || line[i] != '.') continue;
    std::size_t end = i + 1;
    while (end < line.size() && std::isalnum(static_cast<unsigned char>(line[end]))) ++end;
    if (const auto type = ptx_float_type(line.substr(i + 1, end - i - 1)); !type.empty()) found.push_back(type);
  }
  return found;
}

// "arith.truncf" in "%25 = arith.truncf %24 : ...".
std::string_view op_of(std::string_view line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos) return "";
  if (line[i] == '%') {
    const std::size_t eq = line.find(" = ", i);
    if (eq == std::string_view::npos) return "";
    i = eq + 3;
  }
  if (i < line.size() && line[i] == '"') ++i;
  std::size_t end = i;
  while (end < line.size() &&
         (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_' || line[end] == '.'))
    ++end;
  return line.substr(i, end - i);
}

const std::set<std::string_view> k_conversions = {"arith.truncf",  "arith.extf",   "tt.fp_to_fp", "tt.bitcast",
                                                  "arith.bitcast", "arith.sitofp", "arith.uitofp"};
const std::set<std::string_view> k_dots = {"tt.dot", "tt.dot_scaled", "ttng.warp_group_dot"};
// Dot precisions that round f32 operands to TF32 accuracy (bf16x3: three bf16 products, no better).
const std::set<std::string_view> k_tf32_precisions = {"tf32", "bf16x3"};
constexpr std::size_t k_downgrades_per_kernel = 5;

// Where the dot's precision attribute is written: [begin, value) the key, [value, end) the value.
struct precision_span {
  std::size_t begin = std::string_view::npos, value = 0, end = 0;
};

precision_span find_precision(std::string_view line) {
  for (const std::string_view key : {"inputPrecision = ", "input_precision = "}) {
    const std::size_t at = line.find(key);
    if (at == std::string_view::npos) continue;
    precision_span span{at, at + key.size(), 0};
    if (line.substr(span.value).starts_with("#tt<input_precision ")) span.value += 20;
    span.end = span.value;
    while (span.end < line.size() &&
           (std::isalnum(static_cast<unsigned char>(line[span.end])) || line[span.end] == '_'))
      ++span.end;
    return span;
  }
  return {};
}

std::string dot_precision(std::string_view line) {
  const precision_span span = find_precision(line);
  return span.begin == std::string_view::npos ? "default" : std::string(line.substr(span.value, span.end - span.value));
}

std::string without_precision(std::string_view line) {
  const precision_span span = find_precision(line);
  if (span.begin == std::string_view::npos) return std::string(line);
  return std::string(line.substr(0, span.begin)).append(line.substr(span.end));
}

std::string kernel_label(const kernel_ir& kernel, std::size_t index) {
  if (!kernel.name.empty()) return kernel.name;
  const std::size_t at = kernel.ir.find("tt.func ");
  const std::size_t sym = at == std::string::npos ? at : kernel.ir.find('@', at);
  if (sym != std::string::npos) return kernel.ir.substr(sym + 1, kernel.ir.find_first_of("( ", sym) - sym - 1);
  return fmt::format("#{}", index);
}

// Only f32 operands can be rounded to TF32 (Triton prints inputPrecision = tf32 on bf16 dots too).
bool has_f32_operand(const std::vector<std::string_view>& types) {
  const auto operands_end = types.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(2, types.size()));
  return std::find(types.begin(), operands_end, "f32") != operands_end;
}

// One kernel's float types, dots and narrowing ops, read line by line into the report.
class kernel_scan {
public:
  kernel_scan(std::string label, precision_report& report, std::string_view task_float)
      : m_label(std::move(label)), m_report(report), m_task_float(task_float) {}

  void read(std::string_view line) {
    const std::string_view op = op_of(line);
    const std::string precision = k_dots.contains(op) ? dot_precision(line) : "";
    // Types are read without the dot's "inputPrecision = tf32", which names no value's type.
    const std::string typed = precision.empty() ? std::string(line) : without_precision(line);
    auto types = element_types(typed);
    const auto in_ptx = ptx_types(line);
    types.insert(types.end(), in_ptx.begin(), in_ptx.end());
    std::vector<std::string> narrow;
    for (const auto type : types) {
      if (!is_float_type(type)) continue;
      m_report.float_types.emplace(type);
      m_tf32 = m_tf32 || type == "tf32";
      if (is_narrow_float(type, m_task_float) && std::find(narrow.begin(), narrow.end(), type) == narrow.end())
        narrow.emplace_back(type);
    }
    if (!precision.empty()) {
      m_report.dot_precisions.insert(precision);
      m_tf32 = m_tf32 || (k_tf32_precisions.contains(precision) && has_f32_operand(types));
    }
    if (!narrow.empty()) note_narrow(op, types, narrow);
  }

  // The problems, under the task's policy.
  void finish(const module_analysis_options& options) {
    for (const auto& type : m_narrow_seen)
      if (!m_narrow_reported.contains(type)) add_downgrade(fmt::format("{} in the IR", type));
    m_report.tf32 = m_report.tf32 || m_tf32;
    if (!options.float_task) return;
    if (m_downgrades.size() > k_downgrades_per_kernel) {
      const std::size_t more = m_downgrades.size() - k_downgrades_per_kernel;
      m_downgrades.resize(k_downgrades_per_kernel);
      m_downgrades.push_back(fmt::format("kernel '{}': {} more narrow-float ops", m_label, more));
    }
    for (const auto& d : m_downgrades) {
      m_report.downgrades.push_back(d);
      m_report.below_class.push_back(fmt::format("precision downgrade: {}", d));
    }
    if (m_tf32 && !options.allow_tf32)
      m_report.below_class.push_back(
          fmt::format("kernel '{}': TF32 dot in a task that does not declare USES_TF32", m_label));
  }

private:
  std::string m_label;
  precision_report& m_report;
  std::string_view m_task_float;
  std::vector<std::string> m_downgrades;
  std::set<std::string, std::less<>> m_narrow_seen, m_narrow_reported;
  bool m_tf32 = false;

  void add_downgrade(const std::string& what) {
    const std::string message = fmt::format("kernel '{}': {}", m_label, what);
    if (std::find(m_downgrades.begin(), m_downgrades.end(), message) == m_downgrades.end())
      m_downgrades.push_back(message);
  }

  // A conversion is reported where it narrows ("arith.truncf f32 -> bf16"), not where it widens
  // back; any other op by the narrow types it handles ("bf16 in tt.load").
  void note_narrow(std::string_view op, const std::vector<std::string_view>& types,
                   const std::vector<std::string>& narrow) {
    m_narrow_seen.insert(narrow.begin(), narrow.end());
    if (k_conversions.contains(op)) {
      if (!is_narrow_float(types.back(), m_task_float)) return;
      m_narrow_reported.emplace(types.back());
      return add_downgrade(fmt::format("{} {} -> {}", op, types.front(), types.back()));
    }
    m_narrow_reported.insert(narrow.begin(), narrow.end());
    add_downgrade(fmt::format("{} in {}", fmt::join(narrow, ", "), op.empty() ? "the IR" : op));
  }
};

}  // namespace

precision_report analyze_kernel_precision(const std::vector<kernel_ir>& kernels,
                                          const module_analysis_options& options) {
  precision_report report;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const kernel_ir& kernel = kernels[i];
    const std::string label = kernel_label(kernel, i);
    if (!kernel.ir.empty()) {
      kernel_scan scan(label, report, options.task_float);
      const std::string_view ir = kernel.ir;
      for (std::size_t begin = 0; begin < ir.size();) {
        const std::size_t end = std::min(ir.find('\n', begin), ir.size());
        scan.read(ir.substr(begin, end - begin));
        begin = end + 1;
      }
      scan.finish(options);
      continue;
    }
    report.unreadable.push_back(label);
    if (options.float_task)
      report.problems.push_back(fmt::format("kernel '{}': IR unreadable ({}), precision unverified", label,
                                            kernel.decode_error.empty() ? "no IR given" : kernel.decode_error));
  }
  return report;
}

json precision_report::to_json() const {
  return {{"float_types", float_types}, {"dot_precisions", dot_precisions}, {"tf32", tf32},
          {"downgrades", downgrades},   {"below_class", below_class},       {"unreadable", unreadable},
          {"problems", problems}};
}

}  // namespace pallasbench
