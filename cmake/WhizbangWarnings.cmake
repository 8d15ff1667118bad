# Warnings are errors in project code (not in system or generated-from-third-party headers).
# With -DWHIZBANG_SANITIZE=address,undefined (./dev.sh sanitize) project code is also built with
# those sanitizers, failing on the first report. whizbang-gen is not instrumented: it is a tool
# over uninstrumented LLVM libraries.
set(WHIZBANG_SANITIZE "" CACHE STRING "Sanitizers for project code, e.g. address,undefined")

function(whizbang_project_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion -Werror)
  if(WHIZBANG_SANITIZE)
    # g++ 12 reports false maybe-uninitialized warnings inside libstdc++ (std::regex) when
    # instrumenting; the regular build keeps that warning as an error.
    target_compile_options(${target} PRIVATE -fsanitize=${WHIZBANG_SANITIZE}
                                             -fno-sanitize-recover=all -fno-omit-frame-pointer
                                             -Wno-maybe-uninitialized)
    target_link_options(${target} PUBLIC -fsanitize=${WHIZBANG_SANITIZE})
  endif()
endfunction()
