"""What host setup of 4 GiB costs beside a GPU: pinning, first touch, uploads (one process)."""
import ctypes, sys, time
try:
    import numpy as np
except ImportError:
    print(f"saxpy_setup_probe.py: numpy is not installed for {sys.executable} "
          "(python3 -m pip install -r scripts/requirements.txt)", file=sys.stderr)
    sys.exit(2)
if len(sys.argv) > 1:
    print("saxpy_setup_probe.py: takes no arguments", file=sys.stderr)
    sys.exit(2)
try:
    cu = ctypes.CDLL("libcuda.so.1")
except OSError as error:
    sys.exit(f"saxpy_setup_probe.py: no NVIDIA driver: {error}")
def ck(r, what):
    if r != 0: raise SystemExit(f"saxpy_setup_probe.py: {what} failed: CUresult {r}")
ck(cu.cuInit(0), "init"); dev = ctypes.c_int(); ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "dev")
ctx = ctypes.c_void_p()
ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
ck(cu.cuCtxSetCurrent(ctx), "cur")
G = 1 << 32
def t(label, f):
    s = time.perf_counter()
    r = f()
    print(f"{label:40s} {time.perf_counter() - s:6.2f} s", flush=True)
    return r
p = ctypes.c_void_p()
t("cuMemHostAlloc 4 GiB",
  lambda: ck(cu.cuMemHostAlloc(ctypes.byref(p), ctypes.c_size_t(G), 0), "hostalloc"))
d = ctypes.c_uint64()
t("cuMemAlloc 4 GiB", lambda: ck(cu.cuMemAlloc_v2(ctypes.byref(d), ctypes.c_size_t(G)), "alloc"))
a = np.frombuffer((ctypes.c_char * G).from_address(p.value), dtype=np.float32)
t("write pinned 4 GiB (numpy, 1 thread)", lambda: a.fill(1.0))
t("cuMemcpyHtoD 4 GiB from pinned",
  lambda: (ck(cu.cuMemcpyHtoD_v2(d, p, ctypes.c_size_t(G)), "h2d"),
           ck(cu.cuCtxSynchronize(), "sync")))
v = t("np.ones 4 GiB (pageable, first touch, 1 thread)", lambda: np.ones(G // 4, dtype=np.float32))
t("cuMemcpyHtoD 4 GiB from pageable",
  lambda: (ck(cu.cuMemcpyHtoD_v2(d, ctypes.c_void_p(v.ctypes.data), ctypes.c_size_t(G)), "h2d"),
           ck(cu.cuCtxSynchronize(), "sync")))
t("cuMemFreeHost 4 GiB", lambda: ck(cu.cuMemFreeHost(p), "freehost"))
