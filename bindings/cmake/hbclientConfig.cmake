# CMake package config for libhbclient: find_package(hbclient) gives
#   hbclient::hbclient         the shared library (libhbclient.so) with include/hbclient.h
#   hbclient::hbclient_static  the static library (libhbclient.a) and its system libraries
#   hbclient::cpp              the header-only C++17 wrapper hbclient.hpp (links hbclient::hbclient)
# Installed by scripts/ffi-install.sh as PREFIX/lib/cmake/hbclient/hbclientConfig.cmake; the
# prefix is found relative to this file, so an installed tree can be moved.
get_filename_component(_hbclient_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET hbclient::hbclient)
  find_package(Threads REQUIRED)

  add_library(hbclient::hbclient SHARED IMPORTED)
  set_target_properties(hbclient::hbclient PROPERTIES
    IMPORTED_LOCATION "${_hbclient_prefix}/lib/libhbclient.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_hbclient_prefix}/include")

  add_library(hbclient::hbclient_static STATIC IMPORTED)
  set_target_properties(hbclient::hbclient_static PROPERTIES
    IMPORTED_LOCATION "${_hbclient_prefix}/lib/libhbclient.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_hbclient_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m;rt;util")

  add_library(hbclient::cpp INTERFACE IMPORTED)
  set_target_properties(hbclient::cpp PROPERTIES
    INTERFACE_LINK_LIBRARIES "hbclient::hbclient"
    INTERFACE_COMPILE_FEATURES "cxx_std_17")
endif()

set(hbclient_INCLUDE_DIRS "${_hbclient_prefix}/include")
set(hbclient_LIBRARIES hbclient::hbclient)
unset(_hbclient_prefix)
