/* fuzz_python.c: one Python file through the Python front end (parse, evaluate, facts). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_frontend(&python_frontend, "fuzz.py", data, size);
    return 0;
}
