# helix_add_plugin(<name> SOURCES <files...>)
# Builds the plugin module libhelix_<name>.so with the flags the ABI expects: hidden
# visibility, a version script that exports helix_plugin_query alone, no undefined symbols,
# and statically linked dependencies kept private. Installs it into HELIX_PLUGIN_INSTALL_DIR.
# The target is named helix_plugin_<name>; link your own dependencies to it.
set(HELIX_PLUGIN_VERSION_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/helix_plugin.map")

function(helix_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "helix_add_plugin(${name}): SOURCES is required")
  endif()
  set(target helix_plugin_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE HelixSDK::sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME "helix_${name}"
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${target} PRIVATE "LINKER:--no-undefined" "LINKER:--exclude-libs,ALL"
                      "LINKER:--version-script=${HELIX_PLUGIN_VERSION_SCRIPT}")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${HELIX_PLUGIN_VERSION_SCRIPT}")
  if(DEFINED HELIX_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${HELIX_PLUGIN_OUTPUT_DIR}")
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION "${HELIX_PLUGIN_INSTALL_DIR}")
endfunction()
