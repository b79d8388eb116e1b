# vksort_embed_shader(<target> <source.comp> <symbol> [DEPENDS files...]
#                     [DEFINES NAME=VALUE...] [FORBID_CAPABILITIES capability...])
# Compiles a GLSL compute shader to SPIR-V with glslangValidator (with the
# preprocessor DEFINES, so that one source can give several modules) and
# generates <symbol>.h (a uint32_t array named <symbol>) in the target's
# generated include directory. SPIR-V is never committed.
# With VKSORT_CHECK_SPIRV on, it also checks the module with spirv-val and,
# with FORBID_CAPABILITIES, that it declares none of those capabilities
# (spirv-dis). These are the project's own checks: a parent project that adds
# vksort needs glslangValidator only.
# The tools are looked for as FindVulkan looks for them: in the Vulkan SDK
# ($ENV{VULKAN_SDK}/Bin) and on PATH; Vulkan_GLSLANG_VALIDATOR_EXECUTABLE is
# FindVulkan's own variable, so a parent that has run find_package(Vulkan)
# shares its choice.
set(VKSORT_SDK_BIN "$ENV{VULKAN_SDK}/Bin" "$ENV{VULKAN_SDK}/bin")
find_program(Vulkan_GLSLANG_VALIDATOR_EXECUTABLE NAMES glslangValidator HINTS ${VKSORT_SDK_BIN} REQUIRED)
if(VKSORT_CHECK_SPIRV)
  find_program(VKSORT_SPIRV_VAL_EXECUTABLE NAMES spirv-val HINTS ${VKSORT_SDK_BIN} REQUIRED)
  find_program(VKSORT_SPIRV_DIS_EXECUTABLE NAMES spirv-dis HINTS ${VKSORT_SDK_BIN} REQUIRED)
endif()
set(VKSORT_CHECK_CAPABILITIES ${CMAKE_CURRENT_LIST_DIR}/CheckSpirvCapabilities.cmake)

function(vksort_embed_shader target source symbol)
  cmake_parse_arguments(ARG "" "" "DEPENDS;DEFINES;FORBID_CAPABILITIES" ${ARGN})
  list(TRANSFORM ARG_DEFINES PREPEND -D)
  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/generated)
  get_filename_component(srcdir ${source} DIRECTORY)
  set(spv ${outdir}/${symbol}.spv)
  set(header ${outdir}/${symbol}.h)
  set(glslang ${Vulkan_GLSLANG_VALIDATOR_EXECUTABLE} -V --target-env vulkan1.2 --quiet -I${srcdir} ${ARG_DEFINES})
  set(checks)
  set(tools glslang)
  if(VKSORT_CHECK_SPIRV)
    set(tools "glslang + spirv-val")
    set(checks COMMAND ${glslang} -o ${spv} ${source} COMMAND ${VKSORT_SPIRV_VAL_EXECUTABLE} --target-env vulkan1.2
                       ${spv})
    if(ARG_FORBID_CAPABILITIES)
      string(REPLACE ";" "|" forbid "${ARG_FORBID_CAPABILITIES}")
      list(APPEND checks COMMAND ${CMAKE_COMMAND} -DSPIRV_DIS=${VKSORT_SPIRV_DIS_EXECUTABLE} -DSPV=${spv}
           -DFORBID=${forbid} -P ${VKSORT_CHECK_CAPABILITIES})
    endif()
  endif()
  add_custom_command(
    OUTPUT ${header}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
    ${checks}
    COMMAND ${glslang} --vn ${symbol} -o ${header} ${source}
    DEPENDS ${source} ${ARG_DEPENDS} ${VKSORT_CHECK_CAPABILITIES}
    COMMENT "${tools}: ${source}"
    VERBATIM)
  target_sources(${target} PRIVATE ${header})
  target_include_directories(${target} PRIVATE ${outdir})
endfunction()
