#include "pallasbench/core/utf8.hpp"

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

TEST(Utf8, ValidTextIsUnchanged) {
  EXPECT_EQ(valid_utf8("caf\xc3\xa9 \xe2\x9c\x93 ok"), "caf\xc3\xa9 \xe2\x9c\x93 ok");
}

TEST(Utf8, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(valid_utf8("a\xff"
                       "b"),
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(valid_utf8("latin-1 caf\xe9"), "latin-1 caf\xef\xbf\xbd");
}

TEST(Utf8, ACutSequenceAtTheEndIsReplaced) { EXPECT_EQ(valid_utf8("x\xe2\x9c"), "x\xef\xbf\xbd"); }

TEST(Utf8, NulAndControlBytesSurvive) { EXPECT_EQ(valid_utf8(std::string("a\0b\x01", 4)), std::string("a\0b\x01", 4)); }

}  // namespace
}  // namespace pallasbench
