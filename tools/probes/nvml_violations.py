"""NVML's violation times (nvmlDeviceGetViolationStatus) of GPU 0 for every policy, read before
and after 3 s idle and before and after a command: which counters grow, and by how much."""
import ctypes, subprocess, sys, time
from pathlib import Path

if len(sys.argv) < 4 or sys.argv[2] != "--":
    print("nvml_violations.py: usage: nvml_violations.py OUT.txt -- COMMAND [ARG...]",
          file=sys.stderr)
    sys.exit(2)
out, cmd = sys.argv[1], sys.argv[3:]
try:
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
except OSError as error:
    sys.exit(f"nvml_violations.py: no NVIDIA driver: {error}")
dev = ctypes.c_void_p()
if nvml.nvmlInit_v2() != 0 or nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) != 0:
    sys.exit("nvml_violations.py: NVML finds no GPU 0")

class Violation(ctypes.Structure):
    _fields_ = [("referenceTime", ctypes.c_ulonglong), ("violationTime", ctypes.c_ulonglong)]

def read():
    got = {}
    for policy in range(12):
        v = Violation()
        rc = nvml.nvmlDeviceGetViolationStatus(dev, policy, ctypes.byref(v))
        got[policy] = v.violationTime if rc == 0 else f"rc={rc}"
    return got

def grew(a, b):
    return {p: (b[p] - a[p] if isinstance(a[p], int) and isinstance(b[p], int) else b[p])
            for p in a}

lines = []
a = read(); time.sleep(3); b = read()
lines.append(f"idle 3 s, growth in ns per policy: {grew(a, b)}")
t = time.time(); a = read(); subprocess.run(cmd, check=False); b = read()
lines.append(f"{' '.join(cmd)} ({time.time() - t:.1f} s), growth in ns per policy: {grew(a, b)}")
lines.append(f"absolute after: {b}")
try:
    Path(out).write_text("\n".join(lines) + "\n")
except OSError as error:
    sys.exit(f"nvml_violations.py: {out}: {error.strerror}")
