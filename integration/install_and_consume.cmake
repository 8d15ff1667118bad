# Installs the built tree into a scratch prefix, then configures, builds and runs a consumer
# project that only knows find_package(Whizbang CONFIG).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "step failed (${result}): ${ARGN}\n${out}")
  endif()
  message(STATUS "${out}")
endfunction()

run_step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build -G Ninja
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run_step(${CMAKE_COMMAND} --build ${WORK_DIR}/build -j 2)
run_step(${WORK_DIR}/build/consumer)
run_step(${WORK_DIR}/build/sqlite_consumer ${WORK_DIR}/admin.db)
# The service process: starts, stops on its SIGTERM (exit 0); a wrong flag exits with code 2.
execute_process(COMMAND ${WORK_DIR}/build/service --service consumer-service --http-port 0
                        --amqp-prefetch 10
                RESULT_VARIABLE service_result OUTPUT_VARIABLE service_out ERROR_VARIABLE service_out)
if(NOT service_result EQUAL 0 OR NOT service_out MATCHES "service 'consumer-service' running")
  message(FATAL_ERROR "the service process did not run and stop (${service_result}): ${service_out}")
endif()
execute_process(COMMAND ${WORK_DIR}/build/service --service consumer-service --amqp-prefetch 0
                RESULT_VARIABLE bad_result OUTPUT_VARIABLE bad_out ERROR_VARIABLE bad_out)
if(NOT bad_result EQUAL 2 OR NOT bad_out MATCHES "--amqp-prefetch")
  message(FATAL_ERROR "a wrong flag should exit with code 2 (${bad_result}): ${bad_out}")
endif()
# The admin tool runs the installed commands with its registry: it knows the consumer's types.
execute_process(COMMAND ${WORK_DIR}/build/admin store stream ${WORK_DIR}/admin.db
                        00000000-0000-0000-0000-000000000001 --upcast
                RESULT_VARIABLE admin_result OUTPUT_VARIABLE admin_out ERROR_VARIABLE admin_out)
if(NOT admin_result EQUAL 0)
  message(FATAL_ERROR "admin store stream --upcast failed (${admin_result}): ${admin_out}")
endif()

# What each binary needs at run time: the whole runtime brings libpq and librabbitmq; a program
# on SQLite alone (Whizbang::core + Whizbang::sqlite) links neither.
function(needed_libraries binary out)
  execute_process(COMMAND readelf -d ${binary} OUTPUT_VARIABLE dynamic RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "readelf -d ${binary} failed")
  endif()
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]]+\\]" needed "${dynamic}")
  set(${out} "${needed}" PARENT_SCOPE)
endfunction()
needed_libraries(${WORK_DIR}/build/consumer full_needs)
if(NOT full_needs MATCHES "libpq" OR NOT full_needs MATCHES "librabbitmq")
  message(FATAL_ERROR "the whole runtime's consumer should need libpq and librabbitmq: ${full_needs}")
endif()
needed_libraries(${WORK_DIR}/build/sqlite_consumer sqlite_needs)
# Nor the trace exporter's protobuf and libcurl (Whizbang::otlp, linked by the service runner).
if(sqlite_needs MATCHES "libpq|librabbitmq|libprotobuf|libcurl")
  message(FATAL_ERROR "a consumer on SQLite alone links a client it does not use: ${sqlite_needs}")
endif()
if(NOT sqlite_needs MATCHES "libsqlite3")
  message(FATAL_ERROR "the SQLite consumer should need libsqlite3: ${sqlite_needs}")
endif()
message(STATUS "sqlite_consumer needs: ${sqlite_needs}")
