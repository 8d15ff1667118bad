# No product file over 450 lines: a file that grows past it holds more than one concept.
#   cmake -DSOURCE_DIR=<the project> -P CheckFileSizes.cmake
# Product: the runtime, the generator, the CLI, the attributes, the samples and the harnesses
# (tests and their fixtures are not counted).
cmake_minimum_required(VERSION 3.25)
set(limit 450)
set(problems "")
file(GLOB_RECURSE files
     ${SOURCE_DIR}/runtime/*.cpp ${SOURCE_DIR}/runtime/*.hpp
     ${SOURCE_DIR}/generator/*.cpp ${SOURCE_DIR}/generator/*.hpp
     ${SOURCE_DIR}/tools/*.cpp ${SOURCE_DIR}/tools/*.hpp
     ${SOURCE_DIR}/attributes/*.hpp ${SOURCE_DIR}/samples/*.cpp ${SOURCE_DIR}/samples/*.hpp
     ${SOURCE_DIR}/integration/*.cpp ${SOURCE_DIR}/integration/*.hpp)
foreach(file ${files})
  file(READ ${file} text)
  string(REGEX MATCHALL "\n" newlines "${text}")
  list(LENGTH newlines count)
  if(count GREATER limit)
    file(RELATIVE_PATH shown ${SOURCE_DIR} ${file})
    list(APPEND problems "${shown}: ${count} lines")
  endif()
endforeach()
if(problems)
  list(JOIN problems "\n  " listed)
  message(FATAL_ERROR "product files over ${limit} lines (split them by concern):\n  ${listed}")
endif()
list(LENGTH files file_count)
message(STATUS "${file_count} product files, none over ${limit} lines")
