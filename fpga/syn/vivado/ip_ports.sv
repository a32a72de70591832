// For lint only (fpga/check.sh "lint top"): the ports kite_top connects on
// the generated IP (kite_pcie_ip: pcie4_uscale_plus, PG213; kite_cmac0/1:
// cmac_usplus, PG203; configured in ip.tcl) and on the UltraScale+ library
// cells it uses (UG974), with no behaviour. Vivado reads the generated IP
// and its own cell library instead and never this file. A name or width
// here that differs from the generated core's is a bring-up item
// (Documentation/hw/rtl.rst, "Board top").
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
/* verilator lint_off DECLFILENAME */
/* verilator lint_off UNUSEDPARAM */

module kite_pcie_ip (
  output logic [15:0]  pci_exp_txn,
  output logic [15:0]  pci_exp_txp,
  input  logic [15:0]  pci_exp_rxn,
  input  logic [15:0]  pci_exp_rxp,
  input  logic         sys_clk,
  input  logic         sys_clk_gt,
  input  logic         sys_reset,
  output logic         user_clk,
  output logic         user_reset,
  output logic         user_lnk_up,
  input  logic [511:0] s_axis_rq_tdata,
  input  logic [15:0]  s_axis_rq_tkeep,
  input  logic         s_axis_rq_tlast,
  input  logic [136:0] s_axis_rq_tuser,
  input  logic         s_axis_rq_tvalid,
  output logic         s_axis_rq_tready,
  output logic [511:0] m_axis_rc_tdata,
  output logic [15:0]  m_axis_rc_tkeep,
  output logic         m_axis_rc_tlast,
  output logic [160:0] m_axis_rc_tuser,
  output logic         m_axis_rc_tvalid,
  input  logic         m_axis_rc_tready,
  output logic [511:0] m_axis_cq_tdata,
  output logic [15:0]  m_axis_cq_tkeep,
  output logic         m_axis_cq_tlast,
  output logic [182:0] m_axis_cq_tuser,
  output logic         m_axis_cq_tvalid,
  input  logic         m_axis_cq_tready,
  input  logic [511:0] s_axis_cc_tdata,
  input  logic [15:0]  s_axis_cc_tkeep,
  input  logic         s_axis_cc_tlast,
  input  logic [80:0]  s_axis_cc_tuser,
  input  logic         s_axis_cc_tvalid,
  output logic         s_axis_cc_tready,
  input  logic [1:0]   pcie_cq_np_req,
  output logic [1:0]   cfg_max_payload,
  output logic [2:0]   cfg_max_read_req,
  input  logic [9:0]   cfg_mgmt_addr,
  input  logic [7:0]   cfg_mgmt_function_number,
  input  logic         cfg_mgmt_write,
  input  logic [31:0]  cfg_mgmt_write_data,
  input  logic [3:0]   cfg_mgmt_byte_enable,
  input  logic         cfg_mgmt_read,
  output logic [31:0]  cfg_mgmt_read_data,
  output logic         cfg_mgmt_read_write_done,
  input  logic         cfg_mgmt_debug_access,
  output logic [3:0]   cfg_flr_in_process,
  input  logic [3:0]   cfg_flr_done,
  output logic [251:0] cfg_vf_flr_in_process,
  input  logic [7:0]   cfg_vf_flr_func_num,
  input  logic         cfg_vf_flr_done,
  input  logic [3:0]   cfg_interrupt_int,
  input  logic [3:0]   cfg_interrupt_pending,
  output logic [3:0]   cfg_interrupt_msix_enable,
  output logic [3:0]   cfg_interrupt_msix_mask,
  output logic [251:0] cfg_interrupt_msix_vf_enable,
  output logic [251:0] cfg_interrupt_msix_vf_mask,
  input  logic [63:0]  cfg_interrupt_msix_address,
  input  logic [31:0]  cfg_interrupt_msix_data,
  input  logic         cfg_interrupt_msix_int,
  input  logic [1:0]   cfg_interrupt_msix_vec_pending,
  output logic         cfg_interrupt_msi_sent,
  output logic         cfg_interrupt_msi_fail,
  input  logic [7:0]   cfg_interrupt_msi_function_number,
  input  logic [63:0]  cfg_dsn,
  input  logic         cfg_power_state_change_ack,
  input  logic         cfg_err_cor_in,
  input  logic         cfg_err_uncor_in,
  input  logic         cfg_link_training_enable,
  input  logic         cfg_config_space_enable,
  input  logic         cfg_req_pm_transition_l23_ready,
  input  logic         cfg_hot_reset_in,
  input  logic [7:0]   cfg_ds_port_number,
  input  logic [7:0]   cfg_ds_bus_number,
  input  logic [4:0]   cfg_ds_device_number,
  input  logic         cfg_msg_transmit,
  input  logic [2:0]   cfg_msg_transmit_type,
  input  logic [31:0]  cfg_msg_transmit_data,
  input  logic [2:0]   cfg_fc_sel,
  input  logic         cfg_pm_aspm_l1_entry_reject,
  input  logic         cfg_pm_aspm_tx_l0s_entry_disable
);
endmodule

