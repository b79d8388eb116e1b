// vksort through FetchContent; Vulkan through the loader's prototypes.
#include <vulkan/vulkan.h>  // first: consumer.h includes vksort.h, which would define VK_NO_PROTOTYPES

#include "consumer.h"

int main() { return consumer::run("fetchcontent", vkGetInstanceProcAddr); }
