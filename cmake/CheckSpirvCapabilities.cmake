# cmake -DSPIRV_DIS=<spirv-dis> -DSPV=<module.spv> -DFORBID=<Cap|Cap...> -P CheckSpirvCapabilities.cmake
# Fails when the module declares one of the forbidden capabilities, so that a
# kernel that must run without a device feature cannot start needing it.
execute_process(COMMAND ${SPIRV_DIS} ${SPV} OUTPUT_VARIABLE text RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "spirv-dis ${SPV} failed")
endif()
string(REPLACE "|" ";" forbidden "${FORBID}")
foreach(cap IN LISTS forbidden)
  if(text MATCHES "OpCapability ${cap}\n")
    message(FATAL_ERROR "${SPV} declares the ${cap} capability, which it must not need")
  endif()
endforeach()
