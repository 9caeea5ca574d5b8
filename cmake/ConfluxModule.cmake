# conflux_module(NAME DEPS...): a library from src/*.cpp with public headers
# in include/. A module whose sources are not written yet is an INTERFACE
# library, so the tree keeps configuring while it grows.
function(conflux_module name)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  if(sources)
    add_library(${name} STATIC ${sources})
    target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
    target_link_libraries(${name} PUBLIC ${ARGN} PRIVATE conflux_warnings)
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/include)
    target_link_libraries(${name} INTERFACE ${ARGN})
  endif()
  set_property(GLOBAL APPEND PROPERTY CONFLUX_LIBRARIES ${name})
endfunction()
