#!/usr/bin/env bash
# RTL checks, one line each (TAP-like): for every block in fpga/rtl/blocks.list
#   lint      verilator --lint-only -Wall, no waivers beyond fpga/rtl/lint.vlt
#   tb        the Verilator testbench (randomized + directed vs the reference)
#   tb-fails  the same testbench with --inject must fail (it can detect a mismatch)
#   synth     yosys synth_xilinx for UltraScale+ (skipped with --quick); the
#             card top, and the card with its CPU, bottom-up after the blocks
#             (fpga/syn/synth_card.py). The syntheses run in the background
#             from the start, beside the testbenches: from empty caches they
#             are most of this script's time.
# then the resource table (Documentation/hw/rtl-resources.rst).
# Builds and synthesis results are cached by source hash.
# Usage: fpga/check.sh [--quick] [--seed N] [--only NAME[,NAME...]]
# (--only: those blocks of fpga/rtl/blocks.list, and the board top's lint)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
quick=0 seed=1 only=
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --seed) seed=$2; shift ;;
    --only) only=,$2,; shift ;;
    *) echo "usage: fpga/check.sh [--quick] [--seed N] [--only NAME[,NAME...]]" >&2; exit 2 ;;
    esac
    shift
done
for t in verilator yosys; do
    command -v $t >/dev/null || { echo "not ok - $t missing (tools/setup/deps.sh rtl)"; exit 1; }
done

logs=build/rtl/logs
mkdir -p "$logs"
fails=0 n=0
common=(fpga/rtl/common/kite_pkg.sv fpga/rtl/common/kite_rtl_pkg.sv)
t_start=$SECONDS

result() {  # result NAME STATUS [LOG]
    n=$((n + 1))
    if [ "$2" = 0 ]; then
        echo "ok - $1"
    else
        echo "not ok - $1${3:+ (see $3)}"
        fails=$((fails + 1))
    fi
}

