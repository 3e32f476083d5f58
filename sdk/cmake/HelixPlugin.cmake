# helix_add_plugin(<name> SOURCES <files...>)
# Builds the plugin module libhelix_<name>.so with the flags the ABI expects: hidden
# visibility (only helix_plugin_query is exported), no undefined symbols, and statically
# linked dependencies kept private. Installs it into HELIX_PLUGIN_INSTALL_DIR.
# The target is named helix_plugin_<name>; link your own dependencies to it.
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
  target_link_options(${target} PRIVATE "LINKER:--no-undefined" "LINKER:--exclude-libs,ALL")
  if(DEFINED HELIX_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${HELIX_PLUGIN_OUTPUT_DIR}")
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION "${HELIX_PLUGIN_INSTALL_DIR}")
endfunction()
