// vksort in a program built with -fno-exceptions -fno-rtti that links the
// Vulkan loader and hands vksort the loader's own vkGetInstanceProcAddr.
#include <vulkan/vulkan.h>  // first: consumer.h includes vksort.h, which would define VK_NO_PROTOTYPES

#include "consumer.h"

#if defined(__cpp_exceptions) || defined(__cpp_rtti)
#error "this consumer must be built with -fno-exceptions -fno-rtti"
#endif

int main() {
  const PFN_vkGetInstanceProcAddr loaderGetInstanceProcAddr = &vkGetInstanceProcAddr;  // the prototype itself
  return consumer::run("prototypes", loaderGetInstanceProcAddr);
}
