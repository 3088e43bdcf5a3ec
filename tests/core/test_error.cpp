#include "pallasbench/core/error.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace pallasbench {
namespace {

TEST(Error, TracebackNamesWhereOurExceptionWasThrown) {
  try {
    throw error("disk on fire");
  } catch (const std::exception& e) {
    const auto text = cpp_traceback(e);
    EXPECT_NE(text.find("C++ pallasbench::error thrown at tests/core/test_error.cpp:11"), std::string::npos) << text;
    EXPECT_NE(text.find("disk on fire"), std::string::npos) << text;
  }
}

TEST(Error, LibraryExceptionsSayWhereTheyWereCaught) {
  try {
    (void)nlohmann::json::parse("{").dump();
  } catch (const std::exception& e) {
    const auto text = cpp_traceback(e);
    EXPECT_NE(text.find("nlohmann"), std::string::npos) << text;
    EXPECT_NE(text.find("(from a library) caught at tests/core/test_error.cpp:23"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace pallasbench
