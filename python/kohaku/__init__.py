"""kohaku: the KohakuAccel / KohakuTPU simulator from Python.

A thin ctypes layer over libkohaku's stable C API (include/kohaku/api.h); no
compiled extension, no dependency beyond the standard library.

    import kohaku
    m = kohaku.Machine()                      # the built-in default machine
    t = kohaku.SimTransport(m)                # upstream's transport surface
    t.read64(0x80_0010)                       # the node's CAPS
    m.cycles, m.idle(), m.stats()

The library is found through $KOHAKU_LIB, then build/libkohaku.so of the
checkout this package sits in, then the system's library path.
"""

import ctypes
import ctypes.util
import json
import operator
import os
import warnings

__all__ = ["Machine", "SimTransport", "KohakuError", "StuckError", "DiagnosticError", "DiagnosticWarning",
           "api_version"]

WORD_BYTES = 8
MASK64 = (1 << 64) - 1

# kh_status (api.h)
_E_ALIGN, _E_PARTIAL, _E_STUCK = 3, 4, 7


def _uint(what, value, bits=64):
    """value as an int in [0, 2**bits), else TypeError / ValueError naming
    it: ctypes would wrap -8 to 2**64 - 8 and 2**64 + a to a silently."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__} {value!r}") from None
    if not 0 <= v < (1 << bits):
        raise ValueError(f"{what} {v:#x} is outside 0 .. 2**{bits} - 1")
    return v


def _find_library():
    env = os.environ.get("KOHAKU_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    local = os.path.join(here, "..", "..", "build", "libkohaku.so")
    if os.path.exists(local):
        return local
    found = ctypes.util.find_library("kohaku")
    if found:
        return found
    raise OSError("libkohaku.so not found: build it with `make`, or set KOHAKU_LIB to its path")


def _load():
    lib = ctypes.CDLL(_find_library())
    u64, p = ctypes.c_uint64, ctypes.c_void_p
    sigs = {
        "kh_api_version": (ctypes.c_uint, []),
        "kh_status_name": (ctypes.c_char_p, [ctypes.c_int]),
        "kh_dev_open": (ctypes.c_int, [ctypes.POINTER(p), ctypes.c_char_p, ctypes.c_char_p,
                                       ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t,
                                       ctypes.c_char_p, ctypes.c_size_t]),
        "kh_dev_close": (None, [p]),
        "kh_dev_message": (ctypes.c_char_p, [p]),
        "kh_dev_write64": (ctypes.c_int, [p, u64, u64]),
        "kh_dev_read64": (ctypes.c_int, [p, u64, ctypes.POINTER(u64)]),
        "kh_dev_write_block": (ctypes.c_int, [p, u64, ctypes.c_char_p, ctypes.c_size_t]),
        "kh_dev_read_block": (ctypes.c_int, [p, u64, ctypes.c_char_p, ctypes.c_size_t]),
        "kh_dev_set_stuck_reads": (ctypes.c_int, [p, ctypes.c_uint]),
        "kh_dev_set_engine": (ctypes.c_int, [p, ctypes.c_char_p]),
        "kh_dev_save": (ctypes.c_int, [p, ctypes.c_char_p]),
        "kh_dev_restore": (ctypes.c_int, [ctypes.POINTER(p), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
        "kh_dev_run": (ctypes.c_int, [p, u64]),
        "kh_dev_idle": (ctypes.c_int, [p, u64]),
        "kh_dev_cycles": (u64, [p]),
        "kh_dev_accesses": (u64, [p]),
        "kh_dev_trace": (ctypes.c_int, [p, ctypes.c_char_p]),
        "kh_dev_stats": (ctypes.c_int, [p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]),
        "kh_dev_diagnose": (ctypes.c_int, [p, ctypes.c_char_p, ctypes.c_size_t]),
        "kh_dev_dram_read": (ctypes.c_int, [p, ctypes.c_uint, u64, ctypes.c_char_p, ctypes.c_size_t]),
        "kh_dev_dram_write": (ctypes.c_int, [p, ctypes.c_uint, u64, ctypes.c_char_p, ctypes.c_size_t]),
        "kh_dev_meshes": (ctypes.c_uint, [p]),
        "kh_dev_param": (ctypes.c_int, [p, ctypes.c_char_p, ctypes.POINTER(u64)]),
        "kh_dev_diag_count": (ctypes.c_uint, [p]),
        "kh_dev_diag": (ctypes.c_int, [p, ctypes.c_uint, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(u64),
                                       ctypes.POINTER(ctypes.c_char_p)]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    return lib


_lib = None


def _api():
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


def api_version():
    """The library's API version as (major, minor)."""
    v = _api().kh_api_version()
    return v >> 16, v & 0xFFFF


