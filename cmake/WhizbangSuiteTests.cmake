# whizbang_discover_suites(<target> [PROPERTIES <name> <value> ...]): registers <target>'s
# GoogleTest suites with ctest, one ctest test per suite (named "<Suite>.*", run as
# --gtest_filter=<Suite>.*), where gtest_discover_tests registers one per case. The properties
# apply to every suite. As with gtest_discover_tests, the suites are listed after each link; a
# target not built leaves the placeholder test <target>_NOT_BUILT.
#
# Why: under a sanitizer a test process spends 0.15-0.2 s starting and exiting (relocations,
# shadow memory, the leak check), more than most cases take. The sanitized suites ran 1762 and
# 1473 processes; by suite, 359 and 247 ctest tests (.ci/run has the minutes). A case that depends on
# running alone in its process would fail there, which is itself worth knowing.
set(WHIZBANG_SUITE_TESTS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/WhizbangSuiteTestsScript.cmake)

function(whizbang_discover_suites target)
  cmake_parse_arguments(ARG "" "" "PROPERTIES" ${ARGN})
  set(prefix "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  set(suites_file "${prefix}_suites.cmake")
  add_custom_command(
    TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} "-DEXECUTABLE=$<TARGET_FILE:${target}>" "-DOUTPUT=${suites_file}"
            -P ${WHIZBANG_SUITE_TESTS_SCRIPT}
    BYPRODUCTS ${suites_file}
    VERBATIM)
  # Each property value as a bracket argument: a conninfo's '?', '&' and '=' stay as written.
  set(properties "")
  foreach(item IN LISTS ARG_PROPERTIES)
    string(APPEND properties " [==[${item}]==]")
  endforeach()
  if(properties)
    set(apply_properties "set_tests_properties(\"\${suite}.*\" PROPERTIES${properties})")
  else()
    set(apply_properties "")
  endif()
  file(GENERATE OUTPUT "${prefix}_suites_include.cmake" CONTENT
"if(EXISTS \"${suites_file}\")
  include(\"${suites_file}\")
  foreach(suite IN LISTS whizbang_suites)
    add_test(\"\${suite}.*\" \"$<TARGET_FILE:${target}>\" \"--gtest_filter=\${suite}.*\")
    ${apply_properties}
  endforeach()
else()
  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)
endif()
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${prefix}_suites_include.cmake")
endfunction()
