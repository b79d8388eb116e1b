# Provides Vulkan::Headers, vksort's only Vulkan dependency: vksort loads every
# function through the caller's vkGetInstanceProcAddr, so it needs the headers
# and never the loader's library (which FindVulkan requires). vksort's build and
# its installed package both include this file. In order, it takes:
#  - a Vulkan::Headers target that already exists: find_package(Vulkan) with
#    CMake 3.21 or later, or a vendored Vulkan-Headers added with add_subdirectory;
#  - vulkan/vulkan.h in Vulkan_INCLUDE_DIR, FindVulkan's variable: preset it to
#    the include folder of vendored Vulkan-Headers;
#  - vulkan/vulkan.h in the Vulkan SDK ($ENV{VULKAN_SDK}/Include) or on the
#    usual include paths.
# Sets VKSORT_VULKAN_HEADERS_MISSING to a message when none is found.
unset(VKSORT_VULKAN_HEADERS_MISSING)
if(NOT TARGET Vulkan::Headers)
  find_path(Vulkan_INCLUDE_DIR NAMES vulkan/vulkan.h HINTS "$ENV{VULKAN_SDK}/Include" "$ENV{VULKAN_SDK}/include"
            DOC "The Vulkan headers' include folder (the one that holds vulkan/vulkan.h)")
  if(Vulkan_INCLUDE_DIR)
    # GLOBAL, so that a parent project that links vksort::vksort sees it too.
    add_library(Vulkan::Headers INTERFACE IMPORTED GLOBAL)
    set_target_properties(Vulkan::Headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${Vulkan_INCLUDE_DIR}")
  else()
    string(CONCAT VKSORT_VULKAN_HEADERS_MISSING
                  "vksort needs the Vulkan headers (vulkan/vulkan.h) and found none: install the Vulkan SDK (and set "
                  "VULKAN_SDK), set Vulkan_INCLUDE_DIR to the include folder of Vulkan-Headers, or create a "
                  "Vulkan::Headers target first")
  endif()
endif()
