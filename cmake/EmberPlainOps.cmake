# The plain unary functions (ember::exp(t), ember::relu(t), ...) are the rows of the
# elementwise op table whose api column is Plain (extend/elementwise_ops.h). The table is the
# extension set's, so the user set cannot include it; instead configure lists those rows with
# the compiler's own preprocessor (the table is an X-macro, with comments and conditionals a
# text search would misread) and writes their declarations into a header of the user set,
# <ember/core/ops/plain_unary_ops.h>, under the build folder. A new Plain row then declares its
# function with no other edit, and editing the table re-runs configure.
#
# Sets EMBER_GENERATED_HEADERS (the folder holding the generated ember/ headers) and
# EMBER_PLAIN_OPS_HEADER (the header itself, which EmberInstall.cmake installs).

set(EMBER_GENERATED_HEADERS "${CMAKE_CURRENT_BINARY_DIR}/generated")
set(EMBER_PLAIN_OPS_HEADER "${EMBER_GENERATED_HEADERS}/ember/core/ops/plain_unary_ops.h")
set(_table "${CMAKE_CURRENT_SOURCE_DIR}/extend/elementwise_ops.h")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_table}")

# Each Plain row expands to its name and dtype rule; the other rows to nothing.
set(_probe "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/ember_plain_ops/rows.cpp")
file(WRITE "${_probe}" "#include \"${_table}\"
#define EMBER_ROW(Enum, name, dtypes, api, ...) EMBER_ROW_##api(name, dtypes)
#define EMBER_ROW_Plain(name, dtypes) name dtypes
#define EMBER_ROW_Custom(name, dtypes)
EMBER_UNARY_OPS(EMBER_ROW)
")
execute_process(COMMAND ${CMAKE_CXX_COMPILER} -E -P -x c++ "${_probe}"
  OUTPUT_VARIABLE _rows ERROR_VARIABLE _error RESULT_VARIABLE _result)
if(NOT _result EQUAL 0)
  message(FATAL_ERROR "Ember: the preprocessor could not read the op table ${_table}:\n${_error}")
endif()
string(REGEX MATCHALL "[A-Za-z_][A-Za-z0-9_]*" _tokens "${_rows}")
list(LENGTH _tokens _count)
math(EXPR _odd "${_count} % 2")
if(_count EQUAL 0 OR _odd)
  message(FATAL_ERROR "Ember: the op table's Plain rows did not read as name/dtype pairs: '${_rows}'")
endif()

set(_declarations "")
math(EXPR _last "${_count} - 1")
foreach(_i RANGE 0 ${_last} 2)
  math(EXPR _j "${_i} + 1")
  list(GET _tokens ${_i} _name)
  list(GET _tokens ${_j} _dtypes)
  if(_dtypes STREQUAL "Floating")
    string(APPEND _declarations "/// float32 and float64 only (DTypeError for another dtype).\n")
  elseif(NOT _dtypes STREQUAL "Any")
    message(FATAL_ERROR "Ember: the Plain row ${_name} has the dtype rule '${_dtypes}' (Any or Floating)")
  endif()
  string(APPEND _declarations "EMBER_API Tensor ${_name}(const Tensor& t);\n")
endforeach()

set(_content "#pragma once
// Generated at configure time by cmake/EmberPlainOps.cmake from the rows of the elementwise op
// table (extend/elementwise_ops.h) whose api column is Plain: do not edit. Each function
// applies its op to every element of t, as the PyTorch function of the same name
// (rsqrt(t) = 1 / sqrt(t)), records it for autograd when t requires a gradient, and keeps t's
// shape, device and dtype.
#include \"ember/core/export.h\"
#include \"ember/core/tensor.h\"

namespace ember {

${_declarations}
}  // namespace ember
")
# Written only when it changes, so that a reconfigure does not rebuild what includes it.
file(WRITE "${EMBER_PLAIN_OPS_HEADER}.new" "${_content}")
file(COPY_FILE "${EMBER_PLAIN_OPS_HEADER}.new" "${EMBER_PLAIN_OPS_HEADER}" ONLY_IF_DIFFERENT)
file(REMOVE "${EMBER_PLAIN_OPS_HEADER}.new")
