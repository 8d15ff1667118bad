# The OTLP trace exporter's dependencies (Whizbang::otlp, docs/guide/18-tracing.md): protobuf and
# libcurl, and the official OpenTelemetry protocol definitions (opentelemetry-proto), compiled by
# protoc into the library whizbang_otlp_proto.
#
# WHIZBANG_OTLP: ON (the project's own builds, ./dev.sh: a missing piece fails the configure),
# AUTO (the default: built when protobuf, protoc and libcurl are found and the definitions can be
# had, else skipped with a message, so a plain `cmake -DCMAKE_BUILD_TYPE=Release` still builds),
# OFF. Sets WHIZBANG_OTLP_ENABLED.
#
# The .proto files are not in Debian and not in this repository. They come from an npm package
# that carries opentelemetry-proto v1.7.0 (dd-trace 6.21.0, packages/dd-trace/src/opentelemetry/
# otlp/): checked against the official repository's tag v1.7.0, its trace, trace_service,
# resource and common definitions differ only in a first comment line, trailing whitespace and
# flattened import paths, which the steps below put back to the official layout
# (opentelemetry/proto/<area>/v1/<file>.proto). The OpenTelemetry JS packages carry the
# definitions only up to @opentelemetry/otlp-grpc-exporter-base 0.38.0, which holds v0.18.0:
# without Span.flags (v1.1.0). The download is pinned by its SHA-256.
# -DWHIZBANG_OTLP_PROTO_DIR=<dir> (a checkout of opentelemetry-proto, or any directory holding
# opentelemetry/proto/...) is used instead, for builds without network.
set(WHIZBANG_OTLP AUTO CACHE STRING "Build the OTLP trace exporter (ON, OFF or AUTO)")
set_property(CACHE WHIZBANG_OTLP PROPERTY STRINGS ON OFF AUTO)
set(WHIZBANG_OTLP_PROTO_DIR "" CACHE PATH
    "opentelemetry-proto definitions (holding opentelemetry/proto/...); empty: downloaded")
set(WHIZBANG_OTLP_ENABLED OFF)

set(WHIZBANG_OTLP_PROTO_URL
    "https://registry.npmjs.org/dd-trace/-/dd-trace-6.21.0.tgz")
set(WHIZBANG_OTLP_PROTO_SHA256
    "fa6d74a613af044ed1c93a3b6b00aaf9038db0135eee110acc2c150458ceac65")
set(WHIZBANG_OTLP_PROTO_FILES common/v1/common resource/v1/resource trace/v1/trace
                              collector/trace/v1/trace_service)

# whizbang_otlp_skip(<why>): fails an ON build, else says why the exporter is left out.
macro(whizbang_otlp_skip why)
  if(WHIZBANG_OTLP STREQUAL "ON")
    message(FATAL_ERROR "WHIZBANG_OTLP=ON: ${why}")
  endif()
  message(STATUS "Whizbang: building without the OTLP exporter (Whizbang::otlp): ${why}")
  return()
endmacro()

