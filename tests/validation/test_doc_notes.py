#!/usr/bin/env python3
"""doc_notes.py on synthetic rows (no gcsim): the figures a note prints follow the rows
(change a row, the text changes), and a row that contradicts a sentence's direction raises
StaleNote. The rows are made up, near the values of the cases they stand for. Exit 1 on the
first failure."""
import copy
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from unit_checks import check  # noqa: E402
import doc_notes as dn  # noqa: E402

IMG = dn.MEASURED["bag_vgg16_img_s"]


def case(name, source, measured, stacks, compressor="x", platform="p.json", model="m",
         gpus=8, batch=32, comp=1000.0, base=None):
    return {"case": name, "source": source, "measured": measured, "stacks": stacks,
            "compressor": compressor, "platform": platform, "model": model, "gpus": str(gpus),
            "batch": str(batch), "stacks_samples_per_s": comp,
            "stacks_base_samples_per_s": comp / stacks if base is None else base}


def compression_rows():
    pcie = "tests/validation/platforms/mergecomp-v100-pcie.json"
    rows = []
    for model, tag, fp16, sign in (("resnet-50", "R50", (1.10, 1.56), (0.59, 0.90)),
                                   ("resnet-101", "R101", (1.02, 1.23), (0.52, 0.80))):
        rows.append(case("MC-%s-fp16" % tag, "MC", fp16[1], fp16[0], "fp16", pcie, model))
        for comp in ("signsgd", "ef+signsgd", "onebit"):
            rows.append(case("MC-%s-%s" % (tag, comp), "MC", sign[1], sign[0], comp, pcie, model))
    for n, pred, meas in ((8, 1.20, 0.95), (16, 1.44, 2.67), (32, 1.84, 2.69), (64, 1.86, 3.04)):
        rows.append(case("DGC-VGG16-%d" % n, "DGC", meas, pred))
    rows.append(case("DGC-R50-8", "DGC", 0.81, 0.97))
    rows += [case("CGX-BERT-4", "CGX", 1.93, 3.74), case("CGX-BERT-8", "CGX", 2.27, 4.26),
             case("CGX-R50-2", "CGX", 1.11, 0.99), case("CGX-ViT-2", "CGX", 1.07, 1.01),
             case("EGO-667", "EGO", 1.78, 1.62, gpus=8, batch=16, comp=76.0, base=47.0)]
    rows += [case("DS1BA-BERTL-40GbE", "DS1BA", 6.6, 4.89), case("DS1BA-SQuAD-40GbE", "DS1BA",
                                                                 6.2, 5.04),
             case("DS1BA-BERTL-IB", "DS1BA", 2.0, 2.16)]
    for doc, meas in (("doc", 1.64), ("readme", 1.85)):
        rows.append(case("BPS-VGG16-32-%s" % doc, "BPS", meas, 2.58, comp=6318.0, base=2448.0))
    rows += [case("BPS-R50-64-doc", "BPS", 1.09, 1.01), case("BPS-R50-64-readme", "BPS", 1.02,
                                                             1.01)]
    bnet = "tests/validation/platforms/bagua-v100-100g-baguanet.json"
    for i, (gbps, comp, preds) in enumerate((
            ("100G", 21298.0, {"AR": 1.66, "DDP": 2.06, "Horovod": 2.02, "BytePS": 2.02}),
            ("10G", 11407.0, dict.fromkeys(("AR", "DDP", "Horovod", "BytePS"), 3.28)))):
        for algo in ("ByteGrad", "QAdam"):
            for b in ("AR", "DDP", "Horovod", "BytePS"):
                rows.append(case("BAG-VGG16-%s-%s-%s" % (algo, b, gbps), "BAG",
                                 IMG[algo][i] / IMG[b][i], preds[b], gpus=128, batch=32,
                                 comp=comp))
                if gbps == "100G" and b != "AR":
                    rows[-1]["compressed_platform"] = bnet
    rows += [case("BAG-VGG16-ByteGrad-AR-100G-ncclsocket", "BAG", 1.62, 1.58),
             case("BAG-VGG16-QAdam-AR-100G-ncclsocket", "BAG", 1.61, 1.58)]
    for gbps, meas, pred in (("1G", 3.81, 4.15), ("2G", 3.94, 4.07), ("4G", 4.18, 3.92)):
        rows.append(case("BAG-BERTL-ByteGrad-DDP-%s" % gbps, "BAG", meas, pred))
    for algo, meas in (("ByteGrad", (1.45, 1.34, 1.32)), ("QAdam", (1.84, 1.70, 1.67))):
        for b, m, p in zip(("DDP", "Horovod", "BytePS"), meas, (1.83, 1.76, 1.77)):
            rows.append(case("BAG-BERTL-%s-%s-100G" % (algo, b), "BAG", m, p))
    rows += [case("ZPP-18B-1K", "ZPP", 2.21, 2.35), case("ZPP-18B-2K", "ZPP", 1.77, 1.64)]
    return rows


