// Kite on the AMD Alveo U250 (XCU250-FIGD2104-2L-E): the board top of the
// bitstream (fpga/syn/vivado/build.tcl). Around kite_card_sys (the card with
// its control CPU) it puts what belongs to the board:
//
//   PCIe    kite_pcie_ip (pcie4_uscale_plus, Gen3 x16, 512-bit interfaces at
//           the 250 MHz user clock, fpga/syn/vivado/ip.tcl): the card's host
//           clock and reset; kite_pcie_fn reads the host's NumVFs and
//           Extended Tag Field Enable (the card's 8-bit read tags) through
//           cfg_mgmt and turns the core's FLR signals into the card's
//           function resets and back; the card's MSI-X tables (kite_msix, in
//           kite_card_sys) drive the core's external-table interrupt port.
//   ports   per QSFP28 cage a 100G CMAC (kite_cmac0/1, RS-FEC, 512-bit AXIS at
//           the GT user clock, 322.27 MHz) and kite_mac_cdc between it and
//           the card: frame FIFOs both ways, RX frames the CMAC flags bad
//           discarded, the CMAC's statistics pulses crossed to the card's
//           mac_ev_i; the card's rx_xoff (PAUSE) to the CMAC's global pause
//           request, the CMAC's RX alignment as the port's link.
//   straps  the serial number from the device DNA (DNA_PORTE2), the base MAC
//           address from it (locally administered: the board's own MACs
//           are behind its management controller, not read here).
//   flash   the configuration flash (MT25QU01G) through STARTUPE3 for
//           kite_flash (in kite_card_sys): the firmware's control block
//           and image banks live in its top 8 MiB.
//   clocks  a 125 MHz free-running clock from the board's 300 MHz oscillator
//           for the CMACs' init/DRP clock and the DNA read.
//
// The IP's port names are those of PG213 and PG203 for the configuration in
// ip.tcl; fpga/syn/vivado/ip_ports.sv declares the ones used here so the top
// can be linted without Vivado. Documentation/hw/rtl.rst ("Board top") lists
// what must be checked against the generated cores at bring-up.
module kite_top #(
  parameter              ROM_HEX  = "",               // build.tcl: the firmware's hex image
  parameter logic [23:0] MAC_OUI  = 24'h02_4b_49,     // locally administered "KI"
  parameter logic [1:0]  QSFP_FS  = 2'b01,            // SI5335 select: 156.25 MHz (UG1289)
  parameter logic [7:0]  VF_FN_BASE = 8'd4            // ip.tcl PF0_SRIOV_FIRST_VF_OFFSET
) (
  input  logic        pcie_refclk_p,
  input  logic        pcie_refclk_n,
  input  logic        pcie_perst_n,
  input  logic [15:0] pcie_rx_p,
  input  logic [15:0] pcie_rx_n,
  output logic [15:0] pcie_tx_p,
  output logic [15:0] pcie_tx_n,

  input  logic        sysclk_300_p,
  input  logic        sysclk_300_n,

  input  logic        qsfp0_refclk_p,
  input  logic        qsfp0_refclk_n,
  input  logic [3:0]  qsfp0_rx_p,
  input  logic [3:0]  qsfp0_rx_n,
  output logic [3:0]  qsfp0_tx_p,
  output logic [3:0]  qsfp0_tx_n,
  output logic        qsfp0_modsell,
  output logic        qsfp0_resetl,
  output logic        qsfp0_lpmode,
  input  logic        qsfp0_modprsl,
  input  logic        qsfp0_intl,
  output logic        qsfp0_refclk_reset,
  output logic [1:0]  qsfp0_fs,

  input  logic        qsfp1_refclk_p,
  input  logic        qsfp1_refclk_n,
  input  logic [3:0]  qsfp1_rx_p,
  input  logic [3:0]  qsfp1_rx_n,
  output logic [3:0]  qsfp1_tx_p,
  output logic [3:0]  qsfp1_tx_n,
  output logic        qsfp1_modsell,
  output logic        qsfp1_resetl,
  output logic        qsfp1_lpmode,
  input  logic        qsfp1_modprsl,
  input  logic        qsfp1_intl,
  output logic        qsfp1_refclk_reset,
  output logic [1:0]  qsfp1_fs
);

  localparam int unsigned NVF    = 16;
  localparam int unsigned FN_W   = 5;
  localparam int unsigned NPORT  = 2;
  localparam int unsigned NEV    = 8;

  // ------------------------------------------------------------ init clock
  logic sysclk_300, init_clk_mmcm, init_clk, mmcm_fb, mmcm_locked;

  IBUFDS u_sysclk_buf (.I(sysclk_300_p), .IB(sysclk_300_n), .O(sysclk_300));

  // 300 MHz x 4 = 1200 MHz VCO, / 9.6 = 125 MHz (the GT_DRP_CLK of ip.tcl).
  MMCME4_BASE #(
    .CLKIN1_PERIOD    (3.333),
    .CLKFBOUT_MULT_F  (4.0),
    .DIVCLK_DIVIDE    (1),
    .CLKOUT0_DIVIDE_F (9.6)
  ) u_mmcm (
    .CLKIN1(sysclk_300), .CLKFBIN(mmcm_fb), .RST(1'b0), .PWRDWN(1'b0),
    .CLKOUT0(init_clk_mmcm), .CLKFBOUT(mmcm_fb), .LOCKED(mmcm_locked)
  );
  BUFG u_init_bufg (.I(init_clk_mmcm), .O(init_clk));

  // After lock: the QSFP reference clock generators leave reset, then the
  // CMACs (their GTs need the reference clock running first).
  logic [1:0]  init_lock_q;
  logic [11:0] init_cnt_q;
  logic        refclk_rst_q, cmac_rst_q;
  always_ff @(posedge init_clk or negedge mmcm_locked) begin
    if (!mmcm_locked) begin
      init_lock_q  <= '0;
      init_cnt_q   <= '0;
      refclk_rst_q <= 1'b1;
      cmac_rst_q   <= 1'b1;
    end else begin
      init_lock_q <= {init_lock_q[0], 1'b1};
      if (init_lock_q[1] && !(&init_cnt_q)) init_cnt_q <= init_cnt_q + 1'b1;
      if (init_cnt_q[10]) refclk_rst_q <= 1'b0;
      if (&init_cnt_q) cmac_rst_q <= 1'b0;
    end
  end

  assign qsfp0_refclk_reset = refclk_rst_q;
  assign qsfp1_refclk_reset = refclk_rst_q;
  assign qsfp0_fs           = QSFP_FS;
  assign qsfp1_fs           = QSFP_FS;
  // Modules out of reset, full power, not selected (no I2C from here).
  assign qsfp0_resetl  = 1'b1;
  assign qsfp1_resetl  = 1'b1;
  assign qsfp0_lpmode  = 1'b0;
  assign qsfp1_lpmode  = 1'b0;
  assign qsfp0_modsell = 1'b1;
  assign qsfp1_modsell = 1'b1;

  // -------------------------------------------------------------- serial
  // The 96-bit device DNA, read once after lock; the card stays in reset
  // until it is known, so the firmware boots with its serial and MACs.
  typedef enum logic [1:0] {D_READ, D_SHIFT, D_DONE} dna_state_e;
  dna_state_e dna_st_q;
  logic [95:0] dna_q;
  logic [6:0]  dna_n_q;
  logic        dna_dout;
  DNA_PORTE2 u_dna (
    .CLK(init_clk), .DIN(1'b0), .READ(dna_st_q == D_READ && init_lock_q[1]),
    .SHIFT(dna_st_q == D_SHIFT), .DOUT(dna_dout)
  );
  always_ff @(posedge init_clk or negedge mmcm_locked) begin
    if (!mmcm_locked) begin
      dna_st_q <= D_READ;
      dna_q    <= '0;
      dna_n_q  <= '0;
    end else begin
      unique case (dna_st_q)
        D_READ:  if (init_lock_q[1]) dna_st_q <= D_SHIFT;
        D_SHIFT: begin
          dna_q   <= {dna_dout, dna_q[95:1]};
          dna_n_q <= dna_n_q + 1'b1;
          if (dna_n_q == 7'd95) dna_st_q <= D_DONE;
        end
        default: ;
      endcase
    end
  end

  // ---------------------------------------------------------------- PCIe
  logic        pcie_refclk, pcie_refclk_gt;
  logic        clk, user_reset, user_lnk_up;
  IBUFDS_GTE4 #(.REFCLK_HROW_CK_SEL(2'b00)) u_pcie_refclk (
    .I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(pcie_refclk_gt), .ODIV2(pcie_refclk)
  );

  // The card's reset: the core's user reset (PERST#, hot reset, link down)
  // and the DNA not yet read (its done flag crosses; the value is static
  // by then).
  // (Flip-flops without reset power up 0: the card starts in reset.)
  logic [2:0]  host_dna_q;
  logic [1:0]  host_run_q;
  logic        rst_n;
  logic [63:0] serial_q;
  logic [47:0] mac_base_q;
  always_ff @(posedge clk) begin
    host_dna_q <= {host_dna_q[1:0], dna_st_q == D_DONE};
    host_run_q <= {host_run_q[0], !user_reset && host_dna_q[2]};
    if (host_dna_q[1] && !host_dna_q[2]) begin
      serial_q   <= {dna_q[95:64] ^ dna_q[31:0], dna_q[63:32]};
      mac_base_q <= {MAC_OUI, dna_q[23:0] ^ dna_q[47:24] ^ dna_q[71:48] ^ dna_q[95:72]};
    end
  end
  assign rst_n = host_run_q[1];

  logic [511:0] rq_tdata, rc_tdata, cq_tdata, cc_tdata;
  logic [15:0]  rq_tkeep, rc_tkeep, cq_tkeep, cc_tkeep;
  logic         rq_tlast, rc_tlast, cq_tlast, cc_tlast;
  logic [136:0] rq_tuser;
  logic [160:0] rc_tuser;
  logic [182:0] cq_tuser;
  logic [80:0]  cc_tuser;
  logic         rq_tvalid, rc_tvalid, cq_tvalid, cc_tvalid;
  logic         rq_tready, rc_tready, cq_tready, cc_tready;
  logic [1:0]   cfg_max_payload;
  logic [2:0]   cfg_max_read_req;
  logic [9:0]   cfg_mgmt_addr;
  logic [7:0]   cfg_mgmt_fn;
  logic         cfg_mgmt_write, cfg_mgmt_read, cfg_mgmt_done;
  logic [31:0]  cfg_mgmt_wdata, cfg_mgmt_rdata;
  logic [3:0]   cfg_mgmt_be;
  logic [3:0]   cfg_flr_in_process, cfg_flr_done;
  logic [251:0] cfg_vf_flr_in_process;
  logic [7:0]   cfg_vf_flr_func_num;
  logic         cfg_vf_flr_done;
  logic [3:0]   msix_enable, msix_mask;
  logic [251:0] msix_vf_enable, msix_vf_mask;
  logic [63:0]  msix_address;
  logic [31:0]  msix_data;
  logic         msix_int, msi_sent, msi_fail;
  logic [7:0]   msi_fn;

  kite_pcie_ip u_pcie (
    .pci_exp_txn(pcie_tx_n), .pci_exp_txp(pcie_tx_p), .pci_exp_rxn(pcie_rx_n), .pci_exp_rxp(pcie_rx_p),
    .sys_clk(pcie_refclk), .sys_clk_gt(pcie_refclk_gt), .sys_reset(pcie_perst_n),
    .user_clk(clk), .user_reset(user_reset), .user_lnk_up(user_lnk_up),
    .s_axis_rq_tdata(rq_tdata), .s_axis_rq_tkeep(rq_tkeep), .s_axis_rq_tlast(rq_tlast),
    .s_axis_rq_tuser(rq_tuser), .s_axis_rq_tvalid(rq_tvalid), .s_axis_rq_tready(rq_tready),
    .m_axis_rc_tdata(rc_tdata), .m_axis_rc_tkeep(rc_tkeep), .m_axis_rc_tlast(rc_tlast),
    .m_axis_rc_tuser(rc_tuser), .m_axis_rc_tvalid(rc_tvalid), .m_axis_rc_tready(rc_tready),
    .m_axis_cq_tdata(cq_tdata), .m_axis_cq_tkeep(cq_tkeep), .m_axis_cq_tlast(cq_tlast),
    .m_axis_cq_tuser(cq_tuser), .m_axis_cq_tvalid(cq_tvalid), .m_axis_cq_tready(cq_tready),
    .s_axis_cc_tdata(cc_tdata), .s_axis_cc_tkeep(cc_tkeep), .s_axis_cc_tlast(cc_tlast),
    .s_axis_cc_tuser(cc_tuser), .s_axis_cc_tvalid(cc_tvalid), .s_axis_cc_tready(cc_tready),
    // kite_pcie takes every non-posted request as it comes.
    .pcie_cq_np_req(2'b01),
    .cfg_max_payload(cfg_max_payload), .cfg_max_read_req(cfg_max_read_req),
    .cfg_mgmt_addr(cfg_mgmt_addr), .cfg_mgmt_function_number(cfg_mgmt_fn), .cfg_mgmt_write(cfg_mgmt_write),
    .cfg_mgmt_write_data(cfg_mgmt_wdata), .cfg_mgmt_byte_enable(cfg_mgmt_be), .cfg_mgmt_read(cfg_mgmt_read),
    .cfg_mgmt_read_data(cfg_mgmt_rdata), .cfg_mgmt_read_write_done(cfg_mgmt_done), .cfg_mgmt_debug_access(1'b0),
    .cfg_flr_in_process(cfg_flr_in_process), .cfg_flr_done(cfg_flr_done),
    .cfg_vf_flr_in_process(cfg_vf_flr_in_process), .cfg_vf_flr_func_num(cfg_vf_flr_func_num),
    .cfg_vf_flr_done(cfg_vf_flr_done),
    .cfg_interrupt_int(4'd0), .cfg_interrupt_pending(4'd0),
    .cfg_interrupt_msix_enable(msix_enable), .cfg_interrupt_msix_mask(msix_mask),
    .cfg_interrupt_msix_vf_enable(msix_vf_enable), .cfg_interrupt_msix_vf_mask(msix_vf_mask),
    .cfg_interrupt_msix_address(msix_address), .cfg_interrupt_msix_data(msix_data),
    .cfg_interrupt_msix_int(msix_int), .cfg_interrupt_msix_vec_pending(2'b00),
    .cfg_interrupt_msi_sent(msi_sent), .cfg_interrupt_msi_fail(msi_fail),
    .cfg_interrupt_msi_function_number(msi_fn),
    .cfg_dsn(serial_q), .cfg_power_state_change_ack(1'b1),
    .cfg_err_cor_in(1'b0), .cfg_err_uncor_in(1'b0),
    .cfg_link_training_enable(1'b1), .cfg_config_space_enable(1'b1),
    .cfg_req_pm_transition_l23_ready(1'b0), .cfg_hot_reset_in(1'b0),
    .cfg_ds_port_number(8'd0), .cfg_ds_bus_number(8'd0), .cfg_ds_device_number(5'd0),
    .cfg_msg_transmit(1'b0), .cfg_msg_transmit_type(3'd0), .cfg_msg_transmit_data(32'd0),
    .cfg_fc_sel(3'd0), .cfg_pm_aspm_l1_entry_reject(1'b0), .cfg_pm_aspm_tx_l0s_entry_disable(1'b0)
  );

  logic [FN_W-1:0] num_vfs;
  logic [NVF:0]    flr, flr_done;
  logic            ext_tag;
  kite_pcie_fn #(.NVF(NVF), .FN_W(FN_W)) u_fn (
    .clk_i(clk), .rst_ni(rst_n),
    .cfg_mgmt_addr_o(cfg_mgmt_addr), .cfg_mgmt_function_number_o(cfg_mgmt_fn),
    .cfg_mgmt_write_o(cfg_mgmt_write), .cfg_mgmt_write_data_o(cfg_mgmt_wdata),
    .cfg_mgmt_byte_enable_o(cfg_mgmt_be), .cfg_mgmt_read_o(cfg_mgmt_read),
    .cfg_mgmt_read_data_i(cfg_mgmt_rdata), .cfg_mgmt_read_write_done_i(cfg_mgmt_done),
    .cfg_flr_in_process_i(cfg_flr_in_process), .cfg_flr_done_o(cfg_flr_done),
    .cfg_vf_flr_in_process_i(cfg_vf_flr_in_process), .cfg_vf_flr_func_num_o(cfg_vf_flr_func_num),
    .cfg_vf_flr_done_o(cfg_vf_flr_done),
    .num_vfs_o(num_vfs), .ext_tag_o(ext_tag), .flr_o(flr), .flr_done_i(flr_done)
  );

  // ------------------------------------------------------------ MAC ports
  logic [NPORT-1:0]       tx_tvalid, tx_tready, tx_tlast, rx_tvalid, rx_tready, rx_tlast, rx_xoff;
  logic [NPORT*512-1:0]   tx_tdata, rx_tdata;
  logic [NPORT*64-1:0]    tx_tkeep, rx_tkeep;
  logic [NPORT*NEV-1:0]   mac_ev;
  logic [NPORT-1:0]       link;
  logic [NPORT-1:0]       rx_fifo_drop, tx_fifo_drop;

  logic [NPORT-1:0][3:0]  gt_rx_p, gt_rx_n, gt_tx_p, gt_tx_n;
  logic [NPORT-1:0]       gt_ref_p, gt_ref_n;
  assign gt_rx_p  = {qsfp1_rx_p, qsfp0_rx_p};
  assign gt_rx_n  = {qsfp1_rx_n, qsfp0_rx_n};
  assign {qsfp1_tx_p, qsfp0_tx_p} = gt_tx_p;
  assign {qsfp1_tx_n, qsfp0_tx_n} = gt_tx_n;
  assign gt_ref_p = {qsfp1_refclk_p, qsfp0_refclk_p};
  assign gt_ref_n = {qsfp1_refclk_n, qsfp0_refclk_n};

  // Unused board inputs (module presence and interrupts are the management
  // controller's).
  logic unused_qsfp;
  assign unused_qsfp = ^{qsfp0_modprsl, qsfp0_intl, qsfp1_modprsl, qsfp1_intl, user_lnk_up,
                         rx_fifo_drop, tx_fifo_drop};

  for (genvar p = 0; p < NPORT; p++) begin : g_port
    logic         mac_clk, tx_rst, rx_rst;
    logic [1:0]   mac_rst_q, cdc_rst_q;
    logic         mac_rst_n, cdc_rst_n, mac_any_rst, cdc_any_rst_n;
    logic         c_tx_tready, c_tx_tvalid, c_tx_tlast;
    logic [511:0] c_tx_tdata, c_rx_tdata;
    logic [63:0]  c_tx_tkeep, c_rx_tkeep;
    logic         c_rx_tvalid, c_rx_tlast, c_rx_tuser;
    logic         aligned, aligned_q;
    logic [1:0]   xoff_q;
    logic [2:0]   st_rx_bad_fcs, st_rx_undersize, st_rx_fragment;
    logic         st_rx_pkt_bad_fcs, st_rx_oversize, st_rx_toolong, st_tx_mcast, st_tx_bcast;
    logic [NEV-1:0] ev;
    logic [1:0]   link_q;
    logic [47:0]  port_mac;

    // The CMAC's TX and RX user interfaces both run on its TX user clock
    // (rx_clk driven from gt_txusrclk2, PG203), one MAC clock per port.
    // kite_mac_cdc's two sides must be reset together (its FIFO pointers
    // and event counts start at zero on both): a reset of either side (the
    // CMAC's, or the card's) resets both, asserted at once and released
    // through two flip-flops in each clock.
    assign mac_any_rst = tx_rst || rx_rst || !rst_n;
    always_ff @(posedge mac_clk or posedge mac_any_rst) begin
      if (mac_any_rst) mac_rst_q <= '0;
      else mac_rst_q <= {mac_rst_q[0], 1'b1};
    end
    assign mac_rst_n     = mac_rst_q[1];
    assign cdc_any_rst_n = rst_n && mac_rst_n;
    always_ff @(posedge clk or negedge cdc_any_rst_n) begin
      if (!cdc_any_rst_n) cdc_rst_q <= '0;
      else cdc_rst_q <= {cdc_rst_q[0], 1'b1};
    end
    assign cdc_rst_n = cdc_rst_q[1];

    always_ff @(posedge mac_clk or negedge mac_rst_n) begin
      if (!mac_rst_n) begin
        aligned_q <= 1'b0;
        xoff_q    <= '0;
      end else begin
        aligned_q <= aligned;
        xoff_q    <= {xoff_q[0], rx_xoff[p]};   // level, synchronized
      end
    end

    // mac_ev_i per port: 0 rx_runt, 1 rx_oversize, 2 rx_bad_fcs, 3 link
    // change, 6 tx_multicast, 7 tx_broadcast (kite_card's counter slots).
    // A 512-bit beat at 322 MHz ends at most one frame, so each is at most
    // one event per MAC cycle.
    assign ev = {st_tx_bcast, st_tx_mcast, 2'b00, aligned != aligned_q, st_rx_pkt_bad_fcs,
                 st_rx_oversize || st_rx_toolong, |{st_rx_undersize, st_rx_fragment}};

    logic tx_m_user, rx_m_user;   // no sideband on either side
    logic unused_st;
    assign unused_st = ^{st_rx_bad_fcs, tx_m_user, rx_m_user};

    kite_mac_cdc #(.NEV(NEV)) u_cdc (
      .host_clk_i(clk), .host_rst_ni(cdc_rst_n), .mac_clk_i(mac_clk), .mac_rst_ni(mac_rst_n),
      .tx_s_valid_i(tx_tvalid[p]), .tx_s_ready_o(tx_tready[p]), .tx_s_data_i(tx_tdata[512*p +: 512]),
      .tx_s_keep_i(tx_tkeep[64*p +: 64]), .tx_s_last_i(tx_tlast[p]), .tx_s_user_i(1'b0), .tx_s_bad_i(1'b0),
      .tx_drop_o(tx_fifo_drop[p]),
      .tx_m_valid_o(c_tx_tvalid), .tx_m_ready_i(c_tx_tready), .tx_m_data_o(c_tx_tdata), .tx_m_keep_o(c_tx_tkeep),
      .tx_m_last_o(c_tx_tlast), .tx_m_user_o(tx_m_user),
      .rx_s_valid_i(c_rx_tvalid), .rx_s_data_i(c_rx_tdata), .rx_s_keep_i(c_rx_tkeep), .rx_s_last_i(c_rx_tlast),
      .rx_s_user_i(1'b0), .rx_s_bad_i(c_rx_tlast && c_rx_tuser),
      .rx_m_valid_o(rx_tvalid[p]), .rx_m_ready_i(rx_tready[p]), .rx_m_data_o(rx_tdata[512*p +: 512]),
      .rx_m_keep_o(rx_tkeep[64*p +: 64]), .rx_m_last_o(rx_tlast[p]), .rx_m_user_o(rx_m_user),
      .rx_drop_o(rx_fifo_drop[p]),
      .mac_ev_i(ev), .host_ev_o(mac_ev[NEV*p +: NEV])
    );

    always_ff @(posedge clk or negedge rst_n) begin
      if (!rst_n) link_q <= '0;
      else link_q <= {link_q[0], aligned};
    end
    assign link[p] = link_q[1];

    // The pause frames' source address: the port's MAC (the firmware's
    // base + port; the CMAC takes it statically).
    assign port_mac = mac_base_q + 48'(p);

    // The two CMACs are two IP instances (each bound to its site in
    // ip.tcl); their connections are the same.
`define KITE_CMAC_PORTS \
      .gt_rxp_in(gt_rx_p[p]), .gt_rxn_in(gt_rx_n[p]), .gt_txp_out(gt_tx_p[p]), .gt_txn_out(gt_tx_n[p]), \
      .gt_ref_clk_p(gt_ref_p[p]), .gt_ref_clk_n(gt_ref_n[p]), .gt_txusrclk2(mac_clk), \
      .gt_loopback_in(12'd0), .gtwiz_reset_tx_datapath(1'b0), .gtwiz_reset_rx_datapath(1'b0), \
      .sys_reset(cmac_rst_q), .init_clk(init_clk), .rx_clk(mac_clk), \
      .usr_tx_reset(tx_rst), .usr_rx_reset(rx_rst), \
      .core_tx_reset(1'b0), .core_rx_reset(1'b0), .core_drp_reset(1'b0), .drp_clk(init_clk), \
      .drp_addr(10'd0), .drp_di(16'd0), .drp_en(1'b0), .drp_we(1'b0), \
      .rx_axis_tvalid(c_rx_tvalid), .rx_axis_tdata(c_rx_tdata), .rx_axis_tlast(c_rx_tlast), \
      .rx_axis_tkeep(c_rx_tkeep), .rx_axis_tuser(c_rx_tuser), \
      .tx_axis_tready(c_tx_tready), .tx_axis_tvalid(c_tx_tvalid), .tx_axis_tdata(c_tx_tdata), \
      .tx_axis_tlast(c_tx_tlast), .tx_axis_tkeep(c_tx_tkeep), .tx_axis_tuser(1'b0), .tx_preamblein(56'd0), \
      .ctl_rx_enable(1'b1), .ctl_rx_force_resync(1'b0), .ctl_rx_test_pattern(1'b0), \
      .ctl_rsfec_ieee_error_indication_mode(1'b0), .ctl_rx_rsfec_enable(1'b1), \
      .ctl_rx_rsfec_enable_correction(1'b1), .ctl_rx_rsfec_enable_indication(1'b1), \
      .ctl_tx_enable(aligned_q), .ctl_tx_send_rfi(!aligned_q), .ctl_tx_send_lfi(1'b0), \
      .ctl_tx_send_idle(1'b0), .ctl_tx_test_pattern(1'b0), .ctl_tx_rsfec_enable(1'b1), \
      .ctl_tx_pause_enable(9'h100), .ctl_tx_pause_req({xoff_q[1], 8'h00}), .ctl_tx_resend_pause(1'b0), \
      .ctl_tx_pause_quanta8(16'hffff), .ctl_tx_pause_refresh_timer8(16'h7fff), \
      .ctl_tx_da_gpp(48'h0180_c200_0001), .ctl_tx_sa_gpp(port_mac), .ctl_tx_ethertype_gpp(16'h8808), \
      .ctl_tx_opcode_gpp(16'h0001), \
      .ctl_rx_pause_enable(9'h100), .ctl_rx_enable_gcp(1'b1), .ctl_rx_check_mcast_gcp(1'b1), \
      .ctl_rx_check_etype_gcp(1'b1), .ctl_rx_check_opcode_gcp(1'b1), \
      .ctl_rx_pause_da_mcast(48'h0180_c200_0001), .ctl_rx_etype_gcp(16'h8808), \
      .ctl_rx_opcode_min_gcp(16'h0001), .ctl_rx_opcode_max_gcp(16'h0001), .ctl_rx_forward_control(1'b0), \
      .ctl_rx_check_ack(1'b0), .ctl_rx_pause_ack(9'd0), \
      .stat_rx_aligned(aligned), .stat_rx_bad_fcs(st_rx_bad_fcs), .stat_rx_packet_bad_fcs(st_rx_pkt_bad_fcs), \
      .stat_rx_undersize(st_rx_undersize), .stat_rx_fragment(st_rx_fragment), \
      .stat_rx_oversize(st_rx_oversize), .stat_rx_toolong(st_rx_toolong), \
      .stat_tx_multicast(st_tx_mcast), .stat_tx_broadcast(st_tx_bcast)
    if (p == 0) begin : g_cmac0
      kite_cmac0 u_cmac (`KITE_CMAC_PORTS);
    end else begin : g_cmac1
      kite_cmac1 u_cmac (`KITE_CMAC_PORTS);
    end
`undef KITE_CMAC_PORTS
  end

  // ---------------------------------------------------------------- card
  logic       uart_valid;
  logic [7:0] uart_data;
  logic [31:0] mmio_wr_drop;
  logic       cqe_drop, msix_drop;
  logic       unused_card;
  assign unused_card = ^{uart_valid, uart_data, mmio_wr_drop, cqe_drop, msix_drop};

  // The flash's pins are the configuration pins, reached only through
  // STARTUPE3 once startup is over (EOS, long before PCIe's user reset
  // ends). STARTUPE3 swallows the first three USRCCLKO cycles after it;
  // kite_flash gives its warm-up pulses with CS# high for them.
  logic       fl_sck, fl_cs_n, fl_eos, fl_cfgclk, fl_cfgmclk, fl_preq;
  logic [3:0] fl_do, fl_oe, fl_di;
  logic       unused_startup;
  STARTUPE3 #(
    .PROG_USR      ("FALSE"),
    .SIM_CCLK_FREQ (0.0)
  ) u_startup (
    .CFGCLK(fl_cfgclk), .CFGMCLK(fl_cfgmclk), .DI(fl_di), .EOS(fl_eos), .PREQ(fl_preq),
    .DO(fl_do), .DTS(~fl_oe), .FCSBO(fl_cs_n), .FCSBTS(1'b0),
    .GSR(1'b0), .GTS(1'b0), .KEYCLEARB(1'b1), .PACK(1'b0),
    .USRCCLKO(fl_sck), .USRCCLKTS(1'b0), .USRDONEO(1'b1), .USRDONETS(1'b0)
  );
  assign unused_startup = ^{fl_eos, fl_cfgclk, fl_cfgmclk, fl_preq};

  kite_card_sys #(
    .NVF     (NVF),
    .FN_W    (FN_W),
    .NPORT   (NPORT),
    .ROM_HEX (ROM_HEX),
    .VF_FN_BASE (VF_FN_BASE)
  ) u_card (
    .clk_i(clk), .rst_ni(rst_n),
    .ld_we_i(1'b0), .ld_word_i('0), .ld_data_i('0),
    .rq_tdata_o(rq_tdata), .rq_tkeep_o(rq_tkeep), .rq_tlast_o(rq_tlast), .rq_tuser_o(rq_tuser),
    .rq_tvalid_o(rq_tvalid), .rq_tready_i(rq_tready),
    .rc_tdata_i(rc_tdata), .rc_tkeep_i(rc_tkeep), .rc_tlast_i(rc_tlast), .rc_tuser_i(rc_tuser),
    .rc_tvalid_i(rc_tvalid), .rc_tready_o(rc_tready),
    .cq_tdata_i(cq_tdata), .cq_tkeep_i(cq_tkeep), .cq_tlast_i(cq_tlast), .cq_tuser_i(cq_tuser),
    .cq_tvalid_i(cq_tvalid), .cq_tready_o(cq_tready),
    .cc_tdata_o(cc_tdata), .cc_tkeep_o(cc_tkeep), .cc_tlast_o(cc_tlast), .cc_tuser_o(cc_tuser),
    .cc_tvalid_o(cc_tvalid), .cc_tready_i(cc_tready),
    .cfg_max_payload_i(cfg_max_payload), .cfg_max_read_req_i(cfg_max_read_req), .cfg_ext_tag_i(ext_tag),
    .cfg_interrupt_msix_enable_i(msix_enable), .cfg_interrupt_msix_mask_i(msix_mask),
    .cfg_interrupt_msix_vf_enable_i(msix_vf_enable), .cfg_interrupt_msix_vf_mask_i(msix_vf_mask),
    .cfg_interrupt_msix_address_o(msix_address), .cfg_interrupt_msix_data_o(msix_data),
    .cfg_interrupt_msix_int_o(msix_int), .cfg_interrupt_msi_function_number_o(msi_fn),
    .cfg_interrupt_msi_sent_i(msi_sent), .cfg_interrupt_msi_fail_i(msi_fail), .msix_drop_o(msix_drop),
    .flr_i(flr), .flr_done_o(flr_done),
    .tx_tvalid_o(tx_tvalid), .tx_tready_i(tx_tready), .tx_tdata_o(tx_tdata), .tx_tkeep_o(tx_tkeep),
    .tx_tlast_o(tx_tlast),
    .rx_tvalid_i(rx_tvalid), .rx_tready_o(rx_tready), .rx_tdata_i(rx_tdata), .rx_tkeep_i(rx_tkeep),
    .rx_tlast_i(rx_tlast), .rx_xoff_o(rx_xoff), .mac_ev_i(mac_ev),
    .serial_i(serial_q), .mac_base_i(mac_base_q), .num_vfs_i(num_vfs), .link_i(link),
    .uart_valid_o(uart_valid), .uart_data_o(uart_data),
    .flash_sck_o(fl_sck), .flash_cs_no(fl_cs_n), .flash_dq_o(fl_do), .flash_dq_oe_o(fl_oe),
    .flash_dq_i(fl_di),
    .mmio_wr_drop_o(mmio_wr_drop), .cqe_drop_o(cqe_drop)
  );

endmodule : kite_top
