/*
 * tests/fuzz/decode_specs.h: representative specs for the decoder fuzz target, at least
 * one per registered compressor (fuzz_decode.c aborts at start-up if a name from
 * gc_compressor_names() has none, so a new compressor cannot escape the fuzzer), with
 * the payload-format variants (fixed/Elias codes, pairs/RLE, buckets, norms).
 * Shared with make_seeds.c, which encodes gradients with the same table: the first byte
 * of a seed is the index of its spec.
 */
#ifndef GCSIM_TESTS_FUZZ_DECODE_SPECS_H
#define GCSIM_TESTS_FUZZ_DECODE_SPECS_H

static const char *const fuzz_decode_specs[] = {
    "none",
    "fp16",
    "bf16",
    "terngrad",
    "terngrad:bucket=16,last=tern",
    "qsgd",
    "qsgd:s=1,bucket=8,norm=linf,code=elias",
    "qsgd:s=127,bucket=0,code=elias",
    "dgc",
    "dgc:code=pairs,ratio=0.1",
    "topk:ratio=0.1",
    "topk:ratio=0.3,code=rle",
    "randomk:ratio=0.1",
    "randomk:ratio=0.2,code=rle",
    "threshold:thr=0.5",
    "threshold:thr=0.1,code=rle",
    "orq",
    "orq:s=5,bucket=16",
    "linear",
    "linear:s=7,bucket=8",
    "bingrad-b",
    "bingrad-b:bucket=8",
    "bingrad-pb",
    "bingrad-pb:bucket=0",
    "signsgd",
    "signsgd:bucket=8",
    "onebit",
    "ecq",
    "ecq:s=2,code=elias,bucket=16",
    "powersgd",
    "powersgd:rank=2",
    "ef+qsgd:s=2",
};
#define FUZZ_N_DECODE_SPECS (sizeof fuzz_decode_specs / sizeof fuzz_decode_specs[0])

/* The largest tensor the decoder target accepts from a payload header (elements). */
#define FUZZ_DECODE_MAX_N (1u << 16)

#endif
