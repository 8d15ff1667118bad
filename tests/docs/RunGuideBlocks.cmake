# cmake -DBINARIES=a|b|c -DWORK_DIR=dir -P RunGuideBlocks.cmake
# Runs each binary built from the guide's code blocks in a fresh WORK_DIR; fails on the first one
# that is missing (its block did not compile) or exits non-zero.
string(REPLACE "|" ";" binaries "${BINARIES}")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
foreach(binary IN LISTS binaries)
  if(NOT EXISTS "${binary}")
    message(FATAL_ERROR "missing ${binary}: a guide code block did not compile (build the project)")
  endif()
  get_filename_component(name "${binary}" NAME)
  message(STATUS "running ${name}")
  execute_process(COMMAND "${binary}" WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${name} failed (${result})")
  endif()
endforeach()
list(LENGTH binaries n)
message(STATUS "${n} guide binaries ran")