class KohakuError(RuntimeError):
    """The simulator refused an operation; `status` is the kh_status name."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class StuckError(KohakuError, TimeoutError):
    """A read was repeated with nothing pending in the machine: the value can
    never change, so a polling loop would spin until its timeout. A
    TimeoutError, so a driver that handles a poll timeout handles this too."""


class DiagnosticWarning(UserWarning):
    """The machine's results carry the signature of a known mistake
    (docs/diagnostics.md), e.g. upstream's published compiler on a machine
    without its read-path quantiser: the message says what to do. Raised
    through `warnings.warn` once per diagnostic and machine, so the usual
    filters apply (`warnings.simplefilter("error", DiagnosticWarning)`)."""

    def __init__(self, message, name="", count=1):
        super().__init__(message)
        self.name, self.count = name, count


class DiagnosticError(KohakuError):
    """A diagnostic under strict mode (the machine parameter strict = 1):
    raised by the call that first saw it instead of a warning."""

    def __init__(self, name, message):
        super().__init__("KH_DIAGNOSTIC", message)
        self.name = name


class Machine:
    """One simulated machine.

    machine: a map picture, a machine file, or "default". profile: a
    parameter profile (`kohaku params --profile`): "host-zero" for
    zero-time host accesses, the rec-* recording profiles, or a software
    stack's, "upstream-7703ee8" for upstream's published compiler and
    driver. params: {name: value} machine parameters (`kohaku params` lists
    them), applied last. A diagnostic of the run (docs/diagnostics.md) is a
    DiagnosticWarning, or a DiagnosticError with params {"strict": 1}.
    engine: "fast" (the event engine, the default) or "cycle" (the per-cycle
    reference); every result is the same.
    """

    def __init__(self, machine="default", profile=None, params=None, engine=None):
        self._h = None  # a failed open leaves nothing for __del__ to close
        lib = _api()
        items = [f"{k}={v}".encode() for k, v in (params or {}).items()]
        arr = (ctypes.c_char_p * max(1, len(items)))(*items)
        err = ctypes.create_string_buffer(4096)
        h = ctypes.c_void_p()
        rc = lib.kh_dev_open(ctypes.byref(h), str(machine).encode(),
                             profile.encode() if profile else None, arr, len(items), err, len(err))
        if rc:
            raise KohakuError(lib.kh_status_name(rc).decode(), err.value.decode(errors="replace"))
        self._h = h
        self.machine, self.profile, self.params = machine, profile, dict(params or {})
        if engine is not None:
            self._check(lib.kh_dev_set_engine(h, str(engine).encode()))
        self.engine = engine or "fast"
        self._diag_seen, self.strict = 0, False
        self.strict = bool(self.param("strict"))

    def save(self, path):
        """Save the whole machine to a checkpoint file (docs/checkpoint.md).
        A machine with a part checkpoints do not cover yet is refused
        (KohakuError naming it) and nothing is written."""
        self._check(_api().kh_dev_save(self._handle(), os.fsencode(path)))

    @classmethod
    def restore(cls, path, engine=None):
        """The machine a checkpoint holds, at the cycle it was saved. A
        refused file (another format version or parameter set, truncated,
        corrupted) raises KohakuError naming what differs or where."""
        lib = _api()
        err = ctypes.create_string_buffer(4096)
        h = ctypes.c_void_p()
        rc = lib.kh_dev_restore(ctypes.byref(h), os.fsencode(path), err, len(err))
        if rc:
            raise KohakuError(lib.kh_status_name(rc).decode(), err.value.decode(errors="replace"))
        self = cls.__new__(cls)
        self._h = h
        self.machine, self.profile, self.params = str(path), None, {}
        if engine is not None:
            self._check(lib.kh_dev_set_engine(h, str(engine).encode()))
        self.engine = engine or "fast"
        self.strict = False
        self._diag_seen = lib.kh_dev_diag_count(h)  # raised before the save: already shown
        self.strict = bool(self.param("strict"))
        return self

    def param(self, name):
        """The machine parameter `name` as built (profile and params applied)."""
        v = ctypes.c_uint64()
        self._check(_api().kh_dev_param(self._handle(), str(name).encode(), ctypes.byref(v)))
        return v.value

    # -- plumbing
    def _check(self, rc):
        if rc == 0:
            self._news()
            return
        lib = _api()
        msg = lib.kh_dev_message(self._h).decode(errors="replace")
        status = lib.kh_status_name(rc).decode()
        if rc in (_E_ALIGN, _E_PARTIAL):
            raise ValueError(msg)
        if rc == _E_STUCK:
            raise StuckError(status, msg)
        raise KohakuError(status, msg)

    def _news(self):
        """A diagnostic raised since the last call: warn once (or raise)."""
        lib, h = _api(), self._h
        if h is None or lib.kh_dev_diag_count(h) <= self._diag_seen:
            return
        while self._diag_seen < lib.kh_dev_diag_count(h):
            d = self._diag(self._diag_seen)
            self._diag_seen += 1
            if self.strict:
                raise DiagnosticError(d["name"], d["message"])
            warnings.warn(DiagnosticWarning(f"kohaku: {d['message']}", d["name"], d["count"]), stacklevel=4)

    def _diag(self, i):
        name, msg, count = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_uint64()
        rc = _api().kh_dev_diag(self._h, i, ctypes.byref(name), ctypes.byref(count), ctypes.byref(msg))
        if rc:
            raise KohakuError(_api().kh_status_name(rc).decode(), _api().kh_dev_message(self._h).decode())
        return {"name": name.value.decode(), "count": count.value, "message": msg.value.decode(errors="replace")}

    def diagnostics(self):
        """Every diagnostic so far (docs/diagnostics.md): a list of
        {"name", "count", "message"}, in the order first raised."""
        h = self._handle()
        return [self._diag(i) for i in range(_api().kh_dev_diag_count(h))]

    def _handle(self):
        if self._h is None:
            raise KohakuError("KH_E_ARG", "the machine is closed")
        return self._h

    # -- the machine
    @property
    def cycles(self):
        """Simulated cycles since the machine was built."""
        return _api().kh_dev_cycles(self._handle())

    @property
    def accesses(self):
        """Host accesses so far (a word, or a block)."""
        return _api().kh_dev_accesses(self._handle())

    @property
    def meshes(self):
        return _api().kh_dev_meshes(self._handle())

    def run(self, n):
        """Advance n cycles with no host traffic."""
        self._check(_api().kh_dev_run(self._handle(), _uint("run: cycle count", n)))

    def idle(self, limit=10_000_000):
        """Run until nothing is pending; KohakuError (with the machine's
        diagnosis) if it is still busy after `limit` cycles."""
        self._check(_api().kh_dev_idle(self._handle(), _uint("idle: limit", limit)))

    def trace(self, path):
        """Write a Perfetto / Chrome trace of what follows to `path` (None:
        finish the trace)."""
        self._check(_api().kh_dev_trace(self._handle(), str(path).encode() if path is not None else None))

    def stats(self):
        """Every component's and link's counters, as a dict (--stats)."""
        lib, h = _api(), self._handle()
        need = ctypes.c_size_t()
        self._check(lib.kh_dev_stats(h, None, 0, ctypes.byref(need)))
        buf = ctypes.create_string_buffer(need.value + 1)
        self._check(lib.kh_dev_stats(h, buf, len(buf), None))
        return json.loads(buf.value.decode())

    def diagnose(self):
        """Why the machine is not progressing ("" when nothing is pending)."""
        buf = ctypes.create_string_buffer(16384)
        self._check(_api().kh_dev_diagnose(self._handle(), buf, len(buf)))
        return buf.value.decode(errors="replace")

    def dram_read(self, mesh, offset, nbytes):
        """Mesh `mesh`'s DRAM at byte `offset`, no host time (a backdoor)."""
        mesh, offset = _uint("dram_read: mesh", mesh, 32), _uint("dram_read: offset", offset)
        nbytes = _uint("dram_read: nbytes", nbytes, 40)
        buf = ctypes.create_string_buffer(nbytes)
        self._check(_api().kh_dev_dram_read(self._handle(), mesh, offset, buf, nbytes))
        return buf.raw

    def dram_write(self, mesh, offset, data):
        mesh, offset, data = _uint("dram_write: mesh", mesh, 32), _uint("dram_write: offset", offset), bytes(data)
        self._check(_api().kh_dev_dram_write(self._handle(), mesh, offset, data, len(data)))

    def close(self):
        if self._h is not None:
            _api().kh_dev_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 -- interpreter shutdown
            pass

    def __repr__(self):
        if self._h is None:
            return f"kohaku.Machine({self.machine!r}, closed)"
        return f"kohaku.Machine({self.machine!r}, cycle {self.cycles})"


