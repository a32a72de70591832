#!/usr/bin/python3 -S
"""Kite guest init (PID 1) and guest agent.

PID 1 mounts the API filesystems, sets the hostname, brings up lo, loads the
drivers of devices present at boot (one modprobe -a over PCI/virtio
modaliases, no udev), then forks the agent and reaps every orphan. It is not
systemd on purpose: under TCG a full init costs tens of seconds.

The agent speaks JSON lines on /dev/ttyS1 (raw mode), which QEMU wires to a
unix socket on the host (tools/vm/kitevm.py). Requests:

  {"id": N, "op": "run", "cmd": "sh text", "timeout": S, "stdin": b64?, "cwd": d?, "env": {}?}
      -> {"id": N, "rc": int, "stdout": b64, "stderr": b64, "timed_out": bool, "elapsed": s}
  {"id": N, "op": "put", "path": p, "data": b64, "mode": int}   -> {"id": N, "rc": 0}
  {"id": N, "op": "get", "path": p}                              -> {"id": N, "rc": 0, "data": b64}
  {"id": N, "op": "ping"}                                        -> {"id": N, "rc": 0, "uptime": s}
  {"id": N, "op": "poweroff"}                                    -> {"id": N, "rc": 0}, then power off
Errors: {"id": N, "rc": -1, "error": "text"}. At start: {"event": "ready", "uptime": s, ...}.
Requests run concurrently (one thread each); replies carry the request id.
Command output goes to files, not pipes, so a command that leaves a daemon
behind (`iperf3 -s &`) still returns when the shell exits.
"""
import base64
import ctypes
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

AGENT_TTY = "/dev/ttyS1"


def sh(*argv):
    try:
        return subprocess.call(list(argv), stdin=subprocess.DEVNULL)
    except OSError as e:
        print("kite-init: %s: %s" % (argv[0], e), flush=True)
        return -1


def cmdline():
    try:
        with open("/proc/cmdline") as f:
            words = f.read().split()
    except OSError:
        return {}
    opts = {}
    for w in words:
        if w.startswith("kite."):
            k, _, v = w[5:].partition("=")
            opts[k] = v
    return opts


def early_setup():
    os.environ.update(PATH="/usr/sbin:/usr/bin:/sbin:/bin", HOME="/root", TERM="dumb", LANG="C.UTF-8")
    mounts = [("proc", "/proc", "proc", "nosuid,nodev,noexec"),
              ("sysfs", "/sys", "sysfs", "nosuid,nodev,noexec"),
              ("devpts", "/dev/pts", "devpts", "gid=5,mode=620,ptmxmode=666"),
              ("tmpfs", "/dev/shm", "tmpfs", "nosuid,nodev"),
              ("tmpfs", "/run", "tmpfs", "nosuid,nodev,mode=755"),
              ("tmpfs", "/tmp", "tmpfs", "nosuid,nodev,mode=1777")]
    for src, dst, fstype, opts in mounts:
        os.makedirs(dst, exist_ok=True)
        sh("mount", "-t", fstype, "-o", opts, src, dst)
    for extra in ("debugfs:/sys/kernel/debug", "configfs:/sys/kernel/config"):
        fstype, dst = extra.split(":")
        if os.path.isdir(dst):
            subprocess.call(["mount", "-t", fstype, fstype, dst], stderr=subprocess.DEVNULL)
    if not os.path.exists("/dev/ptmx"):
        os.symlink("pts/ptmx", "/dev/ptmx")
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        if not os.path.lexists("/dev/" + name):
            os.symlink(target, "/dev/" + name)
    opts = cmdline()
    hostname = opts.get("hostname", "kite")
    with open("/proc/sys/kernel/hostname", "w") as f:
        f.write(hostname)
    try:
        with open("/etc/hostname", "w") as f:
            f.write(hostname + "\n")
    except OSError:
        pass
    sh("ip", "link", "set", "lo", "up")
    if opts.get("coldplug", "1") != "0":
        # network controllers only (PCI class 02): q35's SATA and SMBus
        # drivers would cost boot time and nobody uses them
        aliases = []
        d = "/sys/bus/pci/devices"
        for dev in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            try:
                with open(os.path.join(d, dev, "class")) as f:
                    cls = int(f.read(), 16)
                with open(os.path.join(d, dev, "modalias")) as f:
                    alias = f.read().strip()
            except (OSError, ValueError):
                continue
            if cls >> 16 == 0x02 or alias.startswith("pci:v00001AF4"):
                aliases.append(alias)
        if aliases:
            subprocess.call(["modprobe", "-a", "-q"] + aliases, stderr=subprocess.DEVNULL)
        # virtio devices appear on the virtio bus only once virtio_pci bound
        d = "/sys/bus/virtio/devices"
        if os.path.isdir(d):
            more = []
            for dev in os.listdir(d):
                try:
                    with open(os.path.join(d, dev, "modalias")) as f:
                        more.append(f.read().strip())
                except OSError:
                    pass
            if more:
                subprocess.call(["modprobe", "-a", "-q"] + more, stderr=subprocess.DEVNULL)
    if os.path.exists("/kite/init.d"):
        for s in sorted(os.listdir("/kite/init.d")):
            sh("/bin/sh", os.path.join("/kite/init.d", s))
    return opts


