# Usage: cmake -DROOT=<tree> -P CheckLayering.cmake
# Fails when a source under ROOT includes something its folder may not depend on.
#   sdk/      the C and C++ standard library and agentrt/ headers only
#   core/     never Poco (Poco::Net belongs to server/), never server/
#   plugins/  never core/, server/ or Poco: the SDK, lib/ and their own libraries only
#   lib/      the standard library and its own third-party libraries: nothing of the tree
#   tools/    core/ and the SDK, never server/ or Poco
if(NOT ROOT)
  message(FATAL_ERROR "CheckLayering: pass -DROOT=<source tree>")
endif()
get_filename_component(ROOT "${ROOT}" ABSOLUTE)

set(rule_sdk "Poco/|boost/|nlohmann/|sqlite3|curl/|core/|server/")
set(rule_core "Poco/|server/")
set(rule_plugins "Poco/|core/|server/|boost/")
set(rule_tools "Poco/|server/")
set(rule_lib "Poco/|boost/|nlohmann/|sqlite3|curl/|core/|server/|agentrt/|common/")

set(violations "")
foreach(area sdk lib core plugins tools)
  file(GLOB_RECURSE sources LIST_DIRECTORIES false
       "${ROOT}/${area}/*.h" "${ROOT}/${area}/*.hpp" "${ROOT}/${area}/*.c"
       "${ROOT}/${area}/*.cc" "${ROOT}/${area}/*.cpp")
  foreach(source IN LISTS sources)
    file(STRINGS "${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]*)[>\"].*" "\\1" header "${line}")
      if(header MATCHES "${rule_${area}}" OR header MATCHES "\\.\\./")
        file(RELATIVE_PATH rel "${ROOT}" "${source}")
        string(APPEND violations "  ${rel}: #include ${header} is not allowed in ${area}/\n")
      endif()
    endforeach()
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "Layering violation (see docs/architecture.md):\n${violations}")
endif()
