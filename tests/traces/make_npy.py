#!/usr/bin/python3
"""Write .npy files with NumPy itself (the reference writer) for test_npy.c, and a
safetensors file with the capture tool's Python writer (traces/capture/gcsim_capture.py).

    make_npy.py DIR [CAPTURE_DIR]

Each good array X also gets X.bin: its values as raw little-endian float32, which is what
the C reader must return. The bad ones are arrays NumPy writes legitimately but gcsim
refuses (big-endian, Fortran order, float64)."""
import os
import sys

import numpy as np
from numpy.lib import format as npformat


def save(path, arr, version=None):
    with open(path, "wb") as f:
        npformat.write_array(f, arr, version=version, allow_pickle=False)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    good = {
        "v1_f32": (np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.25 - 3, (1, 0)),
        "v2_f32": (rng.standard_normal((17, 13)).astype(np.float32), (2, 0)),
        "v3_f16": (rng.standard_normal(37).astype(np.float16), (3, 0)),
        "v1_scalar": (np.array(1.5, dtype=np.float32), (1, 0)),
        "v1_empty": (np.zeros((0, 5), dtype=np.float32), (1, 0)),
    }
    for name, (arr, version) in good.items():
        save(os.path.join(out, name + ".npy"), arr, version)
        arr.astype("<f4").tofile(os.path.join(out, name + ".bin"))
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    save(os.path.join(out, "bad_bigendian.npy"), base.astype(">f4"))
    save(os.path.join(out, "bad_fortran.npy"), np.asfortranarray(base))
    save(os.path.join(out, "bad_f64.npy"), base.astype(np.float64))

    # The capture tool's writer: one tensor per dtype, the float32 inputs in X.bin; the C
    # test checks F32 exactly and F16/BF16 against its own round-to-nearest-even.
    capture = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "traces", "capture")
    sys.dont_write_bytecode = True  # keep the source tree clean
    sys.path.insert(0, capture)
    from gcsim_capture import write_safetensors

    vals = (rng.standard_normal((3, 7)) * 3).astype(np.float32)
    vals[0, 0] = 1.00390625  # a bfloat16 tie (rounds to even, 1.0)
    vals[0, 1] = 65519.0     # the largest value that still rounds to a finite half
    for dtype in ("F32", "F16", "BF16"):
        name = "py_" + dtype.lower()
        write_safetensors(os.path.join(out, name + ".safetensors"), {"g": vals},
                          {"model": "fixture", "step": "3"}, dtype)
        vals.astype("<f4").tofile(os.path.join(out, name + ".bin"))


if __name__ == "__main__":
    main()
