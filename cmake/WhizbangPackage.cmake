# Install rules for find_package(Whizbang CONFIG): targets Whizbang::runtime (everything),
# Whizbang::core (every layer, no backend) with Whizbang::sqlite, Whizbang::postgres,
# Whizbang::rabbitmq and Whizbang::stores (any store by location), Whizbang::service_runner,
# Whizbang::cli (the `whizbang` commands for a service's admin tool),
# the layers themselves (Whizbang::ids, ...; docs/architecture.md), Whizbang::attributes,
# Whizbang::whizbang-gen and the whizbang_generate() function.
include(CMakePackageConfigHelpers)
set(WHIZBANG_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Whizbang)

install(EXPORT WhizbangTargets NAMESPACE Whizbang:: DESTINATION ${WHIZBANG_CMAKE_INSTALL_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/WhizbangConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/WhizbangConfig.cmake
  INSTALL_DESTINATION ${WHIZBANG_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/WhizbangConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/WhizbangConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/WhizbangConfigVersion.cmake
        DESTINATION ${WHIZBANG_CMAKE_INSTALL_DIR})
