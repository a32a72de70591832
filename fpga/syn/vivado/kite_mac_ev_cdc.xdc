# kite_mac_ev_cdc clock-domain crossing; scoped to every instance by
#   read_xdc -ref kite_mac_ev_cdc fpga/syn/vivado/kite_mac_ev_cdc.xdc
# (as kite_mac_fifo.xdc). Each event kind's count crosses as a registered
# Gray code, which steps by one bit at most once per source cycle, into a
# two-flop synchronizer. The clocks are asynchronous but must not be cut
# with set_clock_groups, which would also drop the bound below.
#
# The registers sit in the generate loop g_ev, one per event kind
# (g_ev[0].src_cntg_q_reg[3]); the leading "*" takes in that prefix.

set src_clk [get_clocks -of_objects [get_pins -quiet {*src_cntg_q_reg[*]/C}]]
set dst_clk [get_clocks -of_objects [get_pins -quiet {*dst_s1_q_reg[*]/C}]]
set src_per [get_property -min PERIOD $src_clk]
set dst_per [get_property -min PERIOD $dst_clk]

# Synchronizer flops: placed together, not optimized, MTBF-analyzed.
set_property ASYNC_REG TRUE [get_cells -quiet {*dst_s1_q_reg[*] *dst_s2_q_reg[*]}]

# Gray count into the destination. The destination reads the old or the new
# count only while the bits' skew stays under one source period (the count
# may step every source cycle); the destination period as well keeps the
# delay within one sample, as for kite_mac_fifo's read pointer. The count of
# an event kind that is tied off is optimized away: no path, no constraint.
set cntg_regs [get_cells -quiet {*src_cntg_q_reg[*]}]
if {[llength $cntg_regs]} {
    set_max_delay -datapath_only -from $cntg_regs -to [get_cells {*dst_s1_q_reg[*]}] \
        [expr {min($src_per, $dst_per)}]
}
