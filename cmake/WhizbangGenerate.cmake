# whizbang_generate(<target> HEADERS <header>... [OUTPUT_DIR <dir>] [ROOT <dir>] [PUBLIC])
#
# Runs whizbang-gen over HEADERS (one umbrella translation unit) and compiles what it emits into
# <target>:
#   <OUTPUT_DIR>/whizbang_messages.hpp   MessageTraits + JSON codecs of every message type
#   <OUTPUT_DIR>/whizbang_registry.hpp   declares whizbang::generated::<target>::registry()
#   <OUTPUT_DIR>/whizbang_registry.cpp   added to <target>'s sources
#   <OUTPUT_DIR>/whizbang_tables.json    the receptor and message tables as data
#                                        (`whizbang gen explain <OUTPUT_DIR>`); not compiled
# PUBLIC exports OUTPUT_DIR to the target's dependents, so code linking a library of message types
# can include "whizbang_messages.hpp" and dispatch them (use it on one library per program: the
# file names are fixed). Otherwise
# OUTPUT_DIR (default ${CMAKE_CURRENT_BINARY_DIR}/whizbang_generated/<target>) is added to the
# target's PRIVATE include directories. ROOT (default ${CMAKE_SOURCE_DIR}) is the directory
# source locations in the generated tables are relative to.
#
# Clang gets its flags from a response file written by file(GENERATE) from the target's include
# directories and compile definitions plus -std=c++20 (never the g++ command line: GCC-only flags
# break Clang), and an explicit -resource-dir computed at configure time. The generator writes a
# depfile of every header it opened and rewrites outputs only when their bytes change, so editing a
# receptor header regenerates and a no-op Ninja build stays a no-op.
#
# In the Whizbang build tree the generator is the `whizbang-gen` target; from an installed package
# it is the imported target `Whizbang::whizbang-gen`.
include_guard(GLOBAL)

function(_whizbang_clang_resource_dir out_var)
  if(WHIZBANG_CLANG_RESOURCE_DIR)
    set(${out_var} "${WHIZBANG_CLANG_RESOURCE_DIR}" PARENT_SCOPE)
    return()
  endif()
  find_program(WHIZBANG_CLANG_EXECUTABLE NAMES clang-19 clang
               HINTS /usr/lib/llvm-19/bin)
  set(dir "")
  if(WHIZBANG_CLANG_EXECUTABLE)
    execute_process(COMMAND "${WHIZBANG_CLANG_EXECUTABLE}" -print-resource-dir
                    OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE result)
    if(NOT result EQUAL 0)
      set(dir "")
    endif()
  endif()
  if(dir)
    set(WHIZBANG_CLANG_RESOURCE_DIR "${dir}" CACHE INTERNAL "Clang builtin header directory")
  else()
    message(WARNING "whizbang_generate: clang-19 not found; whizbang-gen uses its built-in "
                    "resource dir")
  endif()
  set(${out_var} "${dir}" PARENT_SCOPE)
endfunction()

function(whizbang_generate target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PUBLIC" "OUTPUT_DIR;ROOT" "HEADERS")
  if(NOT TARGET ${target})
    message(FATAL_ERROR "whizbang_generate: '${target}' is not a target")
  endif()
  if(NOT arg_HEADERS)
    message(FATAL_ERROR "whizbang_generate(${target}): HEADERS is required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "whizbang_generate(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/whizbang_generated/${target}")
  endif()
  if(NOT arg_ROOT)
    set(arg_ROOT "${CMAKE_SOURCE_DIR}")
  endif()

  if(TARGET whizbang-gen)
    set(generator whizbang-gen)
  elseif(TARGET Whizbang::whizbang-gen)
    set(generator Whizbang::whizbang-gen)
  else()
    message(FATAL_ERROR "whizbang_generate: no whizbang-gen (build Whizbang with "
                        "WHIZBANG_BUILD_GENERATOR=ON or find_package(Whizbang))")
  endif()

  set(headers "")
  foreach(header IN LISTS arg_HEADERS)
    get_filename_component(header "${header}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND headers "${header}")
  endforeach()

  set(out "${arg_OUTPUT_DIR}")
  set(outputs "${out}/whizbang_messages.hpp" "${out}/whizbang_registry.hpp"
              "${out}/whizbang_registry.cpp")

  # Response file: one Clang argument per line, from the target's usage requirements.
  # Implicit system directories are left to Clang's own search order: an explicit -I/usr/include
  # would move it ahead of libstdc++'s headers and break their #include_next.
  set(includes "$<REMOVE_DUPLICATES:$<FILTER:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>,EXCLUDE,^/usr(/local)?/include/?$>>")
  set(definitions "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(flags_file "${out}/whizbang_flags$<$<BOOL:$<CONFIG>>:_$<CONFIG>>.txt")
  file(GENERATE OUTPUT "${flags_file}" CONTENT
       "-std=c++20\n$<$<BOOL:${includes}>:-I$<JOIN:${includes},\n-I>\n>$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},\n-D>\n>")

  set(resource_args "")
  _whizbang_clang_resource_dir(resource_dir)
  if(resource_dir)
    set(resource_args --resource-dir "${resource_dir}")
  endif()

  add_custom_command(
    OUTPUT ${outputs}
    BYPRODUCTS "${out}/whizbang_tables.json"
    COMMAND "$<TARGET_FILE:${generator}>" --target "${target}" --out-dir "${out}"
            --root "${arg_ROOT}" --flags-file "${flags_file}" --depfile "${out}/whizbang.d"
            ${resource_args} ${headers}
    DEPENDS ${generator} ${headers} "${flags_file}"
    DEPFILE "${out}/whizbang.d"
    COMMENT "whizbang-gen: generating the registry of ${target}"
    VERBATIM)
  # All three as sources: the headers are then generated before any of the target's objects.
  target_sources(${target} PRIVATE ${outputs})
  if(arg_PUBLIC)
    target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${out}>")
  else()
    target_include_directories(${target} PRIVATE "${out}")
  endif()
endfunction()
