# vksort_embed_shader(<target> <source.comp> <symbol> [DEPENDS files...]
#                     [DEFINES NAME=VALUE...] [FORBID_CAPABILITIES capability...])
# Compiles a GLSL compute shader to SPIR-V with glslangValidator (with the
# preprocessor DEFINES, so that one source can give several modules), checks it
# with spirv-val (and, with FORBID_CAPABILITIES, that it declares none of
# those capabilities), and generates <symbol>.h (a uint32_t array named
# <symbol>) in the target's generated include directory. SPIR-V is never
# committed.
find_program(GLSLANG_VALIDATOR glslangValidator REQUIRED)
find_program(SPIRV_VAL spirv-val REQUIRED)
find_program(SPIRV_DIS spirv-dis REQUIRED)
set(VKSORT_CHECK_CAPABILITIES ${CMAKE_CURRENT_LIST_DIR}/CheckSpirvCapabilities.cmake)

function(vksort_embed_shader target source symbol)
  cmake_parse_arguments(ARG "" "" "DEPENDS;DEFINES;FORBID_CAPABILITIES" ${ARGN})
  list(TRANSFORM ARG_DEFINES PREPEND -D)
  set(outdir ${CMAKE_CURRENT_BINARY_DIR}/generated)
  get_filename_component(srcdir ${source} DIRECTORY)
  set(spv ${outdir}/${symbol}.spv)
  set(header ${outdir}/${symbol}.h)
  set(check_capabilities)
  if(ARG_FORBID_CAPABILITIES)
    string(REPLACE ";" "|" forbid "${ARG_FORBID_CAPABILITIES}")
    set(check_capabilities COMMAND ${CMAKE_COMMAND} -DSPIRV_DIS=${SPIRV_DIS} -DSPV=${spv} -DFORBID=${forbid} -P
                           ${VKSORT_CHECK_CAPABILITIES})
  endif()
  add_custom_command(
    OUTPUT ${header}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
    COMMAND ${GLSLANG_VALIDATOR} -V --target-env vulkan1.2 --quiet -I${srcdir} ${ARG_DEFINES} -o ${spv} ${source}
    COMMAND ${SPIRV_VAL} --target-env vulkan1.2 ${spv}
    ${check_capabilities}
    COMMAND ${GLSLANG_VALIDATOR} -V --target-env vulkan1.2 --quiet -I${srcdir} ${ARG_DEFINES} --vn ${symbol} -o ${header} ${source}
    DEPENDS ${source} ${ARG_DEPENDS} ${VKSORT_CHECK_CAPABILITIES}
    COMMENT "glslang + spirv-val: ${source}"
    VERBATIM)
  target_sources(${target} PRIVATE ${header})
  target_include_directories(${target} PRIVATE ${outdir})
endfunction()
