// Python str()/repr() of trace args; expected strings are what CPython prints for the value
// json.loads() gives (after the reference's list_to_tuple for the tuple form).
#include "text/python_repr.hpp"

#include <gtest/gtest.h>

using traceprism::text::python_list_repr;
using traceprism::text::python_string_list_repr;
using traceprism::text::python_string_repr;
using traceprism::text::python_tuple_repr;

TEST(PythonRepr, ShapesAsTuples) {
  EXPECT_EQ(python_tuple_repr("[[512],[141,512],[],[]]"), "((512,), (141, 512), (), ())");
  EXPECT_EQ(python_tuple_repr("[[1,141,512],[],[512],[512],[]]"),
            "((1, 141, 512), (), (512,), (512,), ())");
  EXPECT_EQ(python_tuple_repr("[]"), "()");
  EXPECT_EQ(python_tuple_repr("[[]]"), "((),)");
  // A TensorList argument: a list of shapes.
  EXPECT_EQ(python_tuple_repr("[[[2873320]],[],[]]"), "(((2873320,),), (), ())");
}

TEST(PythonRepr, StringsAsTuples) {
  EXPECT_EQ(python_tuple_repr(R"(["c10::BFloat16","Scalar"])"), "('c10::BFloat16', 'Scalar')");
  EXPECT_EQ(python_tuple_repr(R"(["","[512]","","","9.9999999999999998e-13"])"),
            "('', '[512]', '', '', '9.9999999999999998e-13')");
  EXPECT_EQ(python_tuple_repr(R"(["it's"])"), "(\"it's\",)");
}

TEST(PythonRepr, AbsentIsNone) {
  EXPECT_EQ(python_tuple_repr(""), "None");
  EXPECT_EQ(python_list_repr(""), "None");
}

TEST(PythonRepr, RawLists) {
  EXPECT_EQ(python_list_repr("[[512],[141,512],[],[]]"), "[[512], [141, 512], [], []]");
  EXPECT_EQ(python_list_repr(R"(["c10::BFloat16","c10::BFloat16"])"),
            "['c10::BFloat16', 'c10::BFloat16']");
  EXPECT_EQ(python_list_repr("[[1]]"), "[[1]]");
}

TEST(PythonRepr, ScalarsKeepPythonTypes) {
  // JSON numbers with a fraction or exponent are floats; integers stay ints.
  EXPECT_EQ(python_tuple_repr("[1,1.0,2.5e-5,1e16,-0]"), "(1, 1.0, 2.5e-05, 1e+16, 0)");
  EXPECT_EQ(python_tuple_repr("[true,false,null]"), "(True, False, None)");
  // Lists inside a dict stay lists: list_to_tuple does not enter dicts.
  EXPECT_EQ(python_tuple_repr(R"([{"a":[1,2],"b":"x"}])"), "({'a': [1, 2], 'b': 'x'},)");
  // str() of a bare string has no quotes.
  EXPECT_EQ(python_tuple_repr(R"("plain")"), "plain");
  EXPECT_EQ(python_tuple_repr("7"), "7");
}

TEST(PythonRepr, MalformedTextIsKeptAsWritten) {
  EXPECT_EQ(python_tuple_repr("[1,"), "[1,");
}

TEST(PythonRepr, StringQuotingAndEscapes) {
  EXPECT_EQ(python_string_repr("abc"), "'abc'");
  EXPECT_EQ(python_string_repr("it's"), "\"it's\"");
  EXPECT_EQ(python_string_repr("say \"hi\""), "'say \"hi\"'");
  EXPECT_EQ(python_string_repr("both ' and \""), "'both \\' and \"'");
  EXPECT_EQ(python_string_repr("a\\b"), "'a\\\\b'");
  EXPECT_EQ(python_string_repr("tab\there\nline\r"), "'tab\\there\\nline\\r'");
  EXPECT_EQ(python_string_repr(std::string("nul\x01", 4)), "'nul\\x01'");
  EXPECT_EQ(python_string_repr("\x7f"), "'\\x7f'");
  // Printable non-ASCII text is kept; C1 controls and NBSP are escaped.
  EXPECT_EQ(python_string_repr("µs"), "'µs'");
  EXPECT_EQ(python_string_repr("a\u00a0b"), "'a\\xa0b'");
  EXPECT_EQ(python_string_repr("\u200b"), "'\\u200b'");
}

TEST(PythonRepr, JsonEscapesAreDecodedFirst) {
  EXPECT_EQ(python_tuple_repr(R"(["a\"b","c\\d","\u00e9"])"), "('a\"b', 'c\\\\d', 'é')");
}

TEST(PythonRepr, StringLists) {
  EXPECT_EQ(python_string_list_repr({"GEMM"}), "['GEMM']");
  EXPECT_EQ(python_string_list_repr({"elementwise", "other"}), "['elementwise', 'other']");
  EXPECT_EQ(python_string_list_repr({}), "[]");
}
