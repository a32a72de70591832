#!/usr/bin/env python3
"""Kite VM runner: boots Debian guests under QEMU (TCG) with Kite cards and
peer NICs, talks to a guest agent over a serial port, and builds topologies.

Library use (see tools/vm/README.md):

    import sys; sys.path.insert(0, "tools/vm"); import kitevm
    with kitevm.b2b(kernel="6.1", payload="build/payload") as topo:
        vm = topo.vms[0]
        rc, out, err = vm.run("ip -br link", timeout=30)

CLI:
    kitevm.py build [--kernel 6.1]                    fetch kernel, build rootfs/initramfs
    kitevm.py run --topology b2b|pair|single [--kernel 6.1] [--payload DIR] -- CMD
    kitevm.py shell --topology ...                    line-by-line shell on the guests
"""
import argparse
import atexit
import base64
import dataclasses
import hashlib
import itertools
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CACHE = os.environ.get("KITE_CACHE", "/var/cache/kite")
DEFAULT_CARD = os.path.join(REPO, "build", "model", "libkite_model.so")
DEFAULT_FABRIC = os.path.join(REPO, "build", "fabric", "kite-fabric")
FALLBACK_DATADIRS = ["/usr/share/seabios", "/usr/share/qemu", "/usr/lib/ipxe/qemu"]
INITRAMFS_MODULES = ["virtio_pci", "virtio_blk", "crc32c_generic", "ext4"]
BUSYBOX_APPLETS = ["sh", "mount", "umount", "mkdir", "insmod", "switch_root", "cp", "sleep",
                   "cat", "echo", "ls", "poweroff", "tr", "mknod", "ln", "dmesg"]


class VMError(RuntimeError):
    """The VM died, hung or could not start. The message ends with its console tail."""


class CommandError(RuntimeError):
    """A command run with check=True returned non-zero."""

    def __init__(self, vm, cmd, rc, out, err):
        self.vm, self.cmd, self.rc, self.out, self.err = vm, cmd, rc, out, err
        super().__init__("%s: command failed (rc=%s): %s\n--- stdout\n%s--- stderr\n%s"
                         % (vm, rc, cmd, out[-4000:], err[-4000:]))


def log(msg):
    print("[kitevm] %s" % msg, file=sys.stderr, flush=True)


def _sh(argv, **kw):
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, text=True, **kw).stdout


# --------------------------------------------------------------------------- images

_kernel_cache = {}


def kernel(series="6.1"):
    """Fetches (once) and describes a guest kernel: dict with KVER, PKGVER, DIR,
    VMLINUZ, MODULES, MODIMG, KDIR (see tools/vm/kernel.sh)."""
    if series not in _kernel_cache:
        out = _sh([os.path.join(HERE, "kernel.sh"), series, "--print-env"])
        _kernel_cache[series] = dict(line.split("=", 1) for line in out.split())
    return _kernel_cache[series]


def rootfs():
    """Builds (once) and returns the path of the shared guest root image."""
    return _sh([os.path.join(HERE, "rootfs.sh")]).strip().splitlines()[-1]


def _file_hash(h, path):
    with open(path, "rb") as f:
        h.update(f.read())


