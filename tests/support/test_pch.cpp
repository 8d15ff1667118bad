// The source of whizbang_test_pch, the target that builds the precompiled header every test binary
// reuses (cmake/WhizbangPrecompiledHeaders.cmake). It has no code of its own.
