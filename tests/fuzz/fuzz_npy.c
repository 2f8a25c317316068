/*
 * tests/fuzz/fuzz_npy.c: the NumPy .npy reader (traces/npy_read.c, the parser behind
 * gc_trace_open for files starting with "\x93NUMPY") on arbitrary bytes. Inputs without
 * the magic are skipped, as gc_trace_open would hand them to the safetensors reader.
 * The tensor must be named after the file ("grad" for fuzz/grad.npy).
 */
#include "trace_fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (size < 6 || memcmp(data, magic, 6) != 0)
        return 0;
    gc_trace_file f;
    memset(&f, 0, sizeof f);
    f.path = gc_trace_strdup("fuzz/grad.npy");
    f.data = data;
    f.file_bytes = size;
    char err[512] = "";
    if (gc_trace_parse_npy(&f, err, sizeof err) == 0) {
        FUZZ_REQUIRE(f.n_tensors == 1 && strcmp(f.tensors[0].name, "grad") == 0,
                     "npy tensor naming");
        FUZZ_REQUIRE(f.tensors[0].file_offset_bytes + f.tensors[0].data_bytes == size,
                     "data does not end at the end of the file");
        fuzz_trace_check(&f);
    } else {
        fuzz_check_message(err, sizeof err, f.path);
    }
    fuzz_trace_release(&f);
    return 0;
}
