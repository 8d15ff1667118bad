# Warnings are errors in project code (not in system or generated-from-third-party headers).
function(whizbang_project_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion -Werror)
endfunction()
