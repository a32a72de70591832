# kite_mac_fifo clock-domain crossings; scoped to every instance by
#   read_xdc -ref kite_mac_fifo fpga/syn/vivado/kite_mac_fifo.xdc
# (the pattern of Corundum's per-module constraint files). The two clocks
# are asynchronous but must not be cut with set_clock_groups, which would
# also drop the bounds below: Gray-coded pointers and the held handshake bus
# are only safe when their bits' skew stays under one destination period.

set s_clk [get_clocks -of_objects [get_pins -quiet {wp_q_reg[0]/C}]]
set m_clk [get_clocks -of_objects [get_pins -quiet {rp_q_reg[0]/C}]]
set s_per [get_property -min PERIOD $s_clk]
set m_per [get_property -min PERIOD $m_clk]

# Synchronizer flops: placed together, not optimized, MTBF-analyzed.
set_property ASYNC_REG TRUE [get_cells -quiet {rpg_s1_q_reg[*] rpg_s2_q_reg[*] ack_s1_q_reg ack_s2_q_reg}]
set_property ASYNC_REG TRUE [get_cells -quiet {req_s1_q_reg req_s2_q_reg}]

# Read pointer (Gray, steps of one) into the write domain.
set_max_delay -datapath_only -from [get_cells {rpg_g_q_reg[*]}] -to [get_cells {rpg_s1_q_reg[*]}] $s_per
# Commit handshake: toggles each way, and the committed pointer, which is
# held stable from the request until the acknowledge returns (two flops in
# each direction), so one destination period bounds its bits' skew.
set_max_delay -datapath_only -from [get_cells req_q_reg] -to [get_cells req_s1_q_reg] $m_per
set_max_delay -datapath_only -from [get_cells ack_q_reg] -to [get_cells ack_s1_q_reg] $s_per
set_max_delay -datapath_only -from [get_cells {wcx_q_reg[*]}] -to [get_cells {wc_m_q_reg[*]}] $m_per
# Frame RAM: block RAM (true dual port) has no timed path between its write
# and read clocks. Were it built from LUT RAM (a small DEPTH), its read
# register would be: a word is read only after its commit has crossed, at
# least four m cycles after it was written.
set ram_regs [get_cells -quiet {ram_q_reg[*]}]
if {[llength $ram_regs]} {
    set_max_delay -datapath_only -from $s_clk -to $ram_regs [expr {2 * $m_per}]
}