def tcp_rows():
    rows = []
    for name, model, meas, pred in (
            ("MC-R50-fp32", "resnet-50", 0.24, 0.77), ("MC-R101-fp32", "resnet-101", 0.53, 0.93),
            ("DGC-VGG16-8", "vgg", 6.5, 5.98), ("DGC-VGG16-16", "vgg", 4.2, 9.98),
            ("DGC-VGG16-32", "vgg", 7.8, 15.83), ("DGC-VGG16-64", "vgg", 13.5, 30.94),
            ("DGC-R50-8", "r50", 6.8, 6.61), ("DGC-R50-16", "r50", 8.8, 12.21),
            ("DGC-R50-32", "r50", 16.9, 24.16), ("DGC-R50-64", "r50", 29.9, 47.74),
            ("BNET-VGG16-32", "vgg", 2744.9, 2773.9),
            ("BNET-VGG16-32-baguanet", "vgg", 4046.6, 3468.8),
            ("BNET-VGG16-128-AR-ncclsocket", "vgg", 10586, 10363.1),
            ("BAG-VGG16-DDP-100G", "vgg", 8882, 10361.6),
            ("BAG-VGG16-Horovod-100G", "vgg", 9689, 10521.3),
            ("BAG-VGG16-BytePS-100G", "vgg", 8571, 10547.1),
            ("BAG-VGG16-AR-100G", "vgg", 12298, 12819.6)):
        platform = "bagua-v100-100g-%s.json" % (
            "baguanet" if name in ("BNET-VGG16-32-baguanet", "BAG-VGG16-AR-100G") else "tcp")
        rows.append({"case": name, "model": model, "measured": str(meas), "predicted": pred,
                     "error": pred / meas - 1, "platform": platform})
    return rows


def tta_rows():
    def row(name, step, speedup, ratio, warmup=0.0):
        pred = 1.0 / (warmup + (1 - warmup) / ratio)
        return {"case": name, "step_case": step, "speedup": speedup, "ratio": ratio,
                "warmup": warmup, "factor": 1.0, "factor_source": "bound", "predicted": pred}
    return [row("TTA-DS1BA-BERTL-40GbE", "DS1BA-BERTL-40GbE", 3.5, 4.89, 0.15),
            row("TTA-DS1BA-SQuAD-40GbE", "DS1BA-SQuAD-40GbE", 2.7, 5.04, 0.25),
            row("TTA-BPS-VGG16-doc", "BPS-VGG16-32-doc", None, 2.58),
            row("TTA-BAG-VGG16-ByteGrad-DDP", "BAG-VGG16-ByteGrad-DDP-100G", 1.52, 1.66),
            row("TTA-BAG-VGG16-ByteGrad-Horovod", "BAG-VGG16-ByteGrad-Horovod-100G", 1.59, 1.64),
            row("TTA-BAG-BERTL-QAdam-DDP", "BAG-BERTL-QAdam-DDP-100G", 1.58, 1.83, 0.2),
            row("TTA-BAG-BERTL-QAdam-Horovod", "BAG-BERTL-QAdam-Horovod-100G", 1.44, 1.76, 0.2)]


SHARDED = """| id | source | model (params) | GPU | error | measured tok/s/GPU | notes |
|---|---|---|---|---:|---:|---|
| c14a | mosaic | mpt-70b | a100-40g | +48.0% | 276 | |
| c15a | mosaic | mpt-70b | a100-40g | +10.3% | 376 | |
| c16 | torchtitan-h100-202412 | llama3.1-8b | h100 | +17.1% | 5762 | op |
| c17 | torchtitan-h100-202412 | llama3.1-8b | h100 | +1.2% | 6667 | op; torch.compile |
| c18 | torchtitan-h100-202412 | llama3.1-8b | h100 | - | 8532 | fp8 |
| c29a | ibm-pytorch-fsdp-2024 | llama2-13b (13.02B) | a100-80g | +0.7% | 1800 | |
"""
FIT = "/* rows c06a (hidden 4096) 0.4703, c16 (hidden 4096) 0.3701 */"
PEAK = """| id | configuration | policy | published peak | gcsim | error | counted |
|---|---|---|---:|---:|---:|---|
""" + "".join("| %s | x | op | 1 | 1 | %s | %s |\n" % r for r in (
    ("m01", "-12.0%", "yes"), ("m05", "-12.7%", "yes"), ("m02", "-5.8%", "yes"),
    ("m03", "-5.6%", "yes"), ("m06", "-5.7%", "yes"), ("m07", "-5.4%", "yes"),
    ("m11", "+27.8%", "no: loss"), ("m12", "+26.5%", "no: loss")))


