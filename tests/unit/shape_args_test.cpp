// The host's own rendering of op args (analysis-rules.md §4.3), which validate-report compares
// the compute Data tables against byte for byte.
#include <gtest/gtest.h>

#include <traceprism/python_literal.hpp>
#include <traceprism/shape_args.hpp>

namespace traceprism::perf_report {
namespace {

TEST(ShapeArgs, RendersShapesAndShortDtypes) {
  EXPECT_EQ(
      render_shape_args("((256, 131072), (131072, 512))", "('c10::BFloat16', 'c10::BFloat16')"),
      "(256,131072) bf16<br>(131072,512) bf16");
  EXPECT_EQ(render_shape_args("((128,), ())", "('c10::Half', 'Scalar')"), "(128,) fp16");
  EXPECT_EQ(render_shape_args("((2, 3), ())", "('float', 'double')"), "(2,3) fp32<br>() fp64");
  EXPECT_EQ(render_shape_args("((4,), (4,))", "('c10::Float8_e4m3fnuz', 'int')"),
            "(4,) fp8<br>(4,) int");
  EXPECT_EQ(render_shape_args("((1,), ())", "('float', '')"), "(1,) fp32");
  EXPECT_EQ(render_shape_args("", "()"), "");
  EXPECT_EQ(render_shape_args("((1, 2)", "('float',)"), "");  // not a literal
}

TEST(PyLiteral, ReadsTheReportsCells) {
  auto v = parse_python_literal("[{'name': 'k', 'dur': 1.5}, (1,), None, True, -3e-05]");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->repr(), "[{'name': 'k', 'dur': 1.5}, (1,), None, True, -3e-05]");
  EXPECT_EQ(parse_python_literal("np.float64(2.5)")->str(), "2.5");
  EXPECT_EQ(parse_python_literal("(7)")->str(), "7");
  EXPECT_FALSE(parse_python_literal("(1, 2"));
  EXPECT_FALSE(parse_python_literal("1 2"));
}

TEST(ShortDtype, MapsTorchNames) {
  EXPECT_EQ(short_dtype("c10::BFloat16"), "bf16");
  EXPECT_EQ(short_dtype("FLOAT"), "fp32");
  EXPECT_EQ(short_dtype("c10::float4_e2m1fn_x2"), "fp4");
  EXPECT_FALSE(short_dtype("long int"));
}

}  // namespace
}  // namespace traceprism::perf_report
