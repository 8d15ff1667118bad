# Project code is built with -Wall -Wextra -Wpedantic -Wshadow -Wconversion (not system or
# generated-from-third-party headers). With -DWHIZBANG_WARNINGS_AS_ERRORS=ON, which ./dev.sh
# passes for every build it configures, they are errors. It is OFF by default so that a user's
# plain `cmake -DCMAKE_BUILD_TYPE=Release` build never fails on a compiler's false warning
# (g++ 12 reports a false -Wrestrict at -O3, for one).
#
# With -DWHIZBANG_SANITIZE=address,undefined (./dev.sh sanitize) or =thread (./dev.sh tsan)
# project code is also built with those sanitizers, failing on the first report; with
# WHIZBANG_FUZZERS=ON (Clang, ./dev.sh fuzz) also with libFuzzer's coverage instrumentation.
# whizbang-gen is not instrumented: it is a tool over uninstrumented LLVM libraries.
option(WHIZBANG_WARNINGS_AS_ERRORS "Treat warnings in project code as errors" OFF)
set(WHIZBANG_SANITIZE "" CACHE STRING
    "Sanitizers for project code: address,undefined or thread (not both)")
set(WHIZBANG_NO_SANITIZE "" CACHE STRING
    "Checks left out of WHIZBANG_SANITIZE (e.g. alignment,null: see dev.sh sanitize)")

if(WHIZBANG_SANITIZE MATCHES "thread" AND WHIZBANG_SANITIZE MATCHES "address|leak|memory")
  message(FATAL_ERROR "WHIZBANG_SANITIZE=${WHIZBANG_SANITIZE}: ThreadSanitizer cannot be "
                      "combined with AddressSanitizer, LeakSanitizer or MemorySanitizer; "
                      "use a separate build directory for each")
endif()

function(whizbang_project_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
  if(WHIZBANG_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(WHIZBANG_SANITIZE)
    # g++ 12 reports false maybe-uninitialized warnings inside libstdc++ (std::regex) when
    # instrumenting; the regular build keeps that warning. Clang (./dev.sh fuzz) has no such
    # warning, and under -Werror an unknown warning option is an error.
    target_compile_options(${target} PRIVATE -fsanitize=${WHIZBANG_SANITIZE}
                                             -fno-sanitize-recover=all -fno-omit-frame-pointer
                                             $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
    if(WHIZBANG_NO_SANITIZE)
      target_compile_options(${target} PRIVATE -fno-sanitize=${WHIZBANG_NO_SANITIZE})
    endif()
    # Whatever links an instrumented target in this build links the sanitizer runtime too;
    # BUILD_INTERFACE keeps the flag out of the installed/exported targets.
    target_link_options(${target} PUBLIC $<BUILD_INTERFACE:-fsanitize=${WHIZBANG_SANITIZE}>)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # Clang (./dev.sh fuzz) reports libstdc++ 12's std::stable_sort calling its own deprecated
    # get_temporary_buffer at every call (the memory store sorts); g++ builds keep the warning.
    target_compile_options(${target} PRIVATE -Wno-deprecated-declarations)
    if(WHIZBANG_SANITIZE MATCHES "undefined")
      # Undefined behaviour in third-party headers that Clang's UBSan finds and g++'s does not.
      target_compile_options(${target} PRIVATE
        "-fsanitize-ignorelist=${CMAKE_CURRENT_FUNCTION_LIST_DIR}/clang-ubsan-ignorelist.txt")
    endif()
  endif()
  if(WHIZBANG_FUZZERS)
    # Coverage instrumentation without libFuzzer's main: the fuzzer targets link that
    # (-fsanitize=fuzzer, tests/fuzz/libfuzzer) and see the coverage of the code they call.
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()