// Both CMACs have the same ports (ip.tcl: CAUI-4, RS-FEC, AXIS, no AXI4-Lite,
// TX and RX flow control).
`define KITE_CMAC_DECL(name) \
module name ( \
  input  logic [3:0]   gt_rxp_in, \
  input  logic [3:0]   gt_rxn_in, \
  output logic [3:0]   gt_txp_out, \
  output logic [3:0]   gt_txn_out, \
  input  logic         gt_ref_clk_p, \
  input  logic         gt_ref_clk_n, \
  output logic         gt_txusrclk2, \
  input  logic [11:0]  gt_loopback_in, \
  input  logic         gtwiz_reset_tx_datapath, \
  input  logic         gtwiz_reset_rx_datapath, \
  input  logic         sys_reset, \
  input  logic         init_clk, \
  input  logic         rx_clk, \
  output logic         usr_tx_reset, \
  output logic         usr_rx_reset, \
  input  logic         core_tx_reset, \
  input  logic         core_rx_reset, \
  input  logic         core_drp_reset, \
  input  logic         drp_clk, \
  input  logic [9:0]   drp_addr, \
  input  logic [15:0]  drp_di, \
  input  logic         drp_en, \
  input  logic         drp_we, \
  output logic         rx_axis_tvalid, \
  output logic [511:0] rx_axis_tdata, \
  output logic         rx_axis_tlast, \
  output logic [63:0]  rx_axis_tkeep, \
  output logic         rx_axis_tuser, \
  output logic         tx_axis_tready, \
  input  logic         tx_axis_tvalid, \
  input  logic [511:0] tx_axis_tdata, \
  input  logic         tx_axis_tlast, \
  input  logic [63:0]  tx_axis_tkeep, \
  input  logic         tx_axis_tuser, \
  input  logic [55:0]  tx_preamblein, \
  input  logic         ctl_rx_enable, \
  input  logic         ctl_rx_force_resync, \
  input  logic         ctl_rx_test_pattern, \
  input  logic         ctl_rsfec_ieee_error_indication_mode, \
  input  logic         ctl_rx_rsfec_enable, \
  input  logic         ctl_rx_rsfec_enable_correction, \
  input  logic         ctl_rx_rsfec_enable_indication, \
  input  logic         ctl_tx_enable, \
  input  logic         ctl_tx_send_rfi, \
  input  logic         ctl_tx_send_lfi, \
  input  logic         ctl_tx_send_idle, \
  input  logic         ctl_tx_test_pattern, \
  input  logic         ctl_tx_rsfec_enable, \
  input  logic [8:0]   ctl_tx_pause_enable, \
  input  logic [8:0]   ctl_tx_pause_req, \
  input  logic         ctl_tx_resend_pause, \
  input  logic [15:0]  ctl_tx_pause_quanta8, \
  input  logic [15:0]  ctl_tx_pause_refresh_timer8, \
  input  logic [47:0]  ctl_tx_da_gpp, \
  input  logic [47:0]  ctl_tx_sa_gpp, \
  input  logic [15:0]  ctl_tx_ethertype_gpp, \
  input  logic [15:0]  ctl_tx_opcode_gpp, \
  input  logic [8:0]   ctl_rx_pause_enable, \
  input  logic         ctl_rx_enable_gcp, \
  input  logic         ctl_rx_check_mcast_gcp, \
  input  logic         ctl_rx_check_etype_gcp, \
  input  logic         ctl_rx_check_opcode_gcp, \
  input  logic [47:0]  ctl_rx_pause_da_mcast, \
  input  logic [15:0]  ctl_rx_etype_gcp, \
  input  logic [15:0]  ctl_rx_opcode_min_gcp, \
  input  logic [15:0]  ctl_rx_opcode_max_gcp, \
  input  logic         ctl_rx_forward_control, \
  input  logic         ctl_rx_check_ack, \
  input  logic [8:0]   ctl_rx_pause_ack, \
  output logic         stat_rx_aligned, \
  output logic [2:0]   stat_rx_bad_fcs, \
  output logic         stat_rx_packet_bad_fcs, \
  output logic [2:0]   stat_rx_undersize, \
  output logic [2:0]   stat_rx_fragment, \
  output logic         stat_rx_oversize, \
  output logic         stat_rx_toolong, \
  output logic         stat_tx_multicast, \
  output logic         stat_tx_broadcast \
); \
endmodule

`KITE_CMAC_DECL(kite_cmac0)
`KITE_CMAC_DECL(kite_cmac1)
`undef KITE_CMAC_DECL