def base_initramfs(series="6.1"):
    """The per-kernel initramfs (busybox, root-disk modules, init, agent), cached
    under $KITE_CACHE/initramfs/ keyed by its inputs."""
    k = kernel(series)
    kver, root = k["KVER"], os.path.join(k["DIR"], "root")
    busybox = shutil.which("busybox") or "/bin/busybox"
    guest = os.path.join(HERE, "guest")
    h = hashlib.sha256()
    h.update(("%s|%s|%s|v2" % (k["DIR"], INITRAMFS_MODULES, BUSYBOX_APPLETS)).encode())
    for p in (busybox, os.path.join(guest, "initramfs-init"), os.path.join(guest, "kite-init.py")):
        _file_hash(h, p)
    out = os.path.join(CACHE, "initramfs", "%s-%s.cpio.gz" % (kver, h.hexdigest()[:16]))
    if os.path.exists(out):
        return out
    log("building initramfs for %s" % kver)
    # module files in load order, deduplicated (modprobe resolves the deps)
    mods = []
    for m in INITRAMFS_MODULES:
        dep = _sh(["modprobe", "-S", kver, "-d", root, "--show-depends", m])
        for line in dep.splitlines():
            w = line.split()
            if w and w[0] == "insmod":
                rel = os.path.relpath(w[1], os.path.join(root, "lib", "modules", kver))
                if rel not in mods:
                    mods.append(rel)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    stage = tempfile.mkdtemp(prefix=".stage-", dir=os.path.dirname(out))
    try:
        os.makedirs(os.path.join(stage, "bin"))
        shutil.copy2(busybox, os.path.join(stage, "bin", "busybox"))
        for a in BUSYBOX_APPLETS:
            os.symlink("busybox", os.path.join(stage, "bin", a))
        loaded = []
        for rel in mods:
            src = os.path.join(root, "lib", "modules", kver, rel)
            for ext, tool in ((".xz", ["xz", "-dc"]), (".zst", ["zstd", "-dcq"]), (".gz", ["gzip", "-dc"])):
                if rel.endswith(ext):
                    rel = rel[:-len(ext)]
                    break
            else:
                tool = None
            dst = os.path.join(stage, "lib", "modules", kver, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            if tool:
                with open(dst, "wb") as f:
                    subprocess.run(tool + [src], stdout=f, check=True)
            else:
                shutil.copy2(src, dst)
            loaded.append(rel)
        with open(os.path.join(stage, "kite-initrd.conf"), "w") as f:
            f.write("KVER=%s\nMODULES=%s\n" % (shlex.quote(kver), shlex.quote(" ".join(loaded))))
        shutil.copy2(os.path.join(guest, "initramfs-init"), os.path.join(stage, "init"))
        os.chmod(os.path.join(stage, "init"), 0o755)
        os.makedirs(os.path.join(stage, "kite-guest"))
        shutil.copy2(os.path.join(guest, "kite-init.py"), os.path.join(stage, "kite-guest"))
        tmp = out + ".tmp%d" % os.getpid()
        _cpio(stage, tmp, compress=True)
        os.replace(tmp, out)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return out


def _cpio(stage, out, compress=False, prefix=None):
    """Writes stage/ as a newc cpio (owner root). prefix: put the files under that dir."""
    top = stage
    if prefix:
        # build the archive from a parent dir that contains only <prefix> -> stage
        top = tempfile.mkdtemp(prefix=".cpio-")
        os.symlink(os.path.abspath(stage), os.path.join(top, prefix))
    try:
        find = subprocess.run(["find", "-L" if prefix else "-P", ".", "-mindepth", "1"], cwd=top, check=True,
                              stdout=subprocess.PIPE).stdout
        with open(out, "wb") as f:
            cmd = ["cpio", "--quiet", "-o", "-H", "newc", "-R", "0:0"] + (["-L"] if prefix else [])
            if compress:
                p1 = subprocess.Popen(cmd, cwd=top, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                p2 = subprocess.Popen(["gzip", "-1", "-n"], stdin=p1.stdout, stdout=f)
                p1.stdout.close()
                p1.communicate(find)
                if p2.wait() or p1.returncode:
                    raise RuntimeError("cpio|gzip failed")
            else:
                subprocess.run(cmd, cwd=top, input=find, stdout=f, check=True)
    finally:
        if prefix:
            shutil.rmtree(top, ignore_errors=True)


# --------------------------------------------------------------------------- QEMU

def qemu_binary():
    """KITE_QEMU, else the project's build (tools/qemu/build.sh --print-path)."""
    q = os.environ.get("KITE_QEMU")
    if q:
        if not os.access(q, os.X_OK):
            raise VMError("KITE_QEMU=%s is not an executable" % q)
        return q
    build = os.path.join(REPO, "tools", "qemu", "build.sh")
    try:
        q = _sh([build, "--print-path"], stderr=subprocess.DEVNULL).strip()
    except (subprocess.CalledProcessError, OSError):
        q = ""
    if not q or not os.access(q, os.X_OK):
        raise VMError("no Kite QEMU build (%s); run tools/qemu/build.sh or set KITE_QEMU=/path/to/qemu-system-x86_64"
                      % (q or "tools/qemu/build.sh --print-path failed"))
    return q


def qemu_datadirs():
    build = os.path.join(REPO, "tools", "qemu", "build.sh")
    try:
        return shlex.split(_sh([build, "--print-datadirs"], stderr=subprocess.DEVNULL))
    except (subprocess.CalledProcessError, OSError):
        return list(itertools.chain.from_iterable(("-L", d) for d in FALLBACK_DATADIRS if os.path.isdir(d)))


def free_udp_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


@dataclasses.dataclass
class Link:
    """The host side of one NIC port: a QEMU -netdev backend."""
    kind: str            # hub | udp | unix | none
    hubid: int = 0
    local_port: int = 0  # udp: QEMU's port
    remote_port: int = 0  # udp: the peer's (fabric's) port
    path: str = ""       # unix: the fabric's listening socket

    @staticmethod
    def hub(hubid):
        return Link("hub", hubid=hubid)

    @staticmethod
    def udp(local_port, remote_port):
        return Link("udp", local_port=local_port, remote_port=remote_port)

    @staticmethod
    def unix(path):
        return Link("unix", path=path)

    def netdev(self, ndid):
        if self.kind == "hub":
            return "hubport,id=%s,hubid=%d" % (ndid, self.hubid)
        if self.kind == "udp":
            return ("dgram,id=%s,local.type=inet,local.host=127.0.0.1,local.port=%d,"
                    "remote.type=inet,remote.host=127.0.0.1,remote.port=%d" % (ndid, self.local_port, self.remote_port))
        if self.kind == "unix":
            return "stream,id=%s,server=off,addr.type=unix,addr.path=%s" % (ndid, self.path)
        raise ValueError("link kind %r" % self.kind)


@dataclasses.dataclass
class Nic:
    """One PCI network function. model: kite | virtio | e1000e. links: one per port
    (kite: 1 or 2; others: 1; empty = no cable). props: extra -device properties."""
    model: str
    links: list = dataclasses.field(default_factory=list)
    mac: str = ""
    props: dict = dataclasses.field(default_factory=dict)


_vm_ids = itertools.count(1)
_card_serials = itertools.count(1)
_live = []


def _cleanup_all():
    for obj in list(_live):
        try:
            obj.kill()
        except Exception:
            pass


atexit.register(_cleanup_all)


def _on_signal(signum, frame):
    _cleanup_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


for _s in (signal.SIGTERM, signal.SIGHUP):
    if signal.getsignal(_s) in (signal.SIG_DFL, None):
        signal.signal(_s, _on_signal)


class VM:
    """One QEMU guest. Files (console log, agent socket, initrd) live in workdir."""

    def __init__(self, name, kernel="6.1", payload=None, nics=(), mem=1024, smp=1, card=None,
                 workdir=None, qemu=None, cpu="max", append="", extra_args=(), coldplug=True):
        self.name = name
        self.series = kernel
        self.payload = payload
        self.nics = list(nics)
        self.mem, self.smp, self.cpu = mem, smp, cpu
        self.card = card or os.environ.get("KITE_CARD") or DEFAULT_CARD
        self.qemu = qemu
        self.append = append
        self.extra_args = list(extra_args)
        self.coldplug = coldplug
        self.index = next(_vm_ids)
        for i, nic in enumerate(self.nics):
            if not nic.mac:  # 02:4b (locally administered), model, VM, NIC
                nic.mac = "02:4b:%02x:%02x:%02x:00" % (
                    {"kite": 0x54, "virtio": 0x56, "e1000e": 0x45}.get(nic.model, 0x99), self.index & 0xff, i)
        self._own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="kitevm-%s-" % name)
        os.makedirs(self.workdir, exist_ok=True)
        self.console_log = os.path.join(self.workdir, "%s.console.log" % name)
        self.agent_sock = os.path.join(self.workdir, "%s.agent.sock" % name)
        self.qmp_sock = os.path.join(self.workdir, "%s.qmp.sock" % name)
        self.proc = None
        self.sock = None
        self.ready = threading.Event()
        self.ready_info = {}
        self.boot_time = None
        self._ids = itertools.count(1)
        self._pending = {}
        self._plock = threading.Lock()
        self._dead = None
        self._t_start = None
        self.failed = False

    def __repr__(self):
        return "VM(%s)" % self.name

    # ---- command line
    def _nic_args(self):
        args = []
        rp = 0
        for i, nic in enumerate(self.nics):
            ids = []
            for j, link in enumerate(nic.links):
                ndid = "n%d_%d" % (i, j)
                args += ["-netdev", link.netdev(ndid)]
                ids.append(ndid)
            mac = nic.mac
            if nic.model == "kite":
                rp += 1
                args += ["-device", "pcie-root-port,id=rp%d,chassis=%d,slot=%d" % (rp, rp, rp)]
                props = {"bus": "rp%d" % rp, "card": self.card}
                if ids:
                    props["netdev"] = ids[0]
                if len(ids) > 1:
                    props["netdev1"] = ids[1]
                    props["ports"] = str(len(ids))
                props["mac"] = mac
                props["serial"] = str(next(_card_serials))
                props.update(nic.props)
                args += ["-device", "kite," + ",".join("%s=%s" % kv for kv in props.items())]
            elif nic.model in ("virtio", "e1000e"):
                model = "virtio-net-pci" if nic.model == "virtio" else "e1000e"
                props = {"mac": mac, "romfile": ""}
                if ids:
                    props["netdev"] = ids[0]
                props.update(nic.props)
                args += ["-device", model + "," + ",".join("%s=%s" % kv for kv in props.items())]
            else:
                raise ValueError("unknown NIC model %r" % nic.model)
        return args

    def command_line(self):
        k = kernel(self.series)
        initrd = self._initrd()
        append = ("console=ttyS0,115200 panic=-1 oops=panic quiet loglevel=4 mitigations=off "
                  "tsc=reliable no_timer_check kite.hostname=%s%s %s"
                  % (self.name, "" if self.coldplug else " kite.coldplug=0", self.append))
        args = [self.qemu or qemu_binary()] + qemu_datadirs() + [
            "-M", "q35", "-accel", "tcg", "-cpu", self.cpu, "-m", str(self.mem), "-smp", str(self.smp),
            "-nodefaults", "-nographic", "-no-reboot", "-no-user-config",
            "-name", self.name,
            "-kernel", k["VMLINUZ"], "-initrd", initrd, "-append", append.strip(),
            "-drive", "file=%s,if=virtio,format=raw,snapshot=on,cache=unsafe" % rootfs(),
            "-drive", "file=%s,if=virtio,format=raw,readonly=on" % k["MODIMG"],
            "-chardev", "file,id=con,path=%s" % self.console_log,
            "-serial", "chardev:con",
            "-chardev", "socket,id=agent,path=%s,server=on,wait=off" % self.agent_sock,
            "-serial", "chardev:agent",
            "-qmp", "unix:%s,server=on,wait=off" % self.qmp_sock,
            "-monitor", "none",
        ] + self._nic_args() + self.extra_args
        return args

    def _initrd(self):
        base = base_initramfs(self.series)
        if not self.payload:
            return base
        if not os.path.isdir(self.payload):
            raise VMError("payload %s is not a directory" % self.payload)
        out = os.path.join(self.workdir, "%s.initrd" % self.name)
        pay = out + ".payload"
        _cpio(self.payload, pay, prefix="kite")
        with open(out, "wb") as f:
            for part in (base, pay):
                with open(part, "rb") as g:
                    shutil.copyfileobj(g, f)
                # the kernel wants each archive 4-byte aligned
                f.write(b"\0" * (-f.tell() % 4))
        os.unlink(pay)
        return out

    # ---- lifecycle
    def start(self):
        if self.card and any(n.model == "kite" for n in self.nics) and not os.path.exists(self.card):
            raise VMError("%s: card model library %s does not exist (build it, or pass card=/KITE_CARD)"
                          % (self.name, self.card))
        argv = self.command_line()
        with open(os.path.join(self.workdir, "%s.cmdline" % self.name), "w") as f:
            f.write(" ".join(shlex.quote(a) for a in argv) + "\n")
        self._qemu_err = open(os.path.join(self.workdir, "%s.qemu.log" % self.name), "wb")
        self._t_start = time.monotonic()
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self._qemu_err,
                                     stderr=subprocess.STDOUT, preexec_fn=_pdeathsig)
        _live.append(self)
        deadline = time.monotonic() + 30
        while True:
            if self.proc.poll() is not None:
                self._fail("QEMU exited at start (rc %s)" % self.proc.returncode, kill=False)
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.agent_sock)
                break
            except OSError:
                s.close()
                if time.monotonic() > deadline:
                    self._fail("agent socket %s never appeared" % self.agent_sock)
                time.sleep(0.05)
        self.sock = s
        threading.Thread(target=self._reader, name="kitevm-%s" % self.name, daemon=True).start()
        return self

    def wait_ready(self, timeout=120):
        end = time.monotonic() + timeout
        while not self.ready.wait(0.2):
            if self._dead:
                self._fail("guest died while booting: %s" % self._dead, kill=False)
            if time.monotonic() > end:
                self._fail("guest agent not ready after %d s" % timeout)
        return self

    def _reader(self):
        buf = b""
        f = self.sock
        try:
            while True:
                chunk = f.recv(1 << 16)
                if not chunk:
                    break
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        continue  # boot noise on the line before the agent put it in raw mode
                    if not isinstance(msg, dict):
                        continue
                    if msg.get("event") == "ready":
                        self.ready_info = msg
                        self.boot_time = time.monotonic() - self._t_start
                        self.ready.set()
                    elif "id" in msg:
                        with self._plock:
                            slot = self._pending.get(msg["id"])
                        if slot:
                            slot[1] = msg
                            slot[0].set()
        except OSError:
            pass
        self._dead = "agent connection closed"
        with self._plock:
            for slot in self._pending.values():
                slot[0].set()

    def request(self, req, timeout):
        """Sends one agent request and waits for its reply (a dict)."""
        if not self.ready.is_set():
            self.wait_ready()
        rid = next(self._ids)
        req = dict(req, id=rid)
        slot = [threading.Event(), None]
        with self._plock:
            self._pending[rid] = slot
        try:
            data = (json.dumps(req) + "\n").encode()
            try:
                self.sock.sendall(data)
            except OSError as e:
                self._fail("cannot send to agent: %s" % e, kill=False)
            if not slot[0].wait(timeout):
                self._fail("no reply within %.0f s to %s" % (timeout, _short(req)))
            if slot[1] is None:
                self._fail("guest died during %s: %s" % (_short(req), self._dead), kill=False)
            return slot[1]
        finally:
            with self._plock:
                self._pending.pop(rid, None)

    def run(self, cmd, timeout=60, check=True, stdin=None, env=None, cwd=None, binary=False):
        """Runs `sh -c cmd` in the guest; returns (rc, stdout, stderr). rc is -9
        (and check raises) when the command outlived timeout and was killed;
        a guest that does not answer within timeout + 30 s is killed (VMError)."""
        req = {"op": "run", "cmd": cmd, "timeout": timeout}
        if stdin is not None:
            req["stdin"] = base64.b64encode(stdin if isinstance(stdin, bytes) else stdin.encode()).decode()
        if env:
            req["env"] = env
        if cwd:
            req["cwd"] = cwd
        r = self.request(req, timeout + 30)
        if r.get("error"):
            raise VMError("%s: agent error: %s" % (self.name, r["error"]))
        out = base64.b64decode(r.get("stdout", ""))
        err = base64.b64decode(r.get("stderr", ""))
        if r.get("timed_out"):
            err += b"\n[kitevm] command killed after %ss timeout\n" % str(timeout).encode()
        if not binary:
            out, err = out.decode(errors="replace"), err.decode(errors="replace")
        rc = r["rc"]
        if check and rc != 0:
            raise CommandError(self.name, cmd, rc, out if not binary else repr(out),
                               err if not binary else repr(err))
        return rc, out, err

    def put_file(self, src, dst, mode=0o644):
        """Copies a host file (path or bytes) to dst in the guest. The serial link is slow
        (roughly 100 KB/s under TCG): ship large files in the payload instead."""
        data = src if isinstance(src, bytes) else open(src, "rb").read()
        r = self.request({"op": "put", "path": dst, "mode": mode, "data": base64.b64encode(data).decode()},
                         60 + len(data) / 20000)
        if r.get("rc") != 0:
            raise VMError("%s: put_file %s: %s" % (self.name, dst, r.get("error")))

    def get_file(self, src, dst=None):
        r = self.request({"op": "get", "path": src}, 120)
        if r.get("rc") != 0:
            raise VMError("%s: get_file %s: %s" % (self.name, src, r.get("error")))
        data = base64.b64decode(r["data"])
        if dst:
            with open(dst, "wb") as f:
                f.write(data)
        return data

    def ifname(self, nic, timeout=30):
        """The guest interface name of a Nic (or MAC), e.g. vm.ifname(vm.nics[0]);
        waits for it to appear (a Kite card's netdev exists once kite.ko is loaded)."""
        mac = (nic.mac if isinstance(nic, Nic) else nic).lower()
        _, out, _ = self.run("for i in $(seq %d); do for d in /sys/class/net/*; do "
                             "[ \"$(cat $d/address)\" = %s ] && echo ${d##*/} && exit 0; done; sleep 1; done; exit 1"
                             % (timeout, mac), timeout=timeout + 10)
        return out.split()[0]

    def console_tail(self, lines=40):
        try:
            with open(self.console_log, "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - 65536))
                text = f.read().decode(errors="replace")
        except OSError:
            return "(no console log)"
        return "\n".join(text.splitlines()[-lines:])

    def _fail(self, why, kill=True):
        self.failed = True
        if kill:
            self.kill()
        else:
            # let QEMU flush, then make sure it is gone
            if self.proc and self.proc.poll() is None:
                try:
                    self.proc.wait(2)
                except subprocess.TimeoutExpired:
                    self.kill()
        qlog = ""
        try:
            with open(os.path.join(self.workdir, "%s.qemu.log" % self.name), errors="replace") as f:
                qlog = f.read()[-2000:]
        except OSError:
            pass
        raise VMError("%s: %s\n--- qemu (%s)\n%s\n--- console tail (%s)\n%s"
                      % (self.name, why, self.workdir, qlog.strip(), self.console_log, self.console_tail()))

    def shutdown(self, timeout=15):
        """Powers the guest off cleanly if it answers, else kills QEMU."""
        if self.proc is None or self.proc.poll() is not None:
            self._close()
            return
        if self.ready.is_set() and not self._dead:
            try:
                self.sock.sendall((json.dumps({"op": "poweroff", "id": 0}) + "\n").encode())
                self.proc.wait(timeout)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
        self._close()

    def _close(self):
        if self.sock:
            try:
                self.sock.close()
            except OSError:
                pass
        if self in _live:
            _live.remove(self)
        # keep the logs of failed VMs (and all with KITE_KEEP=1)
        if self._own_workdir and not self.failed and not os.environ.get("KITE_KEEP"):
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is not None:
            self.failed = True
        self.shutdown()


def _short(req):
    return json.dumps({k: (v if k != "data" else "...") for k, v in req.items()})[:200]


def _pdeathsig():
    """In the child before exec: die with the parent (Linux PR_SET_PDEATHSIG)."""
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)
    except Exception:
        pass


