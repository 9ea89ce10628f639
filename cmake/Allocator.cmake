# The allocator agentd runs on. glibc's malloc was 11% of agentd's CPU at 64 concurrent
# /chat (arena locks and consolidation across a thread per connection); jemalloc, the
# allocator Redis ships with, took 8% off the CPU per request for 0.9 MB more idle RSS
# (bench/README.md). Sanitizer builds keep the system allocator: ASan must own malloc.
set(AGENTRT_MALLOC "jemalloc" CACHE STRING "Allocator agentd links: jemalloc or system")
set_property(CACHE AGENTRT_MALLOC PROPERTY STRINGS jemalloc system)

# The allocator agentd actually gets in this build: "jemalloc" or "system".
function(agentrt_effective_malloc out)
  if(AGENTRT_SANITIZE OR AGENTRT_MALLOC STREQUAL "system")
    set(${out} "system" PARENT_SCOPE)
  elseif(AGENTRT_MALLOC STREQUAL "jemalloc")
    set(${out} "jemalloc" PARENT_SCOPE)
  else()
    message(FATAL_ERROR "AGENTRT_MALLOC must be jemalloc or system, not '${AGENTRT_MALLOC}'")
  endif()
endfunction()

function(agentrt_link_allocator target)
  agentrt_effective_malloc(malloc)
  if(malloc STREQUAL "system")
    return()
  endif()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(JEMALLOC IMPORTED_TARGET jemalloc)
  if(NOT JEMALLOC_FOUND)
    message(FATAL_ERROR "jemalloc not found: install libjemalloc-dev (scripts/install-deps.sh) "
                        "or configure with -DAGENTRT_MALLOC=system")
  endif()
  # Linked with --no-as-needed: agentd calls no jemalloc function by name, it only
  # needs jemalloc's malloc to be found before glibc's.
  target_link_libraries(${target} PRIVATE -Wl,--no-as-needed PkgConfig::JEMALLOC -Wl,--as-needed)
endfunction()
