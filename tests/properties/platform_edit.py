"""Copies of a catalog platform with one quantity scaled (NIC bandwidth, intra-node
bandwidth, a latency), written to a temporary folder for the monotonicity property.

Quantities are strings with a unit ("25Gbps", "10us"); the copy keeps the unit and scales
the number. Paths inside the platform (gpu.codec_profile, a stack file) are made absolute,
since the copy lives elsewhere."""
import json
import os
import re

# What each knob scales: (section, key) pairs, those the platform has.
KNOBS = {
    "nic_bandwidth": [("nic", "bandwidth")],
    "intra_bandwidth": [("intra_node", "gpu_to_gpu"), ("intra_node", "link_bandwidth"),
                        ("intra_node", "nvls_bandwidth")],
    "host_bandwidth": [("intra_node", "gpu_to_host")],
    "nic_latency": [("nic", "latency")],
    "intra_latency": [("intra_node", "latency")],
    "switch_latency": [("fabric", "switch_latency")],
}
# A bandwidth knob raised, or a latency knob lowered, must never lower the throughput.
FASTER_WHEN_RAISED = {k: k.endswith("bandwidth") for k in KNOBS}


def _scale(text, factor):
    m = re.fullmatch(r"\s*([0-9.]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z/]+)\s*", text)
    if not m:
        raise ValueError("cannot scale %r" % text)
    return "%.17g%s" % (float(m.group(1)) * factor, m.group(2))


def write_copy(source_dir, platform, knob, factor, out_dir):
    """The path of platform (a catalog name) with knob scaled by factor (1: the unchanged
    copy the others are compared with); None when the platform has nothing to scale."""
    src = os.path.join(source_dir, "platforms", platform + ".json")
    with open(src) as f:
        d = json.load(f)
    touched = False
    for section, key in KNOBS[knob]:
        if key in d.get(section, {}):
            d[section][key] = _scale(d[section][key], factor)
            touched = True
    if not touched:
        return None
    gpu = d.get("gpu", {})
    if isinstance(gpu.get("codec_profile"), str) and not os.path.isabs(gpu["codec_profile"]):
        gpu["codec_profile"] = os.path.join(os.path.dirname(src), gpu["codec_profile"])
    if isinstance(d.get("stack"), str) and d["stack"].endswith(".json") and \
            not os.path.isabs(d["stack"]):
        d["stack"] = os.path.join(os.path.dirname(src), d["stack"])
    path = os.path.join(out_dir, "%s-%s-x%.6g.json" % (platform, knob, factor))
    with open(path, "w") as f:
        json.dump(d, f, indent=1)
    return path


def platform_stack(source_dir, platform):
    """The platform's own "stack" key (None when it names none)."""
    with open(os.path.join(source_dir, "platforms", platform + ".json")) as f:
        return json.load(f).get("stack")
