#!/usr/bin/python3
"""Writes the malformed trace files of the bad-input catalogue (tests/badinputs/files/).

Each file breaks exactly one rule of traces/traces.h (safetensors or .npy); the catalogue
(bad_inputs.txt) says which message gcsim must print for it. Deterministic: rerunning it
rewrites the same bytes. Run from anywhere: python3 tests/badinputs/make_files.py
"""
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "files")


def put(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def st(header, data=b"", header_len=None, raw_header=None):
    """A safetensors file: 8-byte little-endian header length, JSON header, data."""
    h = raw_header if raw_header is not None else json.dumps(header, separators=(",", ":")).encode()
    n = len(h) if header_len is None else header_len
    return struct.pack("<Q", n) + h + data


def f32(*xs):
    return struct.pack("<%df" % len(xs), *xs)


def npy(dict_text, data=b"", major=1, header_len=None, magic=b"\x93NUMPY", minor=0):
    """A .npy file: magic, version, header length (2 bytes for 1.0, 4 for 2.0/3.0), dict."""
    pre = 10 if major == 1 else 12
    h = dict_text.encode()
    pad = (-(pre + len(h) + 1)) % 64
    h = h + b" " * pad + b"\n"
    n = len(h) if header_len is None else header_len
    lenbytes = struct.pack("<H", n) if major == 1 else struct.pack("<I", n)
    return magic + bytes([major, minor]) + lenbytes + h + data


def main():
    os.makedirs(OUT, exist_ok=True)
    one = {"g": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]}}
    good = st(one, f32(1, 2, 3))
    put("st_good.safetensors", good)
    # Truncated: the last tensor's bytes are cut short, then only the length prefix is left.
    put("st_truncated_data.safetensors", good[:-2])
    put("st_truncated_length.safetensors", good[:5])
    put("st_truncated_header.safetensors", good[:20])
    put("st_empty.safetensors", b"")
    # Lying headers: the length prefix disagrees with the JSON that follows.
    put("st_length_too_long.safetensors", st(one, f32(1, 2, 3), header_len=10**6))
    put("st_length_huge.safetensors", st(one, f32(1, 2, 3), header_len=2**63 + 5))
    put("st_length_too_short.safetensors",
        st(one, f32(1, 2, 3), header_len=len(json.dumps(one, separators=(",", ":"))) - 4))
    put("st_length_tiny.safetensors", st(one, f32(1, 2, 3), header_len=1))
    put("st_shape_lies.safetensors",
        st({"g": {"dtype": "F32", "shape": [4], "data_offsets": [0, 12]}}, f32(1, 2, 3)))
    put("st_offsets_past_end.safetensors",
        st({"g": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, f32(1, 2, 3)))
    put("st_offsets_reversed.safetensors",
        st({"g": {"dtype": "F32", "shape": [0], "data_offsets": [12, 0]}}, f32(1, 2, 3)))
    put("st_dtype_lies.safetensors",
        st({"g": {"dtype": "F16", "shape": [3], "data_offsets": [0, 12]}}, f32(1, 2, 3)))
    put("st_gap.safetensors",
        st({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
            "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}}, f32(1, 2, 3)))
    put("st_overlap.safetensors",
        st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
            "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, f32(1, 2, 3)))
    put("st_trailing_bytes.safetensors", good + b"\0\0\0\0")
    put("st_dtype_f64.safetensors",
        st({"g": {"dtype": "F64", "shape": [1], "data_offsets": [0, 8]}}, b"\0" * 8))
    put("st_dtype_unknown.safetensors",
        st({"g": {"dtype": "float", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8))
    put("st_shape_overflow.safetensors",
        st({"g": {"dtype": "F32", "shape": [2**32, 2**32, 4], "data_offsets": [0, 4]}},
           f32(1)))
    put("st_shape_negative.safetensors",
        st({"g": {"dtype": "F32", "shape": [-3], "data_offsets": [0, 12]}}, f32(1, 2, 3)))
    put("st_too_many_dims.safetensors",
        st({"g": {"dtype": "F32", "shape": [1] * 9, "data_offsets": [0, 4]}}, f32(1)))
    put("st_header_not_json.safetensors", st(None, b"", raw_header=b"{\"g\": [1, 2"))
    put("st_header_array.safetensors", st(None, b"", raw_header=b"[1, 2, 3]"))
    put("st_duplicate_tensor.safetensors",
        st(None, f32(1, 2), raw_header=b'{"g":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                                      b'"g":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}'))
    # Issue 15: a name cJSON would cut at the NUL; a .npy file without the .npy magic.
    put("st_name_nul_escape.safetensors",
        st(None, f32(1, 2), raw_header=b'{"g\\u0000x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                                      b'"g":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}'))
    put("npy_bad_magic.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                 f32(1, 2, 3), magic=b"\x93NUMPX"))
    put("st_metadata_number.safetensors",
        st({"__metadata__": {"step": 10}, **one}, f32(1, 2, 3)))
    put("st_unknown_key.safetensors",
        st({"g": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12], "strides": [1]}},
           f32(1, 2, 3)))
    # Non-finite gradients, in each dtype.
    put("st_nan_f32.safetensors", st(one, f32(1, float("nan"), 3)))
    put("st_inf_f16.safetensors",
        st({"g": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}},
           struct.pack("<2H", 0x3C00, 0x7C00)))
    put("st_neg_inf_bf16.safetensors",
        st({"g": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}},
           struct.pack("<2H", 0x3F80, 0xFF80)))
    # Zero-size tensors: legal on their own, but no data may hide behind them.
    put("st_zero_size_with_data.safetensors",
        st({"g": {"dtype": "F32", "shape": [0, 3], "data_offsets": [0, 12]}}, f32(1, 2, 3)))
    put("st_zero_size_only.safetensors",
        st({"g": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}}))

    data = f32(*range(12))
    put("npy_good.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", data))
    put("npy_truncated_data.npy",
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", data)[:-1])
    put("npy_truncated_preamble.npy", b"\x93NUMPY\x01\x00")
    put("npy_header_length_lies.npy",
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", data,
            header_len=60000))
    put("npy_shape_lies.npy",
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }", data))
    put("npy_trailing_data.npy",
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", data))
    put("npy_version_9.npy",
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", data, major=9))
    put("npy_big_endian.npy",
        npy("{'descr': '>f4', 'fortran_order': False, 'shape': (3, 4), }", data))
    put("npy_float64.npy",
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", data))
    put("npy_fortran.npy",
        npy("{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }", data))
    put("npy_no_shape.npy", npy("{'descr': '<f4', 'fortran_order': False, }", data))
    put("npy_shape_overflow.npy",
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4), }",
            data))
    put("npy_extra_key.npy",
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'x': 1, }", data))
    put("npy_nan.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                           f32(float("nan"), 0, 0)))
    put("npy_inf_f16.npy", npy("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }",
                               struct.pack("<2H", 0x0000, 0xFC00)))
    put("npy_zero_size.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }"))
    # Issue 29: a JSON file given as a trace read as "header length 3184361845584634491".
    put("not_a_trace.json", b'{"name": "resnet-50", "layers": []}\n')


if __name__ == "__main__":
    main()