class SimTransport:
    """Upstream's transport surface over a Machine: write64, read64,
    write_block, read_block (the same run of word accesses, little-endian),
    bulk = True. ValueError for an unaligned address or a partial word; every
    access costs the host link's simulated time (docs/host-link.md); a read
    that can never change raises StuckError (after `stuck_reads` identical
    reads with nothing pending; 0 never)."""

    bulk = True

    def __init__(self, machine, stuck_reads=8):
        self.machine = machine
        machine._check(_api().kh_dev_set_stuck_reads(machine._handle(), _uint("stuck_reads", stuck_reads, 32)))

    @staticmethod
    def _aligned(addr):
        addr = _uint("host address", addr)
        if addr % WORD_BYTES:
            raise ValueError(f"host address {addr:#x} is not 8-byte aligned: the host moves 64-bit words")
        return addr

    @staticmethod
    def _words(nbytes):
        nbytes = _uint("block size", nbytes, 40)
        if nbytes % WORD_BYTES:
            raise ValueError(f"a block of {nbytes} bytes is not made of whole 64-bit words")
        return nbytes

    def write64(self, addr, data):
        addr = self._aligned(addr)
        data = operator.index(data)
        if not -(1 << 63) <= data < (1 << 64):
            raise ValueError(f"write64 at {addr:#x}: data {data:#x} does not fit in 64 bits")
        m = self.machine
        m._check(_api().kh_dev_write64(m._handle(), addr, data & MASK64))

    def read64(self, addr):
        addr = self._aligned(addr)
        m = self.machine
        v = ctypes.c_uint64()
        m._check(_api().kh_dev_read64(m._handle(), addr, ctypes.byref(v)))
        return v.value

    def write_block(self, addr, data):
        addr = self._aligned(addr)
        data = bytes(data)
        self._words(len(data))
        if not data:
            return
        m = self.machine
        m._check(_api().kh_dev_write_block(m._handle(), addr, data, len(data)))

    def read_block(self, addr, nbytes):
        addr = self._aligned(addr)
        nbytes = self._words(nbytes)
        if not nbytes:
            return b""
        m = self.machine
        buf = ctypes.create_string_buffer(nbytes)
        m._check(_api().kh_dev_read_block(m._handle(), addr, buf, nbytes))
        return buf.raw

    def __repr__(self):
        return f"kohaku.SimTransport({self.machine!r})"
