# The dependency rules of docs/architecture.md, enforced at build time: every target
# of the project depends on a check that scans the sources for includes their folder
# may not use, so a forbidden include fails the build instead of relying on review.
add_custom_target(agentrt_layering
  COMMAND ${CMAKE_COMMAND} -DROOT=${CMAKE_SOURCE_DIR} -P ${CMAKE_SOURCE_DIR}/cmake/CheckLayering.cmake
  COMMENT "Checking include rules of sdk/, lib/, core/ and plugins/"
  VERBATIM)

function(agentrt_enforce_layering target)
  add_dependencies(${target} agentrt_layering)
endfunction()