class Agent:
    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        import termios
        import tty
        tty.setraw(self.fd)
        attrs = termios.tcgetattr(self.fd)
        attrs[4] = attrs[5] = termios.B115200
        termios.tcsetattr(self.fd, termios.TCSANOW, attrs)
        termios.tcflush(self.fd, termios.TCIOFLUSH)
        self.wlock = threading.Lock()

    def send(self, obj):
        data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        with self.wlock:
            view = memoryview(data)
            while view:
                n = os.write(self.fd, view)
                view = view[n:]

    def serve(self):
        self.send({"event": "ready", "uptime": uptime(), "kernel": os.uname().release,
                   "hostname": os.uname().nodename})
        buf = b""
        while True:
            chunk = os.read(self.fd, 65536)
            if not chunk:
                time.sleep(0.1)
                continue
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                line = line.strip()
                if not line:
                    continue
                try:
                    req = json.loads(line)
                except ValueError:
                    self.send({"event": "bad-request", "line": line[:200].decode("latin-1")})
                    continue
                threading.Thread(target=self.handle, args=(req,), daemon=True).start()

    def handle(self, req):
        rid = req.get("id")
        try:
            op = req.get("op", "run")
            reply = getattr(self, "op_" + op)(req)
        except Exception as e:  # report, never die
            reply = {"rc": -1, "error": "%s: %s" % (type(e).__name__, e)}
        reply["id"] = rid
        self.send(reply)
        if req.get("op") == "poweroff":
            time.sleep(0.2)
            poweroff()

    def op_ping(self, req):
        return {"rc": 0, "uptime": uptime()}

    def op_poweroff(self, req):
        return {"rc": 0}

    def op_put(self, req):
        path = req["path"]
        os.makedirs(os.path.dirname(path) or "/", exist_ok=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(req.get("data", "")))
        os.chmod(path, req.get("mode", 0o644))
        return {"rc": 0}

    def op_get(self, req):
        with open(req["path"], "rb") as f:
            return {"rc": 0, "data": base64.b64encode(f.read()).decode()}

    def op_run(self, req):
        timeout = req.get("timeout") or 60
        env = dict(os.environ)
        env.update(req.get("env") or {})
        t0 = time.monotonic()
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
                tempfile.TemporaryFile() as inp:
            if req.get("stdin"):
                inp.write(base64.b64decode(req["stdin"]))
                inp.seek(0)
            p = subprocess.Popen(["/bin/sh", "-c", req["cmd"]], stdin=inp, stdout=out, stderr=err,
                                 cwd=req.get("cwd") or "/", env=env, start_new_session=True)
            timed_out = False
            try:
                rc = p.wait(timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                rc = p.wait()
            out.seek(0)
            err.seek(0)
            limit = req.get("max_output", 16 << 20)
            return {"rc": rc, "timed_out": timed_out, "elapsed": round(time.monotonic() - t0, 3),
                    "stdout": base64.b64encode(out.read(limit)).decode(),
                    "stderr": base64.b64encode(err.read(limit)).decode()}


def uptime():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def poweroff():
    os.sync()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.reboot(0x4321FEDC)  # LINUX_REBOOT_CMD_POWER_OFF


def agent_main():
    os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while not os.path.exists(AGENT_TTY):
        time.sleep(0.1)
    Agent(AGENT_TTY).serve()


def main():
    if os.getpid() != 1:
        agent_main()  # for debugging: run the agent alone
        return
    try:
        early_setup()
    except Exception as e:
        print("kite-init: setup error: %s" % e, flush=True)
    print("kite-init: up %.2f s, starting agent" % uptime(), flush=True)
    agent = None
    while True:
        if agent is None:
            agent = os.fork()
            if agent == 0:
                try:
                    agent_main()
                finally:
                    os._exit(1)
        try:
            pid, status = os.wait()
        except ChildProcessError:
            time.sleep(1)
            continue
        if pid == agent:
            print("kite-init: agent exited (status %d), restarting" % status, flush=True)
            agent = None
            time.sleep(1)


if __name__ == "__main__":
    main()
