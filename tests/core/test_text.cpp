// core/text.hpp's small helpers for names and hashes.
#include <gtest/gtest.h>

#include "core/text.hpp"

TEST(Text, AsciiLowerLowersLettersOnly) {
  EXPECT_EQ(pitot::ascii_lower("AbC-9_Z"), "abc-9_z");
  EXPECT_EQ(pitot::ascii_lower("\xC3\x84x"), "\xC3\x84x");  // bytes beyond ASCII stay
  EXPECT_EQ(pitot::ascii_lower(""), "");
}

TEST(Text, LowerHexIsDigitsAndAToF) {
  EXPECT_TRUE(pitot::is_lower_hex("0123456789abcdef"));
  EXPECT_FALSE(pitot::is_lower_hex("ABCDEF"));  // git and asv write hashes in lower case
  EXPECT_FALSE(pitot::is_lower_hex("12g4"));
  EXPECT_FALSE(pitot::is_lower_hex("HEAD~1"));
}
