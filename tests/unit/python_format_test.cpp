#include "text/python_format.hpp"

#include <gtest/gtest.h>

#include <cmath>

using traceprism::text::csv_field;
using traceprism::text::python_float_repr;

// Expected strings are what CPython's repr() prints for these doubles.
TEST(PythonFormat, ReprLayout) {
  EXPECT_EQ(python_float_repr(0.30719775390625), "0.30719775390625");
  EXPECT_EQ(python_float_repr(7.86109300556382), "7.86109300556382");
  EXPECT_EQ(python_float_repr(100.0), "100.0");
  EXPECT_EQ(python_float_repr(0.0), "0.0");
  EXPECT_EQ(python_float_repr(7.2192e-05), "7.2192e-05");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(python_float_repr(-2.5), "-2.5");
  EXPECT_EQ(python_float_repr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(python_float_repr(1.5e-10), "1.5e-10");
  EXPECT_EQ(python_float_repr(std::nan("")), "nan");
}

TEST(PythonFormat, CsvQuoting) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}
