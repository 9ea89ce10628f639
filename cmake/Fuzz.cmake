# AGENTRT_FUZZ=ON: a build of the libFuzzer targets of fuzz/ (fuzz/README.md) and of
# nothing else that scripts/fuzz.sh and .ci/run ask for. libFuzzer comes with clang
# (Debian's libclang-rt-<version>-dev), so the option needs clang; every source of the
# build gets libFuzzer's coverage instrumentation, and the sanitizers AGENTRT_SANITIZE
# names (address,undefined in both scripts).
option(AGENTRT_FUZZ "Build the libFuzzer targets of fuzz/ (clang only)" OFF)

if(AGENTRT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "AGENTRT_FUZZ needs clang (libFuzzer): configure with "
                        "CC=clang CXX=clang++, as scripts/fuzz.sh does")
  endif()
  # -O1 as libFuzzer's documentation builds its targets: optimised enough for a good
  # rate of executions, plain enough that a report's stack names the line.
  add_compile_options(-fsanitize=fuzzer-no-link -O1 -gline-tables-only)
  # Each function in a section of its own, and the unused ones dropped at link: a target
  # links a parser's source without what else the file holds for the engine (a function
  # beside it that reads the store, say), and so without the store.
  add_compile_options(-ffunction-sections -fdata-sections)
  add_link_options(-Wl,--gc-sections)
endif()

# agentrt_add_fuzzer(<name> <source>... LIBS <library>...): the fuzz target <name>,
# linked with libFuzzer's main.
function(agentrt_add_fuzzer name)
  cmake_parse_arguments(arg "" "" "LIBS" ${ARGN})
  add_executable(${name} ${arg_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${arg_LIBS})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
  agentrt_enforce_layering(${name})
  add_dependencies(fuzzers ${name})
endfunction()
