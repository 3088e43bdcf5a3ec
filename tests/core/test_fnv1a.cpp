#include "pallasbench/core/fnv1a.hpp"

#include <gtest/gtest.h>

namespace pallasbench {
namespace {

// Pinned values of the project's variant (its offset basis, fnv1a.hpp): records' config_hash,
// --seed reproductions and the shards depend on them.
TEST(Fnv1a, PinnedValues) {
  static_assert(fnv1a("") == k_fnv1a_offset_basis);
  EXPECT_EQ(fnv1a("a"), 0x44bd8ad473cd9906ull);
  EXPECT_EQ(fnv1a("foobar"), 0x88fad7c0a8ff07f2ull);
}

TEST(Fnv1a, BytesAboveAsciiHashAsUnsigned) {
  // "\xff" must hash as 255, not as a sign-extended char.
  EXPECT_EQ(fnv1a("\xff"), 0x44bd24d473ccebb4ull);
  EXPECT_EQ(fnv1a("\xff"), (k_fnv1a_offset_basis ^ 0xffull) * k_fnv1a_prime);
}

}  // namespace
}  // namespace pallasbench