# --------------------------------------------------------------------------- fabric

def fabric_binary():
    b = os.environ.get("KITE_FABRIC", DEFAULT_FABRIC)
    if b == DEFAULT_FABRIC:
        # the same build as `make fabric`; cheap when up to date
        bdir = os.path.dirname(DEFAULT_FABRIC)
        if not os.path.exists(os.path.join(bdir, "CMakeCache.txt")):
            subprocess.run(["cmake", "-S", os.path.join(REPO, "tools", "fabric"), "-B", bdir, "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", bdir], check=True, stdout=subprocess.DEVNULL)
    return b


class Fabric:
    """A tools/fabric switch process. ports: list of dicts {"transport": "unix"|"udp",
    "fcs": bool}. link(i) gives the QEMU-side Link for port i."""

    def __init__(self, name, ports, mode="wire", workdir=None, loss=0.0, delay_us=0, seed=1, extra=()):
        self.name, self.mode, self.ports = name, mode, [dict(p) for p in ports]
        self.loss, self.delay_us, self.seed, self.extra = loss, delay_us, seed, list(extra)
        self._own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="kitefab-%s-" % name)
        self.proc = None
        self.counters = ""
        for i, p in enumerate(self.ports):
            if p.get("transport", "unix") == "unix":
                p["path"] = os.path.join(self.workdir, "%s.p%d.sock" % (name, i))
            else:
                p["fport"], p["qport"] = free_udp_ports(2)

    def args(self):
        a = [fabric_binary(), "--name", self.name, "--mode", self.mode, "--seed", str(self.seed)]
        for p in self.ports:
            if "path" in p:
                spec = "unix:%s" % p["path"]
            else:
                spec = "udp:127.0.0.1:%d:127.0.0.1:%d" % (p["fport"], p["qport"])
            a += ["--port", spec + (",fcs" if p.get("fcs") else "")]
        if self.loss:
            a += ["--loss", str(self.loss)]
        if self.delay_us:
            a += ["--delay-us", str(self.delay_us)]
        return a + self.extra

    def link(self, i):
        p = self.ports[i]
        if "path" in p:
            return Link.unix(p["path"])
        return Link.udp(p["qport"], p["fport"])

    def start(self):
        argv = self.args()
        self._err = open(os.path.join(self.workdir, "%s.fabric.log" % self.name), "w+")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self._err, text=True, preexec_fn=_pdeathsig)
        _live.append(self)
        line = self.proc.stdout.readline()
        if "ready" not in line:
            self.kill()
            raise VMError("fabric %s did not start: %s\n%s" % (self.name, line.strip(), self.log()))
        return self

    def log(self):
        try:
            self._err.seek(0)
            return self._err.read()
        except (OSError, AttributeError):
            return ""

    def stop(self):
        """SIGTERM; returns the counters the fabric printed."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.counters = self.log()
        if self in _live:
            _live.remove(self)
        if self._own_workdir and not os.environ.get("KITE_KEEP"):
            shutil.rmtree(self.workdir, ignore_errors=True)
        return self.counters

    kill = stop


# --------------------------------------------------------------------------- topologies

class Topology:
    """Started VMs (and fabrics). Iterable over the VMs; a context manager."""

    def __init__(self, name, vms, fabrics=()):
        self.name, self.vms, self.fabrics = name, list(vms), list(fabrics)

    def __iter__(self):
        return iter(self.vms)

    def __getitem__(self, i):
        return self.vms[i]

    def start(self, timeout=180):
        try:
            for f in self.fabrics:
                f.start()
            for vm in self.vms:
                vm.start()
            for vm in self.vms:
                vm.wait_ready(timeout)
        except BaseException:
            self.close()
            raise
        return self

    def close(self):
        for vm in self.vms:
            try:
                vm.shutdown()
            except Exception:
                vm.kill()
        for f in self.fabrics:
            f.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is not None:
            for vm in self.vms:
                vm.failed = True
        self.close()


def single(kernel="6.1", payload=None, nics=(), mem=1024, smp=1, card=None, start=True, **kw):
    """One VM with the given NICs (default: none)."""
    t = Topology("single", [VM("kite1", kernel, payload, nics, mem, smp, card, **kw)])
    return t.start() if start else t


_hub_ids = itertools.count(1)


def b2b(kernel="6.1", payload=None, mem=1024, smp=2, card=None, link="hub", loss=0.0, delay_us=0,
        start=True, **kw):
    """ONE VM with two Kite cards whose port 0s are cabled together: through a QEMU
    hub (link="hub", default) or through a tools/fabric wire (link="fabric",
    which allows loss/delay)."""
    fabrics = []
    if link == "hub":
        hub = next(_hub_ids)
        links = [Link.hub(hub), Link.hub(hub)]
    elif link == "fabric":
        f = Fabric("b2b", [{"transport": "unix", "fcs": True}] * 2, "wire", loss=loss, delay_us=delay_us)
        fabrics.append(f)
        links = [f.link(0), f.link(1)]
    else:
        raise ValueError("link must be hub or fabric")
    nics = [Nic("kite", [links[0]]), Nic("kite", [links[1]])]
    t = Topology("b2b", [VM("kite1", kernel, payload, nics, mem, smp, card, **kw)], fabrics)
    return t.start() if start else t


def pair(kernel="6.1", payload=None, mem=1024, smp=1, card=None, kite=True, extra=("virtio",),
         transport="unix", one_l2=False, loss=0.0, delay_us=0, start=True, **kw):
    """TWO VMs. Each gets one Kite card (kite=True) plus one NIC per model in
    extra ("virtio", "e1000e"). Each NIC kind is its own 2-port fabric wire,
    unless one_l2=True: then every NIC of both VMs sits on one MAC-learning
    fabric switch (Kite ports flagged fcs, so Kite talks to virtio/e1000e, e.g.
    for rdma_rxe interop). transport: unix (QEMU -netdev stream, lossless) or
    udp (-netdev dgram)."""
    models = (["kite"] if kite else []) + list(extra)
    nics = [[], []]
    fabrics = []
    if one_l2:
        ports = [{"transport": transport, "fcs": m == "kite"} for m in models for _ in (0, 1)]
        f = Fabric("l2", ports, "switch", loss=loss, delay_us=delay_us)
        fabrics.append(f)
        for i, m in enumerate(models):
            for v in (0, 1):
                nics[v].append(Nic(m, [f.link(2 * i + v)]))
    else:
        for m in models:
            f = Fabric(m, [{"transport": transport, "fcs": m == "kite"}] * 2, "wire", loss=loss,
                       delay_us=delay_us)
            fabrics.append(f)
            for v in (0, 1):
                nics[v].append(Nic(m, [f.link(v)]))
    vms = [VM("kite%d" % (v + 1), kernel, payload, nics[v], mem, smp, card, **kw) for v in (0, 1)]
    t = Topology("pair", vms, fabrics)
    return t.start() if start else t


TOPOLOGIES = {"single": single, "b2b": b2b, "pair": pair}


# --------------------------------------------------------------------------- CLI

def _topology_from_args(a):
    kw = dict(kernel=a.kernel, payload=a.payload, mem=a.mem, card=a.card)
    if a.smp:
        kw["smp"] = a.smp
    if a.topology == "single":
        kw["nics"] = [Nic(m) for m in a.nic]
    elif a.topology == "pair":
        kw["extra"] = a.extra.split(",") if a.extra else ()
        kw["kite"] = not a.no_kite
        kw["one_l2"] = a.one_l2
        kw["transport"] = a.transport
    elif a.topology == "b2b":
        kw["link"] = a.link
    return TOPOLOGIES[a.topology](start=False, **kw)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="kitevm.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="fetch the kernel and build rootfs + initramfs")
    b.add_argument("--kernel", default="6.1")
    for name in ("run", "shell"):
        p = sub.add_parser(name, help="boot a topology and run a command in every VM" if name == "run"
                           else "boot a topology and read shell lines from stdin")
        p.add_argument("--topology", choices=sorted(TOPOLOGIES), default="single")
        p.add_argument("--kernel", default="6.1", choices=["6.1", "6.12"])
        p.add_argument("--payload", help="directory copied to /kite in the guest")
        p.add_argument("--card", help="card model library (default build/model/libkite_model.so)")
        p.add_argument("--mem", type=int, default=1024)
        p.add_argument("--smp", type=int)
        p.add_argument("--nic", action="append", default=[], choices=["virtio", "e1000e", "kite"],
                       help="single: add a NIC without cable (repeatable)")
        p.add_argument("--extra", default="virtio", help="pair: extra NIC models, comma separated")
        p.add_argument("--no-kite", action="store_true", help="pair: no Kite cards")
        p.add_argument("--one-l2", action="store_true", help="pair: all NICs on one fabric switch")
        p.add_argument("--transport", choices=["unix", "udp"], default="unix")
        p.add_argument("--link", choices=["hub", "fabric"], default="hub", help="b2b cable")
        p.add_argument("--timeout", type=int, default=120, help="per command")
        p.add_argument("--keep", action="store_true", help="print the work dirs")
        if name == "run":
            p.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    if a.cmd == "build":
        t0 = time.monotonic()
        k = kernel(a.kernel)
        log("kernel %s: %s" % (k["KVER"], k["VMLINUZ"]))
        log("rootfs: %s" % rootfs())
        log("initramfs: %s" % base_initramfs(a.kernel))
        log("done in %.1f s" % (time.monotonic() - t0))
        return 0
    topo = _topology_from_args(a)
    t0 = time.monotonic()
    rc = 0
    with topo:
        topo.start()
        for vm in topo.vms:
            log("%s ready in %.1f s (kernel %s)%s" % (vm.name, vm.boot_time, vm.ready_info.get("kernel"),
                                                      " workdir " + vm.workdir if a.keep else ""))
        if a.cmd == "run":
            cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
            cmd = " ".join(cmd) or "uname -a; ip -br link"
            for vm in topo.vms:
                r, out, err = vm.run(cmd, timeout=a.timeout, check=False)
                print("=== %s: rc=%d" % (vm.name, r))
                sys.stdout.write(out)
                if err:
                    sys.stdout.write("--- stderr\n" + err)
                rc = rc or r
        else:
            vm = topo.vms[0]
            print("kitevm shell: lines run via `sh -c` in the current VM; ':vm NAME' switches "
                  "(%s), ':quit' or EOF ends." % ", ".join(v.name for v in topo.vms), file=sys.stderr)
            while True:
                try:
                    line = input("%s# " % vm.name)
                except EOFError:
                    break
                if line.strip() in (":quit", ":q", "exit"):
                    break
                if line.startswith(":vm "):
                    vm = {v.name: v for v in topo.vms}.get(line.split()[1], vm)
                    continue
                if not line.strip():
                    continue
                r, out, err = vm.run(line, timeout=a.timeout, check=False)
                sys.stdout.write(out)
                sys.stdout.write(err)
                if r:
                    print("[rc=%d]" % r)
    log("total %.1f s" % (time.monotonic() - t0))
    return rc


if __name__ == "__main__":
    sys.exit(main())
