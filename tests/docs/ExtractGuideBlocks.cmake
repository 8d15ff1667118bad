# whizbang_extract_guide_blocks(GUIDE_DIR <dir> OUT_DIR <dir> HEADERS_VAR <v> SOURCES_VAR <v>
#                               MAINS_VAR <v> PROGRAMS_VAR <v>)
#
# Reads every *.md of GUIDE_DIR (sorted by name, then in document order) and writes each ```cpp
# block to OUT_DIR according to its marker (see tests/docs/CMakeLists.txt). Pure CMake: the
# markdown is handled as one string (never as a CMake list, so `;` and `[[...]]` in code are safe).
# Sets: the header paths (for whizbang_generate), the library sources, the main-block sources
# (plus OUT_DIR/guide_runner.cpp and OUT_DIR/guide_prelude.hpp) and the program names.
include_guard(GLOBAL)

# Writes `content` to `path` only when the bytes differ, so a re-extraction rebuilds nothing.
function(_guide_write path content)
  if(ARGN)
    message(FATAL_ERROR "_guide_write: one content argument")
  endif()
  get_filename_component(dir "${path}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  file(WRITE "${path}.tmp" "${content}")
  file(COPY_FILE "${path}.tmp" "${path}" ONLY_IF_DIFFERENT)
  file(REMOVE "${path}.tmp")
endfunction()

# Number of "\n" in `text`.
function(_guide_count_lines out text)
  string(REGEX REPLACE "[^\n]" "" newlines "${text}")
  string(LENGTH "${newlines}" n)
  set(${out} ${n} PARENT_SCOPE)
endfunction()

function(whizbang_extract_guide_blocks)
  cmake_parse_arguments(PARSE_ARGV 0 arg ""
                        "GUIDE_DIR;OUT_DIR;HEADERS_VAR;SOURCES_VAR;MAINS_VAR;PROGRAMS_VAR" "")
  file(GLOB markdown_files LIST_DIRECTORIES false "${arg_GUIDE_DIR}/*.md")
  list(SORT markdown_files)
  if(NOT markdown_files)
    message(FATAL_ERROR "tests/docs: no markdown files in ${arg_GUIDE_DIR}")
  endif()
  if(NOT CMAKE_SCRIPT_MODE_FILE)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${markdown_files})
  endif()

  set(out "${arg_OUT_DIR}")
  set(headers "")
  set(sources "")
  set(mains "")
  set(programs "")
  set(written "")
  set(runner_decls "")
  set(runner_entries "")
  set(block_index 0)

  foreach(md IN LISTS markdown_files)
    file(READ "${md}" content)
    file(RELATIVE_PATH md_rel "${PROJECT_SOURCE_DIR}" "${md}")

    # Every ```cpp fence must open a line, and C++ must be fenced as cpp (or it escapes the test).
    string(REGEX MATCHALL "```cpp" all_fences "${content}")
    string(REGEX MATCHALL "\n```cpp\n" line_fences "\n${content}")
    list(LENGTH all_fences n_all)
    list(LENGTH line_fences n_line)
    if(NOT n_all EQUAL n_line)
      message(FATAL_ERROR "${md_rel}: a ```cpp fence that does not start its own line (indented?)"
                          ": its block would not be compiled")
    endif()
    if(content MATCHES "```(c\\+\\+|cxx|cc|hpp|h|C\\+\\+)[ \t]*\n")
      message(FATAL_ERROR "${md_rel}: fence C++ as ```cpp (found ```${CMAKE_MATCH_1})")
    endif()

    set(rest "\n${content}")
    set(line 0)  # lines consumed before `rest` (the prepended "\n" makes this line 0)
    while(TRUE)
      string(FIND "${rest}" "\n```cpp\n" start)
      if(start EQUAL -1)
        break()
      endif()
      math(EXPR body_start "${start} + 8")
      string(SUBSTRING "${rest}" 0 ${body_start} consumed)
      _guide_count_lines(consumed_lines "${consumed}")
      math(EXPR line "${line} + ${consumed_lines}")
      string(SUBSTRING "${rest}" ${body_start} -1 rest)
      # `line` is now the markdown line (1-based) of the block's first code line.
      math(EXPR first_line "${line} + 0")
      string(FIND "${rest}" "\n```" end)
      if(end EQUAL -1)
        message(FATAL_ERROR "${md_rel}:${first_line}: unterminated ```cpp block")
      endif()
      string(SUBSTRING "${rest}" 0 ${end} body)
      string(APPEND body "\n")
      string(SUBSTRING "${rest}" ${end} -1 rest)
      _guide_count_lines(body_lines "${body}")
      math(EXPR line "${line} + ${body_lines} - 1")
      math(EXPR block_index "${block_index} + 1")
      set(where "${md_rel}:${first_line}")
      set(line_directive "#line ${first_line} \"${md}\"\n")

      set(kind "unit")
      set(name "")
      if(body MATCHES "^// guide: ([a-z]+)([ \t]+([^ \t\n]+))?[ \t]*\n")
        set(kind "${CMAKE_MATCH_1}")
        set(name "${CMAKE_MATCH_3}")
      elseif(body MATCHES "^// guide:")
        message(FATAL_ERROR "${where}: malformed '// guide:' marker")
      endif()

      if(kind STREQUAL "header")
        if(NOT name MATCHES "\\.hpp$")
          message(FATAL_ERROR "${where}: '// guide: header' needs a PATH ending in .hpp")
        endif()
        set(path "${out}/${name}")
        if(path IN_LIST written)
          message(FATAL_ERROR "${where}: a second block writes ${name}")
        endif()
        _guide_write("${path}" "${line_directive}${body}")
        list(APPEND headers "${path}")
        list(APPEND written "${path}")
      elseif(kind STREQUAL "source")
        if(NOT name MATCHES "\\.cpp$")
          message(FATAL_ERROR "${where}: '// guide: source' needs a PATH ending in .cpp")
        endif()
        set(path "${out}/${name}")
        if(path IN_LIST written)
          message(FATAL_ERROR "${where}: a second block writes ${name}")
        endif()
        _guide_write("${path}" "${line_directive}${body}")
        list(APPEND sources "${path}")
        list(APPEND written "${path}")
      elseif(kind STREQUAL "unit")
        set(path "${out}/unit_${block_index}.cpp")
        _guide_write("${path}" "${line_directive}${body}")
        list(APPEND sources "${path}")
        list(APPEND written "${path}")
      elseif(kind STREQUAL "program")
        if(NOT name MATCHES "^[A-Za-z0-9_]+$")
          message(FATAL_ERROR "${where}: '// guide: program' needs a NAME ([A-Za-z0-9_]+)")
        endif()
        if(name IN_LIST programs)
          message(FATAL_ERROR "${where}: a second program named ${name}")
        endif()
        set(path "${out}/program_${name}.cpp")
        _guide_write("${path}" "${line_directive}${body}")
        list(APPEND programs "${name}")
        list(APPEND written "${path}")
      elseif(kind STREQUAL "main")
        set(fn "guide_block_${block_index}")
        set(path "${out}/main_${block_index}.cpp")
        string(CONCAT main_text "// ${where}\n#include \"guide_prelude.hpp\"\n\n"
                                "absl::Status ${fn}() {\n${line_directive}${body}"
                                "  return absl::OkStatus();\n}\n")
        _guide_write("${path}" "${main_text}")
        list(APPEND mains "${path}")
        list(APPEND written "${path}")
        string(APPEND runner_decls "absl::Status ${fn}();\n")
        string(APPEND runner_entries "      {\"${where}\", &${fn}},\n")
      else()
        message(FATAL_ERROR "${where}: unknown marker '// guide: ${kind}' "
                            "(header, source, program or main)")
      endif()
    endwhile()
  endforeach()

  # What every main block sees: the runtime's public headers (and spdlog's ring-buffer sink), the
  # header blocks and the generated code.
  set(prelude "// generated by tests/docs from the guide's header blocks\n#pragma once\n\n")
  foreach(h IN ITEMS whizbang/whizbang.hpp whizbang/dispatch/dispatcher.hpp whizbang/host/service_host.hpp
                     whizbang/exactly_once/guardrails.hpp whizbang/ids/derived_identity.hpp whizbang/observability/metrics.hpp
                     whizbang/observability/logging.hpp whizbang/lifecycle/executor.hpp whizbang/message/envelope_json.hpp
                     whizbang/security/security_context.hpp whizbang/exactly_once/database_receptor_dedup_store.hpp
                     whizbang/store/memory_work_store.hpp whizbang/store/open_work_store.hpp
                     whizbang/store/perspective_models.hpp whizbang/workers/perspective_sync.hpp
                     whizbang/store/postgres/postgres_work_store.hpp
                     whizbang/store/sqlite/sqlite_work_store.hpp
                     whizbang/transport/in_process_transport.hpp
                     whizbang/transport/rabbitmq/rabbitmq_transport.hpp whizbang/host/service_runner.hpp
                     spdlog/sinks/ringbuffer_sink.h)
    string(APPEND prelude "#include <${h}>\n")
  endforeach()
  foreach(h IN LISTS headers)
    file(RELATIVE_PATH h_rel "${out}" "${h}")
    string(APPEND prelude "#include \"${h_rel}\"\n")
  endforeach()
  string(APPEND prelude "#include \"whizbang_messages.hpp\"\n#include \"whizbang_registry.hpp\"\n")
  _guide_write("${out}/guide_prelude.hpp" "${prelude}")
  list(APPEND written "${out}/guide_prelude.hpp")

  _guide_write("${out}/guide_runner.cpp"
"// generated by tests/docs: runs the guide's main blocks in document order.
#include <cstdio>
#include <vector>

#include \"absl/status/status.h\"

${runner_decls}
namespace {
struct Block {
  const char* where;
  absl::Status (*run)();
};
}  // namespace

int main() {
  const std::vector<Block> blocks = {
${runner_entries}  };
  int failed = 0;
  for (const Block& block : blocks) {
    const absl::Status status = block.run();
    std::printf(\"%s %s%s%s\\n\", status.ok() ? \"ok  \" : \"FAIL\", block.where,
                status.ok() ? \"\" : \": \", status.ok() ? \"\" : status.ToString().c_str());
    if (!status.ok()) ++failed;
  }
  std::printf(\"%zu main blocks, %d failed\\n\", blocks.size(), failed);
  return failed == 0 ? 0 : 1;
}
")
  list(APPEND written "${out}/guide_runner.cpp")

  # Files of blocks that no longer exist would linger and could be included by mistake.
  file(GLOB_RECURSE existing LIST_DIRECTORIES false "${out}/*")
  foreach(f IN LISTS existing)
    if(NOT f IN_LIST written)
      file(REMOVE "${f}")
    endif()
  endforeach()

  set(${arg_HEADERS_VAR} "${headers}" PARENT_SCOPE)
  set(${arg_SOURCES_VAR} "${sources}" PARENT_SCOPE)
  set(${arg_MAINS_VAR} "${mains}" PARENT_SCOPE)
  set(${arg_PROGRAMS_VAR} "${programs}" PARENT_SCOPE)
endfunction()