def text(fn, *args):
    out = fn(*args)
    return "\n".join(out) if isinstance(out, list) else str(out)


def moves(what, fn, args, edit, before, after):
    """fn(*args) prints `before`; after edit(args) it prints `after` and not `before`."""
    t0 = text(fn, *args)
    check(before in t0, "%s: %r not in the text:\n%s" % (what, before, t0))
    args = copy.deepcopy(args)
    edit(*args)
    t1 = text(fn, *args)
    check(after in t1 and before not in t1, "%s: after the edit %r not in (or %r still in):\n%s"
          % (what, after, before, t1))


def raises(what, fn, args, edit):
    args = copy.deepcopy(args)
    edit(*args)
    try:
        fn(*args)
    except dn.StaleNote:
        return
    check(False, "%s: no StaleNote" % what)


def set_case(rows, name, **values):
    for r in rows:
        if r["case"] == name:
            r.update(values)
            if "predicted" in values and "measured" in r and "error" in r:
                r["error"] = r["predicted"] / float(r["measured"]) - 1
            return
    raise KeyError(name)


def main():
    # helpers, by hand
    check(dn.span([1.444, 1.86, 1.5]) == "1.44-1.86", "span")
    check(dn.span([1.0, 1.001]) == "1.00", "span of one figure")
    check(dn.err_span([-0.07, 0.06]) == "-7% to +6%", "err_span")
    check(dn.direction([2, 3], [1, 2]) == "over", "direction over")
    check(dn.direction([1, 3], [2, 2]) == "mixed", "direction mixed")
    check(dn.described([1.0, 1.02], [1.01, 1.0]).startswith("within -1% to +2%"), "described")

    comp, tcp, tta = compression_rows(), tcp_rows(), tta_rows()
    c_args = [comp, tcp]
    # the DGC VGG-16 range follows its rows; the direction is checked
    moves("DGC range", dn.compression_notes, c_args,
          lambda c, t: set_case(c, "DGC-VGG16-16", stacks=1.50), "1.44-1.86", "1.50-1.86")
    raises("DGC over", dn.compression_notes, c_args,
           lambda c, t: [set_case(c, "DGC-VGG16-%d" % n, stacks=3.5) for n in (16, 32, 64)])
    raises("DGC baseline not too fast", dn.compression_notes, c_args,
           lambda c, t: set_case(t, "DGC-VGG16-16", predicted=4.0))
    raises("DGC one machine under", dn.compression_notes, c_args,
           lambda c, t: set_case(c, "DGC-VGG16-8", stacks=0.5))
    moves("MergeComp fp32 scaling", dn.compression_notes, c_args,
          lambda c, t: set_case(t, "MC-R50-fp32", predicted=0.96), "predicts 77% and 93%",
          "predicts 96% and 93%")
    raises("MergeComp fp16 over", dn.compression_notes, c_args,
           lambda c, t: set_case(c, "MC-R50-fp16", stacks=1.70))
    moves("CGX error", dn.compression_notes, c_args,
          lambda c, t: set_case(c, "CGX-BERT-8", stacks=3.0), "+88% to +94%", "+32% to +94%")
    moves("EGO", dn.compression_notes, c_args,
          lambda c, t: set_case(c, "EGO-667", stacks=1.40), "1.62 predicted", "1.40 predicted")
    raises("EGO no gain", dn.compression_notes, c_args,
           lambda c, t: set_case(c, "EGO-667", stacks=0.99))

    i_args = [comp]
    moves("ZPP", dn.issue43_intro_figures, i_args,
          lambda c: set_case(c, "ZPP-18B-2K", stacks=1.59), "-7% to +6%", "-10% to +6%")
    moves("DS1BA word", dn.issue43_notes, i_args,
          lambda c: [set_case(c, n, stacks=7.0) for n in ("DS1BA-BERTL-40GbE",
                                                          "DS1BA-SQuAD-40GbE")],
          "on 40 GbE (BERT-Large, SQuAD) under-predicted", "over-predicted (7.00 against")
    moves("BAG BERT ByteGrad word", dn.issue43_notes, i_args,
          lambda c: [set_case(c, "BAG-BERTL-%s-%s-100G" % (a, b), stacks=1.0)
                     for a in ("ByteGrad", "QAdam") for b in ("DDP", "Horovod")],
          "ByteGrad's are over-predicted",
          "ByteGrad's are under-predicted")
    moves("BAG signs", dn.issue43_notes, i_args,
          lambda c: [set_case(c, "BAG-BERTL-%s-DDP-100G" % a, stacks=0.93)
                     for a in ("ByteGrad", "QAdam")],
          "Signs: every sign agrees", "BAG-BERTL-ByteGrad-DDP-100G (0.93 against 1.45)")
    moves("BAG one transport", dn.issue43_notes, i_args,
          lambda c: set_case(c, "BAG-VGG16-ByteGrad-AR-100G-ncclsocket", stacks=1.70),
          "are under-predicted (1.58 against 1.61-1.62)", "are within -2% to +5% (1.58-1.70")
    raises("BAG VGG16 100G without Bagua-Net", dn.issue43_notes, i_args,
           lambda c: c.__setitem__(next(i for i, r in enumerate(c)
                                        if r["case"] == "BAG-VGG16-ByteGrad-DDP-100G"),
                                   dict(next(r for r in c if r["case"] ==
                                             "BAG-VGG16-ByteGrad-DDP-100G"),
                                        compressed_platform="-")))
    raises("BAG 100G baselines not too fast", dn.issue43_notes, i_args,
           lambda c: [set_case(c, "BAG-VGG16-%s-%s-100G" % (a, b),
                               stacks_base_samples_per_s=5000.0)
                      for a in ("ByteGrad", "QAdam") for b in ("DDP", "Horovod", "BytePS")])
    raises("BytePS VGG under", dn.issue43_notes, i_args,
           lambda c: [set_case(c, "BPS-VGG16-32-%s" % d, stacks=1.2) for d in ("doc", "readme")])
    raises("BAG measured figures", dn.issue43_notes, i_args,
           lambda c: set_case(c, "BAG-VGG16-QAdam-DDP-10G", measured=4.5))
    raises("QAdam not ByteGrad's ratio", dn.issue43_notes, i_args,
           lambda c: set_case(c, "BAG-VGG16-QAdam-DDP-10G", stacks=3.5))

    moves("TCP VGG", dn.tcp_notes, [tcp],
          lambda t: set_case(t, "DGC-VGG16-16", predicted=7.9), "predicts 9.98 at 16", "7.90")
    moves("TCP R50 word", dn.tcp_notes, [tcp],
          lambda t: set_case(t, "DGC-R50-64", predicted=20.0), "too fast as well, by less",
          "is off (")
    moves("TCP BNET figures", dn.tcp_notes, [tcp],
          lambda t: set_case(t, "BNET-VGG16-32-baguanet", predicted=4500.0,
                             error=4500.0 / 4046.6 - 1),
          "at -14% on 4 x 8 GPUs (3469 img/s against 4047)",
          "at +11% on 4 x 8 GPUs (4500 img/s against 4047)")
    moves("TCP BAG 100G word", dn.tcp_notes, [tcp],
          lambda t: set_case(t, "BAG-VGG16-DDP-100G", predicted=8000.0, error=8000.0 / 8882 - 1),
          "come out too fast (10362-10547 img/s against 8571-9689, +9% to +23%)",
          "come out off both ways (8000-10547 img/s against 8571-9689, -10% to +23%)")
    raises("TCP Bagua-Net row off its platform", dn.tcp_notes, [tcp],
           lambda t: set_case(t, "BAG-VGG16-AR-100G", platform="bagua-v100-100g-tcp.json"))
    raises("TCP VGG not too fast", dn.tcp_notes, [tcp],
           lambda t: set_case(t, "DGC-VGG16-32", predicted=7.0))

    t_args = [tta, comp]
    moves("TTA DS1BA", dn.tta_notes, t_args,
          lambda t, c: set_case(c, "DS1BA-BERTL-40GbE", measured=5.0), "(-26%, -19%)",
          "(-2%, -19%)")
    moves("TTA Bagua word", dn.tta_notes, t_args,
          lambda t, c: set_case(c, "BAG-VGG16-ByteGrad-DDP-100G", stacks=2.6),
          "(-16% to -10%, too low)", "(-10% to +6%, mixed)")

    base = text(dn.sharded_notes, SHARDED, FIT)
    check("(c14a, +48%)" in base and "c16 0.37 against c06a 0.47" in base, "sharded figures")
    check("(c14a, +30%)" in text(dn.sharded_notes, SHARDED.replace("+48.0%", "+30.0%"), FIT),
          "sharded: the c14a error follows its row")
    check("c16 0.41 against" in text(dn.sharded_notes, SHARDED, FIT.replace("0.3701", "0.4101")),
          "sharded: the efficiency follows the fit header")
    raises("sharded row missing", dn.sharded_notes, [SHARDED.replace("c15a", "c99"), FIT],
           lambda s, f: None)
    raises("peak eager above compiled", dn.peak_memory_notes, [PEAK.replace("-12.0%", "-3.0%")],
           lambda p: None)
    check("-13% to -12%" in text(dn.peak_memory_notes, PEAK), "peak eager span")
    check("m12, +26% to +28%" in text(dn.peak_memory_notes, PEAK), "peak Trainy span")
    print("test_doc_notes: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
