#!/usr/bin/env python3
"""Side by side: gpubench's latency/chase figures against gpu-benches' gpu-latency (device) and
nvbandwidth's host_device_latency_sm / device_to_device_latency_sm (host_pinned, peer).

Usage: compare_latency.py GPUBENCH.json [--gpu-latency TXT] [--nvbandwidth JSON ...]

gpubench: the median over repetitions of ns_per_load per benchmark. gpu-latency: each line
"iters clock_MHz KiB ms cycles" is ns per load = ms * 1e6 / iters at KiB * 1024 bytes (its
chase: 64-byte stride, times from the host around 1M+ loads, min of 7). nvbandwidth: its matrix
in ns (host: row 0, column = GPU; device_to_device: row = GPU that chases, column = memory's
GPU; gpubench's peer/<s>to<d> is s's memory chased by d, so it reads row d, column s).
Plateaus: each tool's median over the sizes in a band (L1: 8-64 KiB, L2 near: 1-8 MiB,
HBM: 128-256 MiB, past the L2 and within what the coarse gpu-latency build reaches).
"""
import argparse
import json
import math
import statistics
import sys
from collections import defaultdict

BANDS = {"L1 (8-64 KiB)": (8 << 10, 64 << 10), "L2 near (1-8 MiB)": (1 << 20, 8 << 20),
         "HBM (128-256 MiB)": (128 << 20, 256 << 20)}


def gpubench_ns(path):
    values = defaultdict(list)
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration" and "ns_per_load" in b:
            values[b["name"].removesuffix("/manual_time")].append(b["ns_per_load"])
    return {name: statistics.median(v) for name, v in values.items()}


def gpu_latency_points(path):
    points = []
    for line in open(path):
        fields = line.split()
        if len(fields) == 5:
            try:
                iters, _, kib, ms, _ = map(float, fields)
            except ValueError:
                continue
            points.append((int(kib * 1024), ms * 1e6 / iters))
    return points


def nvbandwidth_matrices(paths):
    found = {}
    for path in paths:
        for case in json.load(open(path))["nvbandwidth"]["testcases"]:
            if "bandwidth_matrix" in case:
                found[case["name"]] = [[float(v) if v not in ("N/A", "") else None for v in row]
                                       for row in case["bandwidth_matrix"]]
    return found


def pct(a, b):
    return f"{100 * (a / b - 1):+.1f}%"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gpubench")
    parser.add_argument("--gpu-latency")
    parser.add_argument("--nvbandwidth", nargs="*", default=[])
    args = parser.parse_args()
    ours = gpubench_ns(args.gpubench)
    device = {int(n.split("/")[3]): ns for n, ns in ours.items()
              if n.startswith("latency/chase/device/") and "/device:" not in n}
    if args.gpu_latency and device:
        theirs = gpu_latency_points(args.gpu_latency)
        print("device: gpubench vs gpu-latency (nearest size), ns per load")
        for size, ns in sorted(device.items()):
            near = min(theirs, key=lambda p: abs(math.log(p[0] / size)))
            print(f"  {size >> 10:>8} KiB  gpubench {ns:8.1f}  gpu-latency {near[1]:8.1f} "
                  f"at {near[0] >> 10} KiB  {pct(ns, near[1])}")
        print("plateaus (median over the band):")
        for band, (lo, hi) in BANDS.items():
            a = [ns for s, ns in device.items() if lo <= s <= hi]
            b = [ns for s, ns in theirs if lo <= s <= hi]
            if a and b:
                ma, mb = statistics.median(a), statistics.median(b)
                verdict = "within 10%" if abs(ma / mb - 1) <= 0.10 else "OUTSIDE 10%"
                print(f"  {band:<20} gpubench {ma:8.1f} ({len(a)} sizes)  gpu-latency {mb:8.1f} "
                      f"({len(b)} sizes)  {pct(ma, mb)}  {verdict}")
    matrices = nvbandwidth_matrices(args.nvbandwidth)
    for name, ns in sorted(ours.items()):
        parts = name.split("/")
        if parts[2] == "host_pinned" and "host_device_latency_sm" in matrices:
            gpu = int(parts[-1].split(":")[1]) if parts[-1].startswith("device:") else 0
            ref = matrices["host_device_latency_sm"][0][gpu]
        elif parts[2] == "peer" and "device_to_device_latency_sm" in matrices:
            s, d = map(int, parts[3].split("to"))
            ref = matrices["device_to_device_latency_sm"][d][s]
        else:
            continue
        if ref:
            verdict = "within 10%" if abs(ns / ref - 1) <= 0.10 else "OUTSIDE 10%"
            print(f"{name:<40} gpubench {ns:8.1f}  nvbandwidth {ref:8.1f}  {pct(ns, ref)}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
