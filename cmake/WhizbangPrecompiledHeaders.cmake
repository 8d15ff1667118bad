# Precompiled third-party headers for the project's own targets, to cut build time: every
# runtime or test file parses Abseil's status and containers, spdlog and the standard library
# before its own code (about 5 s of a 12 s compile here), and the test files GoogleTest too.
# Only third-party and standard headers go in, never the project's own: a change to a project
# header rebuilds what includes it and nothing more.
#
# The precompiled headers are force-included, so a file that forgets one of these includes still
# compiles here. ./dev.sh tsan builds the runtime and the suites with
# WHIZBANG_PRECOMPILED_HEADERS=OFF (and ./dev.sh fuzz the runtime's message part), which catches a
# missing include; the install test builds a consumer of the public headers without them.
option(WHIZBANG_PRECOMPILED_HEADERS "Precompile third-party headers of the project's own targets"
       ON)

set(WHIZBANG_PRECOMPILED_LIBRARY_HEADERS
    <algorithm> <atomic> <chrono> <functional> <map> <memory> <mutex> <optional> <span>
    <string> <string_view> <utility> <variant> <vector>
    <absl/status/status.h> <absl/status/statusor.h> <absl/strings/str_cat.h>
    <absl/container/flat_hash_map.h> <absl/synchronization/mutex.h>
    <spdlog/spdlog.h> <rapidjson/document.h>)

# whizbang_precompile_library_headers(target): the target gets its own precompiled header.
function(whizbang_precompile_library_headers target)
  if(WHIZBANG_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} PRIVATE ${WHIZBANG_PRECOMPILED_LIBRARY_HEADERS})
  endif()
endfunction()

# whizbang_precompile_test_headers(target): one precompiled header (built once, by
# whizbang_test_pch) shared by every test binary. The binaries share its compile options
# (whizbang_add_test), which a reused precompiled header needs.
function(whizbang_precompile_test_headers target)
  if(NOT WHIZBANG_PRECOMPILED_HEADERS)
    return()
  endif()
  if(NOT TARGET whizbang_test_pch)
    add_library(whizbang_test_pch OBJECT ${PROJECT_SOURCE_DIR}/tests/support/test_pch.cpp)
    target_link_libraries(whizbang_test_pch PRIVATE Whizbang::runtime GTest::gtest GTest::gmock)
    whizbang_project_warnings(whizbang_test_pch)
    whizbang_test_code(whizbang_test_pch)
    target_precompile_headers(whizbang_test_pch PRIVATE ${WHIZBANG_PRECOMPILED_LIBRARY_HEADERS}
                              <gtest/gtest.h> <gmock/gmock.h>)
  endif()
  target_precompile_headers(${target} REUSE_FROM whizbang_test_pch)
endfunction()