mapfile -t blocks < <(grep -v '^\s*#' fpga/rtl/blocks.list | grep -v '^\s*$')
if [ -n "$only" ]; then
    sel=()
    for line in "${blocks[@]}"; do
        case $only in *,"${line%% *}",*) sel+=("$line") ;; esac
    done
    [ ${#sel[@]} -gt 0 ] || { echo "usage: --only names blocks of fpga/rtl/blocks.list" >&2; exit 2; }
    blocks=("${sel[@]}")
fi

# The card with its control CPU is synthesized as the card is, over it.
card_sys_syn=(--top kite_card_sys --name card_sys --own kite_card_sys.sv)

if [ $quick -eq 0 ]; then
    # Two synthesis jobs at a time (the machine has 2 cores), started now so
    # that they share the cores with the testbenches below (which leave one
    # idle while the card with its CPU runs, for minutes). Each job writes
    # its exit status next to its log; the results are reported in block
    # order at the end. The slowest start first (minutes of CPU from empty
    # caches, measured 2026-12-07: txp_lso 13, queue 12, the card top's own
    # logic and its instances with other parameters 6, rx_dma 5, rxp 2,
    # rx_steer 1.4, pcie 1.3, the rest 1 or less), so that neither core
    # waits for one long job at the end.
    slow=(txp_lso queue card rx_dma rxp rx_steer pcie)
    for line in "${blocks[@]}"; do
        read -r name tmod tbcpp srcs <<<"$line"
        rank=${#slow[@]}
        for i in "${!slow[@]}"; do [ "${slow[$i]}" = "$name" ] && rank=$i; done
        case $name in
        # The tops' own work only; their sums come after the blocks.
        card) echo "$rank card.prep python3 fpga/syn/synth_card.py --prepare ${common[*]} $srcs" ;;
        card_sys) echo "$rank card_sys.prep python3 fpga/syn/synth_card.py --prepare ${card_sys_syn[*]} ${common[*]} $srcs" ;;
        *) echo "$rank $name fpga/syn/synth.sh $name $tmod ${common[*]} $srcs" ;;
        esac
    done | sort -s -n -k1,1 | cut -d' ' -f2- >"$logs/synth.jobs"
    rm -f "$logs"/*.synth.rc
    # shellcheck disable=SC2016
    xargs -P 2 -L 1 sh -c 'n=$0; "$@" >"'"$logs"'/$n.synth" 2>&1; echo $? >"'"$logs"'/$n.synth.rc"' \
        <"$logs/synth.jobs" &
    synth_pid=$!
fi

# The cpu testbench also runs the firmware (rv32imac) on the core.
st=0
make -s -C firmware fw-rv32 BUILD="$root/build/fw-rv32" >"$logs/fw-rv32.log" 2>&1 || st=$?
result "build the firmware for the cpu testbench (firmware/rv32, rv32imac)" $st "$logs/fw-rv32.log"
export KITE_FW_ELF=$root/build/fw-rv32/kite-fw.elf KITE_FW_HEX=$root/build/fw-rv32/kite-fw.hex

for line in "${blocks[@]}"; do
    read -r name top tbcpp srcs <<<"$line"
    # shellcheck disable=SC2206
    files=("${common[@]}" $srcs)

    st=0
    verilator --lint-only -Wall fpga/rtl/lint.vlt "${files[@]}" --top-module "$top" \
        >"$logs/$name.lint" 2>&1 || st=$?
    result "lint $name" $st "$logs/$name.lint"

    st=0
    abs=()
    for f in "${files[@]}"; do abs+=("$root/$f"); done
    exe=$(fpga/tb/build.sh "$name" "$top" "$root/$tbcpp" "${abs[@]}" 2>"$logs/$name.build") || st=$?
    result "build tb $name" $st "$logs/$name.build"
    if [ $st -ne 0 ]; then continue; fi

    # The run and the --inject run side by side (two cores; the card with
    # its CPU takes minutes).
    st=0 sti=0
    "$exe" --seed "$seed" >"$logs/$name.tb" 2>&1 &
    tb_pid=$!
    "$exe" --seed "$seed" --inject >"$logs/$name.inject" 2>&1 &
    inj_pid=$!
    wait $tb_pid || st=$?
    if wait $inj_pid; then sti=1; fi
    result "tb $name: $(grep -h 'checks,' "$logs/$name.tb" | sed 's/^\[[^]]*\] //')" $st "$logs/$name.tb"
    grep -h 'throughput' "$logs/$name.tb" | sed 's/^/# /' || true
    result "tb-fails $name (an injected mismatch is reported)" $sti "$logs/$name.inject"
done

# The board top: kite_card_sys with the board's blocks around the vendor IP,
# whose ports (and the library cells') fpga/syn/vivado/ip_ports.sv declares.
# Only Vivado can build it (fpga/syn/vivado/build.tcl); lint proves it is
# complete and consistent with the blocks it instantiates.
st=0
# shellcheck disable=SC2046
verilator --lint-only -Wall fpga/rtl/lint.vlt "${common[@]}" \
    $(grep -hE '^(card_sys|pcie_fn|mac_cdc) ' fpga/rtl/blocks.list | awk '{for (i = 4; i <= NF; i++) print $i}') \
    fpga/syn/vivado/ip_ports.sv fpga/rtl/top/kite_top.sv --top-module kite_top >"$logs/top.lint" 2>&1 || st=$?
result "lint top (kite_top, the U250 board top, with the IP's declared ports)" $st "$logs/top.lint"

if [ $quick -eq 0 ]; then
    # xargs's status is that of the jobs, each reported below.
    wait "$synth_pid" || true
    for line in "${blocks[@]}"; do
        read -r name tmod tbcpp srcs <<<"$line"
        if [ "$name" = card ]; then
            # The top uses the blocks' results, so it comes after them.
            st=0
            # shellcheck disable=SC2086
            python3 fpga/syn/synth_card.py "${common[@]}" $srcs >"$logs/card.synth" 2>&1 || st=$?
            result "synth card (yosys synth_xilinx -family xcup, bottom-up: top logic + block instances)" $st \
                "$logs/card.synth"
            continue
        fi
        if [ "$name" = card_sys ]; then
            # The card with its control CPU: the same way, over the card's result.
            st=0
            # shellcheck disable=SC2086
            python3 fpga/syn/synth_card.py "${card_sys_syn[@]}" "${common[@]}" $srcs >"$logs/card_sys.synth" 2>&1 || st=$?
            result "synth card_sys (bottom-up: kite_card, kite_cpu_sys, kite_cpu_io, kite_flash)" $st "$logs/card_sys.synth"
            continue
        fi
        result "synth $name (yosys synth_xilinx -family xcup)" "$(cat "$logs/$name.synth.rc" 2>/dev/null || echo 1)" \
            "$logs/$name.synth"
    done
    st=0
    python3 fpga/syn/report.py >"$logs/resources.txt" 2>&1 || st=$?
    result "resource table (Documentation/hw/rtl-resources.rst)" $st "$logs/resources.txt"
    sed 's/^/# /' "$logs/resources.txt"
    st=0
    python3 fpga/syn/report.py --levels >"$logs/levels.txt" 2>&1 || st=$?
    result "logic depth of every block within its ceiling (fpga/syn/levels.txt)" $st "$logs/levels.txt"
fi

echo "# $n checks, $fails failed, $((SECONDS - t_start)) s"
[ $fails -eq 0 ]
