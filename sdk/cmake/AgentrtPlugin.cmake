# agentrt_add_plugin(<target> <source>...)
# Builds a plugin as a MODULE library named <target>.so that exports only
# agentrt_plugin_query: hidden visibility plus a version script, so the C++ runtime's
# weak template symbols cannot leak into the dynamic symbol table either.
function(agentrt_add_plugin target)
  add_library(${target} MODULE ${ARGN})
  target_link_libraries(${target} PRIVATE agentrt::sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${AGENTRT_SDK_CMAKE_DIR}/agentrt-plugin.map)
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${AGENTRT_SDK_CMAKE_DIR}/agentrt-plugin.map"
    "LINKER:--exclude-libs,ALL")
endfunction()
