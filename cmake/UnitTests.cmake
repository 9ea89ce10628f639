# agentrt_add_unit_tests(<target> [TEST_PREFIX p] [TEST_FILTER f] [ENVIRONMENT VAR=value])
#
# Registers a gtest binary's tests with CTest, labelled `unit`. In a build without
# sanitizers each test is a CTest test of its own (gtest_discover_tests), as a failure
# is then named by its test. Under the sanitizers a process costs 0.16 s before `main`
# (their run-time's set-up), which made up most of a unit test's time there: the
# binary runs instead in AGENTRT_SANITIZER_TEST_SHARDS processes, each a gtest shard
# (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX) of its tests, named <prefix><target>/shard-K.
# A failing shard prints the failing test's name in its output. ENVIRONMENT is one
# variable: gtest_discover_tests hands each test only the first of a list (CMake 3.25).
set(AGENTRT_SANITIZER_TEST_SHARDS 4 CACHE STRING
    "Processes each unit-test binary runs in under the sanitizers (0: one per test)")

function(agentrt_add_unit_tests target)
  cmake_parse_arguments(arg "" "TEST_PREFIX;TEST_FILTER;ENVIRONMENT" "" ${ARGN})
  set(shards ${AGENTRT_SANITIZER_TEST_SHARDS})
  if(NOT AGENTRT_SANITIZE OR shards LESS 1)
    set(discover_args)
    if(arg_TEST_PREFIX)
      list(APPEND discover_args TEST_PREFIX "${arg_TEST_PREFIX}")
    endif()
    if(arg_TEST_FILTER)
      list(APPEND discover_args TEST_FILTER "${arg_TEST_FILTER}")
    endif()
    set(properties LABELS unit TIMEOUT 120)
    if(arg_ENVIRONMENT)
      list(APPEND properties ENVIRONMENT "${arg_ENVIRONMENT}")
    endif()
    gtest_discover_tests(${target} ${discover_args} PROPERTIES ${properties}
      DISCOVERY_TIMEOUT 60)
    return()
  endif()
  set(filter_args)
  if(arg_TEST_FILTER)
    set(filter_args "--gtest_filter=${arg_TEST_FILTER}")
  endif()
  math(EXPR last "${shards} - 1")
  foreach(index RANGE ${last})
    set(name "${arg_TEST_PREFIX}${target}/shard-${index}")
    set(environment "GTEST_TOTAL_SHARDS=${shards}" "GTEST_SHARD_INDEX=${index}")
    if(arg_ENVIRONMENT)
      list(APPEND environment "${arg_ENVIRONMENT}")
    endif()
    add_test(NAME ${name} COMMAND ${target} ${filter_args})
    set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT 1200
      ENVIRONMENT "${environment}")
  endforeach()
endfunction()
