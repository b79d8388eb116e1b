# CMake toolchain for .ci/windows.sh: 64-bit Windows with MinGW-w64
# (g++-mingw-w64-x86-64). Headers and libraries come only from the MinGW-w64
# tree and from what the command line names; programs (glslangValidator) run
# on the build machine.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# CMake packages from CMAKE_PREFIX_PATH too: the consumers' install prefix.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
