/* A C caller's enums: any int may arrive where vksort expects one, which C
   allows and C++ does not. test_device_models.cpp names them through here. */
#include <vksort/vksort_advanced.h>

const char* resultNameOf(int value);
const char* pathNameOf(int value);

const char* resultNameOf(int value) { return vksortResultName((VksortResult)value); }
const char* pathNameOf(int value) { return vksortPathName((VksortPath)value); }
