// PallasBench's exceptions carry where they were thrown: a failure record says file:line.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>

namespace pallasbench {

class error : public std::runtime_error {
public:
  explicit error(const std::string& message, std::source_location where = std::source_location::current())
      : std::runtime_error(message), m_where(where) {}
  [[nodiscard]] const std::source_location& where() const { return m_where; }

private:
  std::source_location m_where;
};

// "src/orchestrate/worker.cpp:95 (read_reply)": the path from the project's src/ or include/ on.
[[nodiscard]] std::string describe_location(const std::source_location& where);

// What a failure record's traceback holds for a C++ exception: its type, and where it was thrown
// (pallasbench::error) or, for others (the standard library's, nlohmann-json's), where it was caught.
[[nodiscard]] std::string cpp_traceback(const std::exception& e,
                                        std::source_location caught = std::source_location::current());

}  // namespace pallasbench
