# whizbang_embed_files(<target> OUTPUT <file.cpp> HEADER <header> FUNCTION <qualified name>
#                      FILES <files>): compiles the files' bytes into <target>, so a program
# serves them without reading anything at run time (the runner's web console,
# docs/guide/14-running-services.md). The generated .cpp defines
#   std::span<const EmbeddedFile> <FUNCTION>();  // {name, bytes}, in the order given
# as declared by <header> (included as written). It is regenerated when a file changes; no tool
# but CMake itself is needed.
set(WHIZBANG_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/WhizbangEmbedFilesScript.cmake)

function(whizbang_embed_files target)
  cmake_parse_arguments(ARG "" "OUTPUT;HEADER;FUNCTION" "FILES" ${ARGN})
  list(JOIN ARG_FILES "|" files)  # a ';' would split the -D argument
  add_custom_command(
    OUTPUT ${ARG_OUTPUT}
    COMMAND ${CMAKE_COMMAND} "-DOUTPUT=${ARG_OUTPUT}" "-DHEADER=${ARG_HEADER}"
            "-DFUNCTION=${ARG_FUNCTION}" "-DFILES=${files}" -P ${WHIZBANG_EMBED_SCRIPT}
    DEPENDS ${ARG_FILES} ${WHIZBANG_EMBED_SCRIPT}
    COMMENT "Embedding ${target}'s files in ${ARG_OUTPUT}"
    VERBATIM)
  target_sources(${target} PRIVATE ${ARG_OUTPUT})
endfunction()
