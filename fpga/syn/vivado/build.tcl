# Kite bitstream build for the AMD Alveo U250 (XCU250-FIGD2104-2L-E): PCIe
# Gen3 x16 integrated block, two QSFP28 ports each on a 100G CMAC.
# Non-project flow; run from the repository root:
#   vivado -mode batch -source fpga/syn/vivado/build.tcl -tclargs [out_dir [ooc]]
# Needs Vivado 2022.2+ with the U250 board files (xilinx.com:au250:part0:1.3)
# and CMAC licence (free, no-charge licence from AMD). Not runnable in CI:
# CI runs yosys instead (fpga/syn/synth.sh); this flow is kept reviewable.
set root [file normalize [file join [file dirname [info script]] .. .. ..]]
set out  [expr {[llength $argv] > 0 ? [lindex $argv 0] : "$root/build/vivado"}]
set part xcu250-figd2104-2L-e
file mkdir $out

create_project -in_memory -part $part
set_property board_part xilinx.com:au250:part0:1.3 [current_project]
set_property target_language Verilog [current_project]

# IP: PCIe, two CMACs (generated out of context, cached in $out/ip).
source [file join [file dirname [info script]] ip.tcl]
kite_create_ips $out/ip

# RTL: generated package first, then the blocks (same list as fpga/check.sh).
read_verilog -sv [glob $root/fpga/rtl/common/*.sv]
foreach line [split [read [open $root/fpga/rtl/blocks.list]] "\n"] {
    if {[string trim $line] eq "" || [string index [string trim $line] 0] eq "#"} continue
    foreach f [lrange $line 3 end] { read_verilog -sv $root/$f }
}
# The board top: the PCIe and CMAC IP, kite_pcie_fn, kite_mac_cdc per port
# and kite_card_sys (the card with its control CPU) with the firmware image
# in its ROM (make -C firmware fw-rv32 BUILD=$root/build/fw-rv32 first).
# With -tclargs <out> ooc, every block is implemented out of context instead.
read_verilog -sv $root/fpga/rtl/top/kite_top.sv
set top [expr {[lindex $argv 1] eq "ooc" ? "" : "kite_top"}]
set rom_hex $root/build/fw-rv32/kite-fw.hex

read_xdc [file join [file dirname [info script]] kite_u250.xdc]
read_xdc -ref kite_mac_fifo [file join [file dirname [info script]] kite_mac_fifo.xdc]
read_xdc -ref kite_mac_ev_cdc [file join [file dirname [info script]] kite_mac_ev_cdc.xdc]

# Out of context, each block at its domain's clock: the per-port datapath at
# the CMAC's 322.27 MHz (rtl.rst "Target and clocks"), the host side at the
# PCIe user clock's 250 MHz, kite_mac_cdc with both.
proc kite_block_clocks {t} {
    switch -- $t {
        kite_rss - kite_mac_crc32 - kite_rxp - kite_txp - kite_txp_lso {
            create_clock -name mac_clk -period 3.103 [get_ports clk_i]
        }
        kite_mac_cdc {
            create_clock -name host_clk -period 4.000 [get_ports host_clk_i]
            create_clock -name mac_clk  -period 3.103 [get_ports mac_clk_i]
        }
        default {
            create_clock -name host_clk -period 4.000 [get_ports clk_i]
        }
    }
}

if {$top eq ""} {
    foreach line [split [read [open $root/fpga/rtl/blocks.list]] "\n"] {
        if {[string trim $line] eq "" || [string index [string trim $line] 0] eq "#"} continue
        set t [lindex $line 1]
        synth_design -top $t -part $part -mode out_of_context -flatten_hierarchy rebuilt
        kite_block_clocks $t
        opt_design; place_design; route_design
        report_utilization    -file $out/$t.util.rpt
        report_timing_summary -file $out/$t.timing.rpt
        report_cdc            -file $out/$t.cdc.rpt
    }
    return
}

if {![file exists $rom_hex]} { error "$rom_hex missing: make -C firmware fw-rv32 BUILD=$root/build/fw-rv32" }
synth_design -top $top -part $part -generic ROM_HEX=\"$rom_hex\"
opt_design
place_design
phys_opt_design
route_design
report_utilization    -file $out/kite.util.rpt
report_timing_summary -file $out/kite.timing.rpt -max_paths 20
write_bitstream -force $out/kite_u250.bit
write_cfgmem -force -format mcs -size 1024 -interface SPIx4 \
    -loadbit "up 0x01002000 $out/kite_u250.bit" $out/kite_u250.mcs
