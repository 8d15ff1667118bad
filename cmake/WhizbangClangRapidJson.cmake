# Debian 12's RapidJSON (1.1.0) defines GenericStringRef::operator=, which assigns to a const
# member. g++ never checks that unused body; Clang 19 rejects it in every file that includes
# rapidjson/document.h, with an error no flag turns off. A Clang build (the fuzzers:
# WHIZBANG_FUZZERS, ./dev.sh fuzz) therefore reads a copy of the headers in its build tree
# without that operator, as later RapidJSON releases have it. A RapidJSON without it is used as is.
set(_whizbang_rapidjson "${RAPIDJSON_INCLUDE_DIRS}/rapidjson")
set(_whizbang_bad_assignment
    "GenericStringRef& operator=(const GenericStringRef& rhs) { s = rhs.s; length = rhs.length; }")
if(NOT TARGET RapidJSON AND EXISTS "${_whizbang_rapidjson}/document.h")
  file(READ "${_whizbang_rapidjson}/document.h" _whizbang_document)
  string(FIND "${_whizbang_document}" "${_whizbang_bad_assignment}" _whizbang_at)
  if(NOT _whizbang_at EQUAL -1)
    set(_whizbang_copy "${CMAKE_BINARY_DIR}/rapidjson-for-clang")
    file(COPY "${_whizbang_rapidjson}" DESTINATION "${_whizbang_copy}"
         PATTERN document.h EXCLUDE)
    string(REPLACE "${_whizbang_bad_assignment}" "" _whizbang_document "${_whizbang_document}")
    # Replaced only when its bytes change: a reconfigure must not rebuild every file.
    file(WRITE "${_whizbang_copy}/document.h.new" "${_whizbang_document}")
    file(COPY_FILE "${_whizbang_copy}/document.h.new" "${_whizbang_copy}/rapidjson/document.h"
         ONLY_IF_DIFFERENT)
    set(RAPIDJSON_INCLUDE_DIRS "${_whizbang_copy}")
    message(STATUS "RapidJSON for Clang: ${_whizbang_copy} (without GenericStringRef::operator=)")
  endif()
endif()
