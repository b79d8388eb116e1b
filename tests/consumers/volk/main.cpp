// vksort with volk: volk finds the loader at run time, and vksort gets volk's
// vkGetInstanceProcAddr and (after volkLoadDevice) volk's vkGetDeviceProcAddr.
#include <volk.h>

#include "consumer.h"

int main() {
  if (volkInitialize() != VK_SUCCESS) return consumer::failed("volk", "volkInitialize found no Vulkan loader");
  consumer::Hooks hooks;
  hooks.instanceCreated = volkLoadInstanceOnly;
  hooks.deviceCreated = volkLoadDevice;
  hooks.passDeviceProcAddr = true;
  return consumer::run("volk", vkGetInstanceProcAddr, hooks);
}
