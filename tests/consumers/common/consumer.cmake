# Shared by the consumer projects: vksort_consumer(<target> <route>) builds
# main.cpp against the common header (consumer.h), with strict warnings as
# errors (/W4 /WX with MSVC). Each project adds how it finds vksort and how it
# loads Vulkan.
set(VKSORT_CONSUMER_COMMON_DIR ${CMAKE_CURRENT_LIST_DIR})

function(vksort_consumer target)
  add_executable(${target} main.cpp)
  target_include_directories(${target} PRIVATE ${VKSORT_CONSUMER_COMMON_DIR})
  # Brace-initialising only sType is the Vulkan idiom, hence -Wno-missing-field-initializers
  # (clang-cl's /W4 includes it; cl.exe has no such warning).
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 /WX $<$<CXX_COMPILER_ID:Clang>:-Wno-missing-field-initializers>)
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion
                                             -Wno-missing-field-initializers -Werror)
  endif()
endfunction()
