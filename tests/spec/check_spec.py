#!/usr/bin/env python3
"""TAP: the interface source validates, every generated copy is current and
compiles in its consumer's language, and staleness is really detected."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "fpga", "spec"))
import gen  # noqa: E402

tests = []


def test(fn):
    tests.append(fn)
    return fn


def sh(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)


@test
def spec_validates():
    gen.load()


@test
def generated_files_are_current():
    r = sh([sys.executable, "fpga/spec/gen.py", "--check"])
    assert r.returncode == 0, r.stderr


@test
def stale_copy_is_detected():
    # Work on a scratch copy of the tree so the real outputs are never touched.
    with tempfile.TemporaryDirectory() as d:
        for rel in ["fpga/spec"] + [os.path.dirname(p) for p in gen.OUTPUTS.values()]:
            shutil.copytree(os.path.join(ROOT, rel), os.path.join(d, rel), dirs_exist_ok=True)
        p = os.path.join(d, gen.OUTPUTS["kernel"])
        with open(p, "a") as f:
            f.write("/* hand edit */\n")
        r = subprocess.run([sys.executable, os.path.join(d, "fpga/spec/gen.py"), "--check"],
                           capture_output=True, text=True)
        assert r.returncode == 1 and gen.OUTPUTS["kernel"] in r.stderr, r.stderr


@test
def c_header_compiles():
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t.c")
        with open(src, "w") as f:
            f.write('#include "kite_hw.h"\nint main(void) { return KITE_CMD_STATUS_OK; }\n')
        r = sh(["gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-I",
                os.path.dirname(os.path.join(ROOT, gen.OUTPUTS["provider"])), src, "-o", os.path.join(d, "t")])
        assert r.returncode == 0, r.stderr


@test
def cpp_header_compiles():
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t.cpp")
        with open(src, "w") as f:
            f.write('#include "kite/spec.hpp"\nint main() { return kite::spec::cmd_status::OK; }\n')
        r = sh(["g++", "-std=c++20", "-Wall", "-Wextra", "-Werror", "-I", "fpga/model/include", src,
                "-o", os.path.join(d, "t")])
        assert r.returncode == 0, r.stderr


@test
def sv_package_parses():
    if not shutil.which("verilator"):
        raise Skip("verilator not installed")
    with tempfile.TemporaryDirectory() as d:
        top = os.path.join(d, "top.sv")
        with open(top, "w") as f:
            f.write("module top(output logic [31:0] m);\n  import kite_pkg::*;\n"
                    "  cqe_t c;\n  assign c = '0;\n  assign m = MAGIC ^ {24'b0, c.opcode};\nendmodule\n")
        r = sh(["verilator", "--lint-only", "-Wall", "-Wno-UNUSEDSIGNAL", gen.OUTPUTS["sv"], top])
        assert r.returncode == 0, r.stderr


@test
def command_structs_fit_the_entry():
    spec = gen.load()
    sizes = {s["name"]: s["size"] for s in spec["structs"]}
    for op, cin, cout, _ in spec["commands"][0]["list"]:
        assert not cin or sizes[cin] <= 112, op
        assert not cout or sizes[cout] <= 128, op


class Skip(Exception):
    pass


def main():
    print(f"1..{len(tests)}")
    bad = 0
    for i, t in enumerate(tests, 1):
        try:
            t()
            print(f"ok {i} - {t.__name__}")
        except Skip as e:
            print(f"ok {i} - {t.__name__} # SKIP {e}")
        except Exception as e:  # noqa: BLE001 - report any failure as TAP
            bad += 1
            print(f"not ok {i} - {t.__name__}")
            for line in str(e).splitlines()[:20]:
                print(f"# {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
