# Run after each link by whizbang_discover_suites() (WhizbangSuiteTests.cmake):
#   cmake -DEXECUTABLE=<gtest binary> -DOUTPUT=<file> -P this
# Writes `set(whizbang_suites <Suite>...)` from the binary's --gtest_list_tests: the lines that
# do not start with a space name the suites ("Suite." or "Prefix/Suite/0.  # TypeParam = ...").
cmake_minimum_required(VERSION 3.25)
execute_process(
  COMMAND "${EXECUTABLE}" --gtest_list_tests
  OUTPUT_VARIABLE listing
  ERROR_VARIABLE errors
  RESULT_VARIABLE result
  TIMEOUT 60)
if(NOT result EQUAL 0)
  file(REMOVE "${OUTPUT}")
  message(FATAL_ERROR "${EXECUTABLE} --gtest_list_tests failed (${result}):\n${listing}${errors}")
endif()
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.( |$)")
    list(APPEND suites "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(NOT suites)
  message(FATAL_ERROR "${EXECUTABLE} lists no test suite:\n${listing}")
endif()
list(JOIN suites "]==] [==[" joined)
file(WRITE "${OUTPUT}" "set(whizbang_suites [==[${joined}]==])\n")
