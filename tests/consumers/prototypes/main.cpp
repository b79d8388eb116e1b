// vksort in a program built with -fno-exceptions -fno-rtti (/EHs-c- /GR-) that links the
// Vulkan loader and hands vksort the loader's own vkGetInstanceProcAddr.
#include <vulkan/vulkan.h>  // first: consumer.h includes vksort.h, which would define VK_NO_PROTOTYPES

#include "consumer.h"

// With MSVC, its own macros: clang-cl's /GR- drops only the RTTI data and
// keeps __cpp_rtti.
#if defined(_MSC_VER)
#if defined(_CPPUNWIND) || defined(_CPPRTTI)
#error "this consumer must be built with /EHs-c- /GR-"
#endif
#elif defined(__cpp_exceptions) || defined(__cpp_rtti)
#error "this consumer must be built with -fno-exceptions -fno-rtti"
#endif

int main() {
  const PFN_vkGetInstanceProcAddr loaderGetInstanceProcAddr = &vkGetInstanceProcAddr;  // the prototype itself
  return consumer::run("prototypes", loaderGetInstanceProcAddr);
}
