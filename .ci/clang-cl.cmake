# CMake toolchain for .ci/windows.sh: clang-cl, clang in MSVC mode (_MSC_VER,
# the MSVC ABI, cl.exe's options), for compiling and archiving vksort on
# Linux. There is no MSVC standard library or Windows SDK here, so the C and
# C++ headers are MinGW-w64's and libstdc++'s, which need __GNUC__: hence
# -fgnuc-version. Nothing is linked (no MSVC runtime libraries), so CMake's
# compiler checks build a static library.
# VKSORT_LLVM_BIN: the folder of clang-cl, lld-link, llvm-lib and llvm-rc.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_COMPILER ${VKSORT_LLVM_BIN}/clang-cl)
set(CMAKE_CXX_COMPILER ${VKSORT_LLVM_BIN}/clang-cl)
set(CMAKE_AR ${VKSORT_LLVM_BIN}/llvm-lib)
set(CMAKE_LINKER ${VKSORT_LLVM_BIN}/lld-link)
set(CMAKE_RC_COMPILER ${VKSORT_LLVM_BIN}/llvm-rc)
set(CMAKE_MT ${VKSORT_LLVM_BIN}/llvm-mt)
set(CMAKE_C_COMPILER_TARGET x86_64-pc-windows-msvc)
set(CMAKE_CXX_COMPILER_TARGET x86_64-pc-windows-msvc)
set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES VKSORT_LLVM_BIN)
execute_process(COMMAND x86_64-w64-mingw32-g++ -print-file-name=include OUTPUT_VARIABLE gcc_include
                OUTPUT_STRIP_TRAILING_WHITESPACE)
set(headers "/clang:-fgnuc-version=12 -D__STRICT_ANSI__ -imsvc ${gcc_include}/c++ -imsvc ${gcc_include}/c++/x86_64-w64-mingw32 -imsvc /usr/x86_64-w64-mingw32/include")
set(CMAKE_C_FLAGS_INIT "${headers}")
set(CMAKE_CXX_FLAGS_INIT "${headers}")
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# CMake packages from CMAKE_PREFIX_PATH too: the install prefix of .ci/windows.sh.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