# The definitions in the official layout under ${CMAKE_BINARY_DIR}/otlp-proto (downloaded once).
function(whizbang_otlp_fetch_protos out_dir)
  set(root ${CMAKE_BINARY_DIR}/otlp-proto)
  set(${out_dir} ${root} PARENT_SCOPE)
  # Unpacked before from this very download: nothing to do.
  if(EXISTS ${root}/.complete)
    file(READ ${root}/.complete done)
    if(done MATCHES "${WHIZBANG_OTLP_PROTO_SHA256}")
      return()
    endif()
  endif()
  file(REMOVE_RECURSE ${root})
  set(tarball ${CMAKE_BINARY_DIR}/otlp-proto-download/${WHIZBANG_OTLP_PROTO_SHA256}.tgz)
  if(NOT EXISTS ${tarball})
    file(DOWNLOAD ${WHIZBANG_OTLP_PROTO_URL} ${tarball}.part
         EXPECTED_HASH SHA256=${WHIZBANG_OTLP_PROTO_SHA256} STATUS status TLS_VERIFY ON)
    list(GET status 0 code)
    if(NOT code EQUAL 0)
      file(REMOVE ${tarball}.part)
      set(${out_dir} "" PARENT_SCOPE)
      return()
    endif()
    file(RENAME ${tarball}.part ${tarball})
  endif()
  set(unpacked ${CMAKE_BINARY_DIR}/otlp-proto-download/unpacked)
  file(REMOVE_RECURSE ${unpacked})
  file(ARCHIVE_EXTRACT INPUT ${tarball} DESTINATION ${unpacked}
       PATTERNS "package/packages/dd-trace/src/opentelemetry/otlp/*.proto")
  set(flat ${unpacked}/package/packages/dd-trace/src/opentelemetry/otlp)
  foreach(file ${WHIZBANG_OTLP_PROTO_FILES})
    get_filename_component(name ${file} NAME)
    file(READ ${flat}/${name}.proto text)
    # The vendor's one added line (the source it names), then the official import paths back.
    string(REGEX REPLACE "^// Vendored from: [^\n]*\n" "" text "${text}")
    foreach(imported ${WHIZBANG_OTLP_PROTO_FILES})
      get_filename_component(imported_name ${imported} NAME)
      string(REPLACE "import \"${imported_name}.proto\""
                     "import \"opentelemetry/proto/${imported}.proto\"" text "${text}")
    endforeach()
    file(WRITE ${root}/opentelemetry/proto/${file}.proto "${text}")
  endforeach()
  file(WRITE ${root}/.complete
       "opentelemetry-proto v1.7.0 from ${WHIZBANG_OTLP_PROTO_URL} ${WHIZBANG_OTLP_PROTO_SHA256}\n")
endfunction()

if(WHIZBANG_OTLP STREQUAL "OFF")
  return()
endif()
find_package(Protobuf QUIET)
find_package(CURL QUIET)
if(NOT Protobuf_FOUND OR NOT TARGET protobuf::protoc)
  whizbang_otlp_skip("protobuf not found (Debian: libprotobuf-dev protobuf-compiler)")
endif()
if(NOT CURL_FOUND)
  whizbang_otlp_skip("libcurl not found (Debian: libcurl4-openssl-dev)")
endif()
if(WHIZBANG_OTLP_PROTO_DIR)
  set(proto_dir ${WHIZBANG_OTLP_PROTO_DIR})
else()
  whizbang_otlp_fetch_protos(proto_dir)
  if(NOT proto_dir)
    whizbang_otlp_skip(
      "could not download ${WHIZBANG_OTLP_PROTO_URL} (give -DWHIZBANG_OTLP_PROTO_DIR=<dir>)")
  endif()
endif()
foreach(file ${WHIZBANG_OTLP_PROTO_FILES})
  if(NOT EXISTS ${proto_dir}/opentelemetry/proto/${file}.proto)
    whizbang_otlp_skip("${proto_dir}/opentelemetry/proto/${file}.proto is missing")
  endif()
endforeach()

# protoc's C++ classes, in a library of their own: generated code gets neither the project's
# warnings nor its sanitizers. Its headers are seen by the exporter's sources only.
set(generated_dir ${CMAKE_BINARY_DIR}/otlp-proto-generated)
set(generated_sources "")
set(proto_paths "")
foreach(file ${WHIZBANG_OTLP_PROTO_FILES})
  set(proto ${proto_dir}/opentelemetry/proto/${file}.proto)
  list(APPEND proto_paths ${proto})
  list(APPEND generated_sources ${generated_dir}/opentelemetry/proto/${file}.pb.cc
                                ${generated_dir}/opentelemetry/proto/${file}.pb.h)
endforeach()
add_custom_command(
  OUTPUT ${generated_sources}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${generated_dir}
  COMMAND protobuf::protoc --proto_path=${proto_dir} --cpp_out=${generated_dir} ${proto_paths}
  DEPENDS ${proto_paths} protobuf::protoc
  COMMENT "protoc: opentelemetry-proto trace definitions"
  VERBATIM)
add_library(whizbang_otlp_proto STATIC ${generated_sources})
target_include_directories(whizbang_otlp_proto SYSTEM PUBLIC
  $<BUILD_INTERFACE:${generated_dir}>)
target_link_libraries(whizbang_otlp_proto PUBLIC protobuf::libprotobuf)
set_target_properties(whizbang_otlp_proto PROPERTIES POSITION_INDEPENDENT_CODE ON
                                                     UNITY_BUILD OFF)
set(WHIZBANG_OTLP_ENABLED ON)
