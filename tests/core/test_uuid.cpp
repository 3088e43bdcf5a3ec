#include "pallasbench/core/uuid.hpp"

#include <regex>

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

TEST(Uuid, UuidIsVersion4) {
  const std::regex v4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  const auto a = make_uuid();
  EXPECT_TRUE(std::regex_match(a, v4)) << a;
  EXPECT_NE(a, make_uuid());
}

}  // namespace
}  // namespace pallasbench