module IBUFDS (
  input  logic I,
  input  logic IB,
  output logic O
);
endmodule

module IBUFDS_GTE4 #(
  parameter logic [1:0] REFCLK_HROW_CK_SEL = 2'b00
) (
  input  logic I,
  input  logic IB,
  input  logic CEB,
  output logic O,
  output logic ODIV2
);
endmodule

module BUFG (
  input  logic I,
  output logic O
);
endmodule

module MMCME4_BASE #(
  parameter real CLKIN1_PERIOD    = 0.0,
  parameter real CLKFBOUT_MULT_F  = 5.0,
  parameter int  DIVCLK_DIVIDE    = 1,
  parameter real CLKOUT0_DIVIDE_F = 1.0
) (
  input  logic CLKIN1,
  input  logic CLKFBIN,
  input  logic RST,
  input  logic PWRDWN,
  output logic CLKOUT0,
  output logic CLKFBOUT,
  output logic LOCKED
);
endmodule

module DNA_PORTE2 (
  input  logic CLK,
  input  logic DIN,
  input  logic READ,
  input  logic SHIFT,
  output logic DOUT
);
endmodule


// The configuration pins after startup (UG570 "STARTUPE3"): CCLK, FCS_B
// and D00..D03 of the SPI flash the bitstream loaded from.
module STARTUPE3 #(
  parameter         PROG_USR      = "FALSE",
  parameter real    SIM_CCLK_FREQ = 0.0
) (
  output logic       CFGCLK,
  output logic       CFGMCLK,
  output logic [3:0] DI,
  output logic       EOS,
  output logic       PREQ,
  input  logic [3:0] DO,
  input  logic [3:0] DTS,
  input  logic       FCSBO,
  input  logic       FCSBTS,
  input  logic       GSR,
  input  logic       GTS,
  input  logic       KEYCLEARB,
  input  logic       PACK,
  input  logic       USRCCLKO,
  input  logic       USRCCLKTS,
  input  logic       USRDONEO,
  input  logic       USRDONETS
);
endmodule

/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on DECLFILENAME */
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDSIGNAL */
