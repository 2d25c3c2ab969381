// Python repr of axis values, as asv stores parameters.
#include <gtest/gtest.h>

#include <pitot/detail/axis_repr.hpp>

using pitot::AxisKind;
using pitot::AxisValue;
using pitot::python_repr;

TEST(Axis, IntRepr) {
  EXPECT_EQ(python_repr(AxisValue{std::int64_t{10}}), "10");
  EXPECT_EQ(python_repr(AxisValue{std::int64_t{-3}}), "-3");
}

TEST(Axis, FloatReprMatchesPython) {
  // Values checked against Python 3: repr(0.5), repr(2.0), repr(0.1), repr(1e16), repr(1e-05), ...
  EXPECT_EQ(python_repr(AxisValue{0.5}), "0.5");
  EXPECT_EQ(python_repr(AxisValue{2.0}), "2.0");
  EXPECT_EQ(python_repr(AxisValue{0.1}), "0.1");
  EXPECT_EQ(python_repr(AxisValue{1e16}), "1e+16");
  EXPECT_EQ(python_repr(AxisValue{1e15}), "1000000000000000.0");
  EXPECT_EQ(python_repr(AxisValue{1e-05}), "1e-05");
  EXPECT_EQ(python_repr(AxisValue{0.0001}), "0.0001");
  EXPECT_EQ(python_repr(AxisValue{123.456}), "123.456");
  EXPECT_EQ(python_repr(AxisValue{-2.5e-07}), "-2.5e-07");
  EXPECT_EQ(python_repr(AxisValue{1.0 / 3.0}), "0.3333333333333333");
}

TEST(Axis, StringReprMatchesPython) {
  EXPECT_EQ(python_repr(AxisValue{std::string("abc")}), "'abc'");
  EXPECT_EQ(python_repr(AxisValue{std::string("it's")}), "\"it's\"");
  EXPECT_EQ(python_repr(AxisValue{std::string("a'b\"c")}), "'a\\'b\"c'");
  EXPECT_EQ(python_repr(AxisValue{std::string("tab\there")}), "'tab\\there'");
}

TEST(Axis, DisplayPowerOfTwo) {
  EXPECT_EQ(pitot::display_value(AxisValue{std::int64_t{1024}}, AxisKind::Pow2), "2^10");
  EXPECT_EQ(pitot::display_value(AxisValue{std::int64_t{1024}}, AxisKind::Int), "1024");
}
