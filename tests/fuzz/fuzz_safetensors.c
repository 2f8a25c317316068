/*
 * tests/fuzz/fuzz_safetensors.c: the safetensors reader (traces/safetensors_read.c, the
 * parser behind gc_trace_open) on arbitrary bytes. Beyond "no crash": an accepted file
 * has tensors inside the file whose data tile the buffer exactly (traces.h), every
 * tensor converts or is refused with a message, and no NaN or Inf is ever returned.
 */
#include "trace_fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_trace_run(data, size, "fuzz.safetensors", gc_trace_parse_safetensors);
    return 0;
}
