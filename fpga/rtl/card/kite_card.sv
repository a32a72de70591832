// Kite card top (model counterpart: fpga/model/card): the UltraScale+ PCIe
// integrated block's AXI-Stream interfaces on one side, two 512-bit MAC
// AXI-Stream ports on the other, and the firmware's context, command,
// counter and DMA ports exposed (the firmware runs beside the RTL in
// co-simulation, fpga/cosim).
//
//   host MMIO  CQ/CC -> kite_pcie_cq -> BAR0 kite_regs (64-bit accesses split
//              into dwords; STATS reads fetch the counter from kite_stats
//              first) / BAR2 kite_doorbell (kite_qm_top)
//   TX         doorbell -> queue manager -> WQE fetch (DMA read) -> per port:
//              kite_card_txg gather (DMA read) -> kite_txp_lso -> kite_card_fcs
//              (pad, FCS by kite_mac_crc32) -> MAC TX; ETH_TX CQE
//   RX         MAC RX (frames with FCS) -> kite_card_rxhold per port (kept
//              until decided, sent again after a PAUSE park) -> frame-level
//              round robin of the two ports -> kite_card_rxfcs (FCS off) -> kite_rxp ->
//              kite_rx_steer (filters, flow rules) -> kite_rss ({port,
//              context} per frame) -> kite_rx_dma (frame buffer with FCS
//              beside the parser; DMA writes; steering drops discarded) -> RX CQE
//   CQ/EQ      one ordered command stream into kite_cq (firmware, CQ/EQ
//              doorbells, queue manager completions, RX and TX CQEs); its
//              CQE/EQE writes share the DMA write client with RX data; MSI-X
//              requests leave on msix_*
//   counters   kite_stats: RX per-frame outcome (port and RQ counters), TX
//              frames and bytes per port, queue manager / LSO counts and
//              MAC statistics pulses (mac_ev_i); read by BAR0 STATS and by
//              the firmware (fw_st_*)
//
// DMA clients of kite_pcie: reads by id (0x00-0x0f WQE fetch tags, 0x40 RX
// WQE, 0x80 | port TX gather, 0xc0 firmware), writes by id (0 RX data, 1 CQ
// writer, 2 firmware). The MAC ports run in this (250 MHz) clock;
// clock-domain FIFOs to the MAC's 322 MHz domain and everything listed as
// missing in rtl.rst ("Card top") are outside.
module kite_card #(
  parameter int unsigned NQ    = 512,
  parameter int unsigned FN_W  = 5,
  parameter int unsigned NPORT = 2,
  // VFs with a BAR0 register file (functions 1..NVF; the PF is function 0).
  parameter int unsigned NVF   = 16,
  parameter logic [7:0]  VF_FN_BASE = 8'd4   // the PCIe core's number of VF 1 (kite_pcie)
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,

  // PCIe core (PG213), see kite_pcie.
  output logic [511:0]              rq_tdata_o,
  output logic [15:0]               rq_tkeep_o,
  output logic                      rq_tlast_o,
  output logic [136:0]              rq_tuser_o,
  output logic                      rq_tvalid_o,
  input  logic                      rq_tready_i,
  input  logic [511:0]              rc_tdata_i,
  input  logic [15:0]               rc_tkeep_i,
  input  logic                      rc_tlast_i,
  input  logic [160:0]              rc_tuser_i,
  input  logic                      rc_tvalid_i,
  output logic                      rc_tready_o,
  input  logic [511:0]              cq_tdata_i,
  input  logic [15:0]               cq_tkeep_i,
  input  logic                      cq_tlast_i,
  input  logic [182:0]              cq_tuser_i,
  input  logic                      cq_tvalid_i,
  output logic                      cq_tready_o,
  output logic [511:0]              cc_tdata_o,
  output logic [15:0]               cc_tkeep_o,
  output logic                      cc_tlast_o,
  output logic [80:0]               cc_tuser_o,
  output logic                      cc_tvalid_o,
  input  logic                      cc_tready_i,
  input  logic [1:0]                cfg_max_payload_i,
  input  logic [2:0]                cfg_max_read_req_i,
  input  logic                      cfg_ext_tag_i,     // Device Control Extended Tag Field Enable

  // MSI-X requests (to the core's cfg_interrupt_msix_* through the function's table).
  output logic                      msix_valid_o,
  input  logic                      msix_ready_i,
  output logic [FN_W-1:0]           msix_fn_o,
  output logic [15:0]               msix_vector_o,
  // BAR4 (the MSI-X table and PBA) dword accesses, for kite_msix on the
  // board; a host that keeps the table itself (the co-simulation's QEMU)
  // never sends them. Reads are answered on tbl_rsp_*, in order.
  output logic                      tbl_req_valid_o,
  input  logic                      tbl_req_ready_i,
  output logic                      tbl_req_write_o,
  output logic [FN_W-1:0]           tbl_req_fn_o,
  output logic [13:0]               tbl_req_addr_o,
  output logic [31:0]               tbl_req_wdata_o,
  output logic [3:0]                tbl_req_be_o,
  input  logic                      tbl_rsp_valid_i,
  input  logic [31:0]               tbl_rsp_rdata_i,

  // MAC ports, port p at [512p +: 512] / [64p +: 64] / [p].
  output logic [NPORT-1:0]          tx_tvalid_o,
  input  logic [NPORT-1:0]          tx_tready_i,
  output logic [NPORT*512-1:0]      tx_tdata_o,
  output logic [NPORT*64-1:0]       tx_tkeep_o,
  output logic [NPORT-1:0]          tx_tlast_o,
  input  logic [NPORT-1:0]          rx_tvalid_i,
  output logic [NPORT-1:0]          rx_tready_o,
  input  logic [NPORT*512-1:0]      rx_tdata_i,
  input  logic [NPORT*64-1:0]       rx_tkeep_i,
  input  logic [NPORT-1:0]          rx_tlast_i,
  // PAUSE: port p holds a frame for a receive buffer (the MAC's pause request).
  output logic [NPORT-1:0]          rx_xoff_o,

  // Firmware: function table, SQ/RQ contexts, CQ/EQ commands, RSS contexts
  // (fw_rss_ctx_i = {port, context within the port}).
  input  logic                      fw_fn_we_i,
  input  logic [FN_W-1:0]           fw_fn_sel_i,
  input  logic [8:0]                fw_fn_db_pages_i,
  input  logic [$clog2(NPORT)-1:0]  fw_fn_port_i,
  input  logic                      fw_wq_valid_i,
  output logic                      fw_wq_ready_o,
  // The last context write is still draining (an RQ's frames and WQE
  // reads, an SQ's gather reads, of the old context may reach the host);
  // the firmware's port reads it busy.
  output logic                      fw_wq_busy_o,
  input  logic                      fw_wq_rq_i,
  input  logic [$clog2(NQ)-1:0]     fw_wq_qn_i,
  input  logic                      fw_wq_en_i,
  input  logic [1:0]                fw_wq_state_i,
  input  logic [FN_W-1:0]           fw_wq_fn_i,
  input  logic [7:0]                fw_wq_page_i,
  input  logic [3:0]                fw_wq_log_size_i,
  input  logic [3:0]                fw_wq_log_stride_i,
  input  logic [15:0]               fw_wq_cqn_i,
  input  logic [$clog2(NPORT)-1:0]  fw_wq_port_i,
  input  logic [63:0]               fw_wq_base_i,
  input  logic [7:0]                fw_wq_flags_i,
  input  logic                      fw_cq_valid_i,     // kite_cq command port
  output logic                      fw_cq_ready_o,
  input  logic [2:0]                fw_cq_op_i,
  input  logic [15:0]               fw_cq_qn_i,
  input  logic [255:0]              fw_cq_data_i,
  input  logic                      fw_rss_we_i,
  input  logic [$clog2(NPORT)+3:0]  fw_rss_ctx_i,
  input  logic [8:0]                fw_rss_addr_i,
  input  logic [31:0]               fw_rss_wdata_i,
  // Receive filter and flow rule tables of a port (kite_rx_steer's config port).
  input  logic                      fw_flt_we_i,
  input  logic [$clog2(NPORT)-1:0]  fw_flt_port_i,
  input  logic [9:0]                fw_flt_addr_i,
  input  logic [63:0]               fw_flt_wdata_i,
  // A port's PAUSE_RX (port_ctx pause bit 0): an empty ring holds the frame.
  input  logic                      fw_port_we_i,
  input  logic [$clog2(NPORT)-1:0]  fw_port_sel_i,
  input  logic                      fw_port_pause_i,
  input  logic [31:0]               now_us_i,
  input  logic                      tick_i,

  // BAR0 identity / status from the firmware, command queues to it. Each
  // function (PF 0, VFs 1..NVF) has its own register file: reset requests,
  // ring enables and PI doorbells are a bit per function; cmdq_sel_i picks
  // the function whose ring registers cmdq_*_o show and whose CI
  // cmdq_ci_we_i writes (the soft CPU's window onto them).
  input  logic [31:0]               fw_version_i,
  input  logic [63:0]               serial_i,
  input  logic [31:0]               func_info_i,      // the PF's
  input  logic [2:0]                dev_status_i,
  input  logic [31:0]               health_syndrome_i,
  input  logic [31:0]               heartbeat_i,
  input  logic [FN_W-1:0]           cmdq_sel_i,
  input  logic                      cmdq_ci_we_i,
  input  logic [15:0]               cmdq_ci_i,
  input  logic [NVF:0]              reset_done_i,
  output logic [NVF:0]              reset_req_o,
  // PCIe function level resets (the board top's view of the core's FLR
  // signals): the function's registers are cleared and its reset requested
  // from the firmware; flr_done_o pulses when the firmware has done it.
  input  logic [NVF:0]              flr_i,
  output logic [NVF:0]              flr_done_o,
  output logic [NVF:0]              cmdq_enable_o,
  output logic [NVF:0]              cmdq_db_o,
  output logic [63:0]               cmdq_base_o,
  output logic [3:0]                cmdq_log_size_o,
  output logic [15:0]               cmdq_pi_o,
  output logic [15:0]               cmdq_ci_o,

  // Firmware DMA (the soft CPU's engine, lowest priority): reads answer in
  // address lanes with keep, the last beat carries the request's error;
  // writes take address-aligned 64-byte words, fw_wr_done_o when the last
  // has left. Each request is on behalf of the function given with it (a
  // command mailbox is its function's memory).
  input  logic                      fw_rd_valid_i,
  output logic                      fw_rd_ready_o,
  input  logic [FN_W-1:0]           fw_rd_fn_i,
  input  logic [63:0]               fw_rd_addr_i,
  input  logic [15:0]               fw_rd_len_i,
  output logic                      fw_rd_rsp_valid_o,
  output logic [511:0]              fw_rd_rsp_data_o,
  output logic [63:0]               fw_rd_rsp_keep_o,
  output logic                      fw_rd_rsp_last_o,
  output logic                      fw_rd_rsp_err_o,
  input  logic                      fw_wr_valid_i,
  output logic                      fw_wr_ready_o,
  input  logic [FN_W-1:0]           fw_wr_fn_i,
  input  logic [63:0]               fw_wr_addr_i,
  input  logic [15:0]               fw_wr_len_i,
  input  logic                      fw_wd_valid_i,
  output logic                      fw_wd_ready_o,
  input  logic [511:0]              fw_wd_i,
  output logic                      fw_wr_done_o,
  output logic                      fw_wr_err_o,

  // Firmware counter reads (QUERY_STATS): index as kite_stats (port p's
  // struct port_stats at 32p), optional clear; the data follows on
  // fw_st_rvalid_o. BAR0 STATS reads go first.
  input  logic                      fw_st_valid_i,
  output logic                      fw_st_ready_o,
  input  logic [13:0]               fw_st_idx_i,
  input  logic                      fw_st_clear_i,
  output logic                      fw_st_rvalid_o,
  output logic [63:0]               fw_st_rdata_o,

  // MAC / PHY statistics pulses per port (the CMAC's statistics vector and
  // the PHY's link state changes), port p at [8p +: 8]: 0 rx_runt,
  // 1 rx_oversize, 2 rx_bad_fcs, 3 link_changes, 4 and 5 unused (RX
  // multicast / broadcast count delivered frames, from kite_rx_steer's
  // class), 6 tx_multicast, 7 tx_broadcast.
  input  logic [NPORT*8-1:0]        mac_ev_i,

  // Events with no counter slot yet (rtl.rst).
  output logic [31:0]               mmio_wr_drop_o,
  output logic                      cqe_drop_o,
  output logic                      rq_err_o,
  output logic [$clog2(NQ)-1:0]     rq_err_qn_o,
  // An SQ went to ERR by a DMA error (WQE fetch or gather), its flush done
  // and its WQ_ERROR event on the way (for the soft CPU's copy of the state).
  output logic                      sq_err_o,
  output logic [$clog2(NQ)-1:0]     sq_err_qn_o
);
  localparam int unsigned QW   = $clog2(NQ);
  localparam int unsigned PW   = $clog2(NPORT);
  localparam int unsigned NTAG = 128;   // WQE fetch tags: read ids 0..NTAG-1
  localparam int unsigned TW   = $clog2(NTAG);
  localparam logic [7:0]  RD_ID_RX = 8'h80, RD_ID_TXG = 8'ha0, RD_ID_FW = 8'hc0;

  // ============================================================== PCIe
  logic         rd_req_valid, rd_req_ready, rd_rsp_valid, rd_rsp_ready, rd_rsp_last, rd_rsp_err;
  logic [7:0]   rd_req_id, rd_rsp_id, rd_req_fn, wr_req_fn;
  logic [63:0]  rd_req_addr, rd_rsp_keep;
  logic [15:0]  rd_req_len;
  logic [511:0] rd_rsp_data;
  logic         wr_req_valid, wr_req_ready, wr_data_valid, wr_data_ready, wr_done, wr_done_err;
  logic [7:0]   wr_req_id, wr_done_id;
  logic [63:0]  wr_req_addr;
  logic [15:0]  wr_req_len;
  logic [511:0] wr_data;
  logic         mmio_req_valid, mmio_req_write, mmio_rsp_valid;
  logic [7:0]   mmio_req_func, mmio_req_be;
  logic [2:0]   mmio_req_bar;
  logic [31:0]  mmio_req_addr;
  logic [63:0]  mmio_req_wdata, mmio_rsp_data;
  logic [31:0]  cnt_rc_unexp_tag, cnt_rc_cpl_err, cnt_rc_bad, cnt_rd_zero_len, cnt_wr_zero_len, cnt_cq_unsup;
  logic [8:0]   tags_used, tags_pool;

  kite_pcie #(.VF_FN_BASE(VF_FN_BASE)) u_pcie (
    .clk_i, .rst_ni,
    .rd_req_valid_i(rd_req_valid), .rd_req_ready_o(rd_req_ready), .rd_req_id_i(rd_req_id),
    .rd_req_fn_i(rd_req_fn), .rd_req_addr_i(rd_req_addr), .rd_req_len_i(rd_req_len),
    .cfg_max_payload_i, .cfg_max_read_req_i, .cfg_ext_tag_i,
    .rd_rsp_valid_o(rd_rsp_valid), .rd_rsp_ready_i(rd_rsp_ready), .rd_rsp_id_o(rd_rsp_id),
    .rd_rsp_data_o(rd_rsp_data), .rd_rsp_keep_o(rd_rsp_keep), .rd_rsp_last_o(rd_rsp_last),
    .rd_rsp_err_o(rd_rsp_err),
    .wr_req_valid_i(wr_req_valid), .wr_req_ready_o(wr_req_ready), .wr_req_id_i(wr_req_id),
    .wr_req_fn_i(wr_req_fn), .wr_req_addr_i(wr_req_addr), .wr_req_len_i(wr_req_len),
    .wr_data_valid_i(wr_data_valid), .wr_data_ready_o(wr_data_ready), .wr_data_i(wr_data),
    .wr_done_o(wr_done), .wr_done_id_o(wr_done_id), .wr_done_err_o(wr_done_err),
    .rq_tdata_o, .rq_tkeep_o, .rq_tlast_o, .rq_tuser_o, .rq_tvalid_o, .rq_tready_i,
    .rc_tdata_i, .rc_tkeep_i, .rc_tlast_i, .rc_tuser_i, .rc_tvalid_i, .rc_tready_o,
    .cq_tdata_i, .cq_tkeep_i, .cq_tlast_i, .cq_tuser_i, .cq_tvalid_i, .cq_tready_o,
    .cc_tdata_o, .cc_tkeep_o, .cc_tlast_o, .cc_tuser_o, .cc_tvalid_o, .cc_tready_i,
    .mmio_req_valid_o(mmio_req_valid), .mmio_req_write_o(mmio_req_write), .mmio_req_func_o(mmio_req_func),
    .mmio_req_bar_o(mmio_req_bar), .mmio_req_addr_o(mmio_req_addr), .mmio_req_wdata_o(mmio_req_wdata),
    .mmio_req_be_o(mmio_req_be), .mmio_rsp_valid_i(mmio_rsp_valid), .mmio_rsp_data_i(mmio_rsp_data),
    .cnt_rc_unexp_tag_o(cnt_rc_unexp_tag), .cnt_rc_cpl_err_o(cnt_rc_cpl_err), .cnt_rc_bad_o(cnt_rc_bad),
    .cnt_rd_zero_len_o(cnt_rd_zero_len), .cnt_wr_zero_len_o(cnt_wr_zero_len), .cnt_cq_unsup_o(cnt_cq_unsup),
    .tags_used_o(tags_used), .tags_pool_o(tags_pool)
  );

  // ============================================================== MMIO
  // Requests queue here: the completer port has no back-pressure, and a
  // doorbell may wait for the queue manager (db_ready).
  localparam int unsigned MQ = 8;
  logic [1+8+3+32+64+8-1:0] mq_mem [MQ];
  logic [3:0]   mq_wr_q, mq_rd_q;
  logic         mq_empty, mq_full, mq_pop;
  logic         m_write;
  logic [7:0]   m_func, m_be;
  logic [2:0]   m_bar;
  logic [31:0]  m_addr;
  logic [63:0]  m_wdata;
  logic [31:0]  mmio_drop_q;
  assign mq_empty = mq_wr_q == mq_rd_q;
  assign mq_full  = (mq_wr_q - mq_rd_q) == 4'(MQ);
  assign {m_write, m_func, m_bar, m_addr, m_wdata, m_be} = mq_mem[mq_rd_q[2:0]];
  assign mmio_wr_drop_o = mmio_drop_q;

  always_ff @(posedge clk_i) if (mmio_req_valid && !mq_full)
    mq_mem[mq_wr_q[2:0]] <= {mmio_req_write, mmio_req_func, mmio_req_bar, mmio_req_addr, mmio_req_wdata, mmio_req_be};

  // BAR0 sequencer: up to two dword accesses per request; STATS reads first
  // read the counter from kite_stats (4-cycle read) and hold it for kite_regs.
  // BAR4 requests go out on tbl_* the same way, a dword at a time (M_TBL),
  // each read waiting for its answer (M_TBLW).
  typedef enum logic [3:0] {M_IDLE, M_STAT, M_STATW, M_ACC, M_WAIT, M_RSP, M_DB, M_TBL, M_TBLW} mstate_e;
  mstate_e      ms_q;
  logic         m_hi_q;          // current dword is the upper one
  logic         acc_hi_q;        // the access answered now was the upper one
  logic [63:0]  m_rdata_q, stat_q;
  logic         reg_req_valid, reg_rsp_valid;
  logic [15:0]  reg_req_addr;
  logic [31:0]  reg_req_wdata, reg_rdata;
  logic [13:0]  regs_stats_addr;
  logic         st_rd_valid, st_rd_ready, st_rd_vo, st_rd_err;
  logic [13:0]  st_rd_idx;
  logic [63:0]  st_rd_data;
  logic         db_valid, db_ready;
  logic         m_is_stats, m_lo_en, m_hi_en, m_other, m_tbl, m_fn_ok;

  assign m_is_stats = m_addr[15:0] >= 16'(kite_pkg::REG_STATS_BASE) &&
                      m_addr[15:0] < 16'(kite_pkg::REG_STATS_BASE) + 16'd256;
  assign m_lo_en  = m_be[3:0] != 4'h0;
  assign m_hi_en  = m_be[7:4] != 4'h0;
  assign m_tbl    = m_bar == 3'(kite_pkg::MSIX_BAR) && 32'(m_func) <= NVF;
  // Answered 0 / ignored: a doorbell of a function the card does not have
  // would alias a VF's in the queue manager's FN_W bits.
  assign m_other  = m_bar != 3'd0 && !(m_bar == 3'd2 && m_write && m_fn_ok) && !m_tbl;
  assign tbl_req_valid_o = ms_q == M_TBL;
  assign tbl_req_write_o = m_write;
  assign tbl_req_fn_o    = FN_W'(m_func);
  assign tbl_req_addr_o  = m_addr[13:0] + (m_hi_q ? 14'd4 : 14'd0);
  assign tbl_req_wdata_o = reg_req_wdata;
  assign tbl_req_be_o    = m_hi_q ? m_be[7:4] : m_be[3:0];
  assign reg_req_addr  = m_addr[15:0] + (m_hi_q ? 16'd4 : 16'd0);
  assign reg_req_wdata = m_hi_q ? m_wdata[63:32] : m_wdata[31:0];
  assign reg_req_valid = ms_q == M_ACC;
  // One counter read in flight; its owner takes the answer.
  logic         st_busy_q, st_fw_q, st_bar_req, st_go, st_rd_clear;
  assign st_bar_req    = ms_q == M_STAT;
  assign st_rd_valid   = !st_busy_q && (st_bar_req || fw_st_valid_i);
  assign st_rd_idx     = st_bar_req ? regs_stats_addr : fw_st_idx_i;   // BAR0: the function's port
  assign st_rd_clear   = !st_bar_req && fw_st_clear_i;
  assign st_go         = st_rd_valid && st_rd_ready;
  assign fw_st_ready_o = st_go && !st_bar_req;
  assign fw_st_rvalid_o = st_rd_vo && st_fw_q;
  assign fw_st_rdata_o  = st_rd_data;
  assign db_valid      = ms_q == M_DB;
  assign mq_pop        = ms_q == M_RSP || (ms_q == M_DB && db_ready) ||
                         (ms_q == M_ACC && m_write && (m_hi_q || !m_hi_en)) ||
                         (ms_q == M_TBL && tbl_req_ready_i && m_write && (m_hi_q || !m_hi_en)) ||
                         (ms_q == M_IDLE && !mq_empty && m_other);
  assign mmio_rsp_valid = ms_q == M_RSP || (ms_q == M_IDLE && !mq_empty && m_other && !m_write);
  assign mmio_rsp_data  = ms_q == M_RSP ? m_rdata_q : 64'd0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mq_wr_q     <= '0;
      mq_rd_q     <= '0;
      mmio_drop_q <= '0;
      st_busy_q   <= 1'b0;
      st_fw_q     <= 1'b0;
      ms_q        <= M_IDLE;
      m_hi_q      <= 1'b0;
      acc_hi_q    <= 1'b0;
      m_rdata_q   <= '0;
      stat_q      <= '0;
    end else begin
      if (mmio_req_valid) begin
        if (mq_full) mmio_drop_q <= mmio_drop_q + 1'b1;
        else mq_wr_q <= mq_wr_q + 1'b1;
      end
      if (mq_pop) mq_rd_q <= mq_rd_q + 1'b1;
      if (st_go) begin
        st_busy_q <= 1'b1;
        st_fw_q   <= !st_bar_req;
      end else if (st_rd_vo) begin
        st_busy_q <= 1'b0;
      end
      acc_hi_q <= m_hi_q;
      if (reg_rsp_valid) begin
        if (acc_hi_q) m_rdata_q[63:32] <= reg_rdata;
        else m_rdata_q[31:0] <= reg_rdata;
      end
      unique case (ms_q)
        M_IDLE: if (!mq_empty && !m_other) begin
          m_hi_q    <= !m_lo_en;
          m_rdata_q <= '0;
          if (m_bar == 3'd2) ms_q <= M_DB;
          else if (m_tbl) ms_q <= M_TBL;
          else ms_q <= (!m_write && m_is_stats) ? M_STAT : M_ACC;
        end
        M_STAT: if (st_go) ms_q <= M_STATW;
        M_STATW: if (st_rd_vo && !st_fw_q) begin
          stat_q <= st_rd_data;
          ms_q   <= M_ACC;
        end
        M_ACC: begin
          if (!m_hi_q && m_hi_en) m_hi_q <= 1'b1;
          else ms_q <= m_write ? M_IDLE : M_WAIT;
        end
        M_WAIT: ms_q <= M_RSP;
        M_RSP: ms_q <= M_IDLE;
        M_DB: if (db_ready) ms_q <= M_IDLE;
        M_TBL: if (tbl_req_ready_i) begin
          if (!m_write) ms_q <= M_TBLW;
          else if (!m_hi_q && m_hi_en) m_hi_q <= 1'b1;
          else ms_q <= M_IDLE;
        end
        M_TBLW: if (tbl_rsp_valid_i) begin
          if (m_hi_q) m_rdata_q[63:32] <= tbl_rsp_rdata_i;
          else m_rdata_q[31:0] <= tbl_rsp_rdata_i;
          if (!m_hi_q && m_hi_en) begin
            m_hi_q <= 1'b1;
            ms_q   <= M_TBL;
          end else begin
            ms_q <= M_RSP;
          end
        end
        default: ms_q <= M_IDLE;
      endcase
    end
  end

  // One register file per function. A VF's FUNC_INFO comes from the
  // function table (its port, one port), as the model's; its STATS window
  // shows its port's counters. Accesses of functions beyond NVF read 0.
  localparam int unsigned NREG = NVF + 1;
  logic [NREG-1:0]    rf_rsp_valid;
  logic [NREG*32-1:0] rf_rdata;
  logic [NREG*5-1:0]  rf_stats_addr;
  logic [NREG*64-1:0] rf_base;
  logic [NREG*4-1:0]  rf_log_size;
  logic [NREG*16-1:0] rf_pi;
  logic [15:0]        rf_ci_q [NREG];
  logic [PW-1:0]      fn_port_q [NREG];
  logic [PW-1:0]      m_port;
  assign m_fn_ok = 32'(m_func) < NREG;
  assign m_port  = m_fn_ok ? fn_port_q[m_func[$clog2(NREG)-1:0]] : '0;

  for (genvar f = 0; f < NREG; f++) begin : g_regs
    logic [31:0] f_info;
    assign f_info = f == 0 ? func_info_i :
                    {1'b1, 7'd0, 4'd1, 4'(fn_port_q[f]), 16'(f)};   // IS_VF, NUM_PORTS, PORT, FN
    kite_regs #(
      .DB_PAGES (f == 0 ? 32'd256 : 32'(kite_pkg::VF_DB_PAGES)),
      .MSIX_VECS(f == 0 ? 32'd64 : 32'(kite_pkg::VF_MSIX_VECTORS))
    ) u_regs (
      .clk_i, .rst_ni,
      .req_valid_i(reg_req_valid && 32'(m_func) == f), .req_write_i(m_write),
      .req_addr_i(reg_req_addr), .req_wdata_i(reg_req_wdata),
      .rsp_valid_o(rf_rsp_valid[f]), .rsp_rdata_o(rf_rdata[f*32 +: 32]),
      .fw_version_i, .serial_i, .func_info_i(f_info), .dev_status_i, .health_syndrome_i, .heartbeat_i,
      .cmdq_ci_i(rf_ci_q[f]), .reset_done_i(reset_done_i[f]), .reset_req_o(reset_req_o[f]),
      .flr_i(flr_i[f]), .flr_done_o(flr_done_o[f]),
      .cmdq_base_o(rf_base[f*64 +: 64]), .cmdq_log_size_o(rf_log_size[f*4 +: 4]),
      .cmdq_enable_o(cmdq_enable_o[f]), .cmdq_pi_o(rf_pi[f*16 +: 16]), .cmdq_db_o(cmdq_db_o[f]),
      .stats_addr_o(rf_stats_addr[f*5 +: 5]), .stats_data_i(stat_q)
    );

    // CI: written by the soft CPU, zero when the ring is (re)enabled or reset.
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) rf_ci_q[f] <= '0;
      else if (cmdq_enable_o[f] || reset_req_o[f]) rf_ci_q[f] <= '0;
      else if (cmdq_ci_we_i && 32'(cmdq_sel_i) == f) rf_ci_q[f] <= cmdq_ci_i;
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) fn_port_q[f] <= '0;
      else if (fw_fn_we_i && 32'(fw_fn_sel_i) == f) fn_port_q[f] <= fw_fn_port_i;
    end
  end

  logic [$clog2(NREG)-1:0] m_rf, c_rf;
  logic                    c_ok;
  assign m_rf            = m_fn_ok ? m_func[$clog2(NREG)-1:0] : '0;
  assign reg_rsp_valid   = |rf_rsp_valid;
  assign reg_rdata       = m_fn_ok ? rf_rdata[32'(m_rf)*32 +: 32] : 32'd0;
  assign regs_stats_addr = 14'(32'(m_port) * 32) + 14'(rf_stats_addr[32'(m_rf)*5 +: 5]);
  assign c_ok            = 32'(cmdq_sel_i) < NREG;
  assign c_rf            = c_ok ? cmdq_sel_i[$clog2(NREG)-1:0] : '0;
  assign cmdq_base_o     = c_ok ? rf_base[32'(c_rf)*64 +: 64] : '0;
  assign cmdq_log_size_o = c_ok ? rf_log_size[32'(c_rf)*4 +: 4] : '0;
  assign cmdq_pi_o       = c_ok ? rf_pi[32'(c_rf)*16 +: 16] : '0;
  assign cmdq_ci_o       = c_ok ? rf_ci_q[c_rf] : '0;

  // ============================================================== queues
  logic                acc_valid, acc_rq;
  logic [QW-1:0]       acc_qn;
  logic [15:0]         acc_pi;
  logic                ce_valid;
  logic [2:0]          ce_reg;
  logic [15:0]         ce_qn, ce_idx;
  logic [FN_W-1:0]     ce_fn;
  logic [7:0]          ce_page;
  logic                rqci_valid, rqci_ready;
  logic [QW-1:0]       rqci_qn;
  logic [15:0]         rqci_ci;
  logic                f_rd_valid, f_rd_ready, f_cpl_valid;
  logic [TW-1:0]       f_rd_tag;
  logic [FN_W-1:0]     f_rd_fn;
  logic [63:0]         f_rd_addr;
  logic [9:0]          f_rd_len;
  logic                d_valid, d_ready, d_signaled, d_last, d_flush;
  logic [15:0]         d_ci;
  logic                gq_valid, gq_ready, qe_valid;
  logic [QW-1:0]       gq_sqn, qe_qn;
  logic [FN_W-1:0]     qe_fn;
  logic [QW-1:0]       d_sqn;
  logic [FN_W-1:0]     d_fn;
  logic [PW-1:0]       d_port;
  logic [15:0]         d_cqn, d_wqe_index;
  logic [127:0]        d_eth;
  logic [4:0]          d_nsge;
  logic [16:0]         d_total;
  logic [63:0]         d_sge_addr;
  logic [31:0]         d_sge_len;
  logic [NPORT*16-1:0] port_h_seq, port_r_seq;   // per port queue: WQEs handed on, retired
  logic                qc_valid, qc_ready, qc_rq, qc_fetch, qc_fl_ready;
  logic [PW-1:0]       qc_port;
  logic [NQ-1:0]       sq_err;
  logic [NPORT*8-1:0]  q_free;      // free entries of each port's descriptor queue
  logic [QW-1:0]       qc_qn;
  logic [15:0]         qc_cqn, qc_wqe_index;
  logic [7:0]          qc_opcode, qc_status;
  logic [31:0]         qc_syndrome;
  logic                ci_valid, ci_rew, pick_valid;
  logic [QW-1:0]       ci_sqn, pick_sqn;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [15:0]         pick_ci;   // the queue testbench's check
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0]         ci_idx;
  logic [NPORT*64-1:0] db_dropped, tx_bad_desc, tx_dma_error;
  logic                fw_wq_ready, fw_wq_v, fw_wq_take, rx_drain, sq_drain, wq_drain;
  // No context write while the previous one drains (one at a time).
  assign wq_drain   = rx_drain || sq_drain;
  assign fw_wq_v    = fw_wq_valid_i && !wq_drain;
  assign fw_wq_take = fw_wq_v && fw_wq_ready;

  kite_qm_top #(.FN_W(FN_W), .NQ(NQ), .NPORT(NPORT), .NTAG(NTAG)) u_qm (
    .clk_i, .rst_ni,
    .fn_we_i(fw_fn_we_i), .fn_sel_i(fw_fn_sel_i), .fn_db_pages_i(fw_fn_db_pages_i), .fn_port_i(fw_fn_port_i),
    .cfg_valid_i(fw_wq_v), .cfg_ready_o(fw_wq_ready), .cfg_rq_i(fw_wq_rq_i), .cfg_qn_i(fw_wq_qn_i),
    .cfg_en_i(fw_wq_en_i), .cfg_state_i(fw_wq_state_i), .cfg_fn_i(fw_wq_fn_i), .cfg_page_i(fw_wq_page_i),
    .cfg_log_size_i(fw_wq_log_size_i), .cfg_log_stride_i(fw_wq_log_stride_i), .cfg_cqn_i(fw_wq_cqn_i),
    .cfg_port_i(fw_wq_port_i), .cfg_base_i(fw_wq_base_i),
    .db_valid_i(db_valid), .db_ready_o(db_ready), .db_fn_i(FN_W'(m_func)),
    .db_off_i(m_addr[19:0] + (m_be[3:0] == 4'h0 ? 20'd4 : 20'd0)),  // the completer's address is 8-byte aligned
    .db_size_i(m_be == 8'hff ? 4'd8 : (m_be == 8'h0f || m_be == 8'hf0 ? 4'd4 :
               (m_be == 8'h03 || m_be == 8'h0c || m_be == 8'h30 || m_be == 8'hc0 ? 4'd2 : 4'd1))),
    .db_data_i(m_be[3:0] == 4'h0 ? m_wdata[63:32] : m_wdata[31:0]),
    .acc_valid_o(acc_valid), .acc_rq_o(acc_rq), .acc_qn_o(acc_qn), .acc_pi_o(acc_pi),
    .ce_valid_o(ce_valid), .ce_reg_o(ce_reg), .ce_qn_o(ce_qn), .ce_idx_o(ce_idx), .ce_fn_o(ce_fn),
    .ce_page_o(ce_page), .ce_drop_i(1'b0), .ce_drop_fn_i('0),
    .rqci_valid_i(rqci_valid), .rqci_ready_o(rqci_ready), .rqci_qn_i(rqci_qn), .rqci_ci_i(rqci_ci),
    .rd_valid_o(f_rd_valid), .rd_ready_i(f_rd_ready), .rd_tag_o(f_rd_tag), .rd_fn_o(f_rd_fn),
    .rd_addr_o(f_rd_addr), .rd_len_o(f_rd_len),
    .rd_cpl_valid_i(f_cpl_valid), .rd_cpl_tag_i(rd_rsp_id[TW-1:0]), .rd_cpl_data_i(rd_rsp_data),
    .rd_cpl_last_i(rd_rsp_last), .rd_cpl_err_i(rd_rsp_err),
    .d_free_i(q_free), .d_valid_o(d_valid), .d_ready_i(d_ready), .d_sqn_o(d_sqn), .d_fn_o(d_fn), .d_port_o(d_port),
    .d_cqn_o(d_cqn), .d_wqe_index_o(d_wqe_index), .d_signaled_o(d_signaled), .d_eth_o(d_eth),
    .d_nsge_o(d_nsge), .d_total_o(d_total), .d_sge_addr_o(d_sge_addr), .d_sge_len_o(d_sge_len),
    .d_last_o(d_last), .d_ci_o(d_ci), .d_flush_o(d_flush), .sq_err_o(sq_err),
    .gerr_valid_i(gq_valid), .gerr_ready_o(gq_ready), .gerr_sqn_i(gq_sqn),
    .port_h_seq_i(port_h_seq), .port_r_seq_i(port_r_seq),
    .ev_valid_o(qe_valid), .ev_qn_o(qe_qn), .ev_fn_o(qe_fn),
    .cq_valid_o(qc_valid), .cq_ready_i(qc_ready), .cq_rq_o(qc_rq), .cq_qn_o(qc_qn), .cq_port_o(qc_port),
    .cq_fetch_o(qc_fetch), .cq_cqn_o(qc_cqn),
    .cq_wqe_index_o(qc_wqe_index), .cq_opcode_o(qc_opcode), .cq_status_o(qc_status),
    .cq_syndrome_o(qc_syndrome),
    .ci_valid_o(ci_valid), .ci_rew_o(ci_rew), .ci_sqn_o(ci_sqn), .ci_o(ci_idx), .pick_valid_o(pick_valid), .pick_sqn_o(pick_sqn), .pick_ci_o(pick_ci),
    .db_dropped_o(db_dropped), .tx_bad_desc_o(tx_bad_desc), .tx_dma_error_o(tx_dma_error)
  );
  assign fw_wq_ready_o = fw_wq_ready && !wq_drain;
  assign fw_wq_busy_o  = wq_drain;

  // ============================================================== TX
  logic [NPORT-1:0]         q_s_ready, g_rd_valid, g_rd_ready, g_rsp_valid, g_rsp_ready;
  logic [NPORT-1:0]         g_cqe_valid, g_cqe_ready, g_dma_err;
  logic [NPORT*FN_W-1:0]    g_rd_fn;
  logic [NPORT*64-1:0]      g_rd_addr;
  logic [NPORT*16-1:0]      g_rd_len, g_cqe_cqn;
  logic [NPORT*256-1:0]     g_cqe_data;
  logic [NPORT-1:0]         fcs_frame;
  logic [NPORT*16-1:0]      fcs_len;

  logic [NPORT*32-1:0]      lso_cnt_p;
  logic [NPORT-1:0]         g_gerr_valid, g_gerr_ready;
  logic [NPORT*QW-1:0]      g_gerr_sqn;
  logic [NPORT-1:0]         g_st_valid;      // frames sent, for the SQ counters
  logic [NPORT-1:0]         g_st_room, g_lso_rej;
  logic [15:0]              g_h_seq [NPORT];   // WQEs handed to a port's queue, and retired
  logic [15:0]              g_r_seq [NPORT];
  logic [NPORT-1:0]         g_rd_act;        // a WQE's gather reads in progress, of SQ g_rd_sqn
  logic [NPORT*QW-1:0]      g_rd_sqn;
  logic [31:0]              g_rej_cnt_q [NPORT];
  logic [NPORT*QW-1:0]      g_st_sqn;
  logic [NPORT*17-1:0]      g_st_total;
  logic [NPORT*128-1:0]     g_st_eth;
  logic [31:0]              g_dma_cnt_q [NPORT];
  assign d_ready = q_s_ready[d_port];
  for (genvar p = 0; p < NPORT; p++) begin : g_seq
    assign port_h_seq[16*p +: 16] = g_h_seq[p];
    assign port_r_seq[16*p +: 16] = g_r_seq[p];
  end

  // Gather errors to the queue manager, lowest port first.
  always_comb begin
    gq_valid     = 1'b0;
    gq_sqn       = '0;
    g_gerr_ready = '0;
    for (int p = NPORT - 1; p >= 0; p--) begin
      if (g_gerr_valid[p]) begin
        gq_valid     = 1'b1;
        gq_sqn       = g_gerr_sqn[p*QW +: QW];
        g_gerr_ready = '0;
        g_gerr_ready[p] = gq_ready;
      end
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int p = 0; p < NPORT; p++) begin
        g_dma_cnt_q[p] <= '0;
        g_rej_cnt_q[p] <= '0;
      end
    end else begin
      for (int p = 0; p < NPORT; p++) begin
        if (g_dma_err[p]) g_dma_cnt_q[p] <= g_dma_cnt_q[p] + 1'b1;
        if (g_lso_rej[p]) g_rej_cnt_q[p] <= g_rej_cnt_q[p] + 1'b1;
      end
    end
  end

  // SQ drain: the queue manager takes an SQ context write only with no WQE
  // of the SQ in its fetch, but the last one handed on may still be
  // gathering (its buffer reads out). Until each port's gather is done with
  // the WQE of that SQ it held in the cycle after the write (one WQE at a
  // time per port), the firmware's port reads busy, so a DESTROY_SQ
  // completes after the reads of the SQ's buffers. A later WQE of the SQ
  // (a live restart) does not extend it. Its WQEs still in a port's
  // descriptor queue are not read at all (kite_card_txq marks them stale).
  logic             sq_take;   // the queue manager takes an SQ context write
  logic             sq_snap_q;
  logic [QW-1:0]    sq_qn_q;
  logic [NPORT-1:0] sq_dr_q, sq_dr_snap;
  assign sq_take = fw_wq_take && !fw_wq_rq_i;
  always_comb
    for (int p = 0; p < NPORT; p++) sq_dr_snap[p] = g_rd_act[p] && g_rd_sqn[p*QW +: QW] == sq_qn_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sq_snap_q <= 1'b0;
      sq_qn_q   <= '0;
      sq_dr_q   <= '0;
    end else begin
      sq_snap_q <= sq_take;
      if (sq_take) sq_qn_q <= fw_wq_qn_i;
      sq_dr_q <= (sq_snap_q ? sq_dr_snap : sq_dr_q) & g_rd_act;
    end
  end
  assign sq_drain = sq_snap_q || |sq_dr_q;

  // An SQ write that disables it or sets RST (DESTROY_SQ, MODIFY_SQ to RST):
  // its WQEs still in a gather complete no more (kite_card_txg).
  logic sq_rst;
  assign sq_rst = sq_take && (!fw_wq_en_i || fw_wq_state_i == 2'(kite_pkg::WQ_STATE_RST));

  for (genvar p = 0; p < NPORT; p++) begin : g_tx
    logic         l_valid, l_ready, l_last, t_valid, t_ready, t_last, t_no_fcs, v_valid, v_ok;
    logic [511:0] l_data, t_data;
    logic [63:0]  l_keep, t_keep;
    logic [127:0] l_eth;
    logic [31:0]  l_len, l_first_len, lso_cnt, seg_cnt, drop_cnt;

    // The port's descriptor queue (kite_card_txq): the fetch hands a WQE on
    // only when all of it fits, so it never waits for this port's gather.
    // A WQE's own completion from the fetch (malformed, a signaled NOP,
    // flushed) rides in it as one entry (q_cpl; opcode, status and syndrome
    // in the eth field), so it keeps its place behind the SQ's earlier WQEs
    // and waits for no other port.
    localparam int unsigned QDW = 1 + FN_W + 16 + 16 + 16 + 1 + 128 + 17 + 64 + 32 + 1;
    logic            q_valid, q_ready, q_signaled, q_last, q_stale, q_cpl, s_cpl;
    logic [127:0]    s_cpl_eth;
    logic [QW-1:0]   q_sqn;
    logic [FN_W-1:0] q_fn;
    logic [15:0]     q_cqn, q_wqe_index, q_ci;
    logic [127:0]    q_eth;
    logic [16:0]     q_total;
    logic [63:0]     q_sge_addr;
    logic [31:0]     q_sge_len;
    assign s_cpl     = qc_valid && qc_fetch && qc_port == PW'(p);   // never with d_valid
    assign s_cpl_eth = {80'd0, qc_syndrome, qc_status, qc_opcode};
    kite_card_txq #(.NQ(NQ), .DW(QDW)) u_txq (
      .clk_i, .rst_ni,
      .s_valid_i((d_valid && d_port == PW'(p)) || s_cpl), .s_ready_o(q_s_ready[p]),
      .s_sqn_i(s_cpl ? qc_qn : d_sqn),
      .s_data_i(s_cpl ? {1'b1, FN_W'(0), qc_cqn, qc_wqe_index, 16'd0, 1'b1, s_cpl_eth, 17'd0, 64'd0, 32'd0, 1'b1} :
                        {1'b0, d_fn, d_cqn, d_wqe_index, d_ci, d_signaled, d_eth, d_total, d_sge_addr, d_sge_len,
                         d_last}),
      .s_last_i(s_cpl || d_last), .free_o(q_free[p*8 +: 8]),
      .m_valid_o(q_valid), .m_ready_i(q_ready), .m_sqn_o(q_sqn),
      .m_data_o({q_cpl, q_fn, q_cqn, q_wqe_index, q_ci, q_signaled, q_eth, q_total, q_sge_addr, q_sge_len,
                 q_last}),
      .m_stale_o(q_stale), .sq_rst_i(sq_rst), .sq_rst_sqn_i(fw_wq_qn_i), .h_seq_o(g_h_seq[p])
    );

    kite_card_txg #(.NQ(NQ), .FN_W(FN_W)) u_txg (
      .clk_i, .rst_ni,
      .d_valid_i(q_valid), .d_ready_o(q_ready),
      .d_sqn_i(q_sqn), .d_fn_i(q_fn), .d_cqn_i(q_cqn), .d_wqe_index_i(q_wqe_index),
      .d_signaled_i(q_signaled), .d_eth_i(q_eth), .d_total_i(q_total), .d_sge_addr_i(q_sge_addr),
      .d_sge_len_i(q_sge_len), .d_last_i(q_last), .d_ci_i(q_ci),
      // Flushed if its SQ is in ERR when the gather takes it, as the model
      // would have completed it.
      .d_flush_i(sq_err[q_sqn] || q_stale), .d_stale_i(q_stale), .d_cpl_i(q_cpl),
      .rd_valid_o(g_rd_valid[p]), .rd_ready_i(g_rd_ready[p]), .rd_fn_o(g_rd_fn[p*FN_W +: FN_W]),
      .rd_addr_o(g_rd_addr[p*64 +: 64]), .rd_len_o(g_rd_len[p*16 +: 16]),
      .rd_rsp_valid_i(g_rsp_valid[p]), .rd_rsp_ready_o(g_rsp_ready[p]), .rd_rsp_data_i(rd_rsp_data),
      .rd_rsp_keep_i(rd_rsp_keep), .rd_rsp_last_i(rd_rsp_last), .rd_rsp_err_i(rd_rsp_err),
      .m_valid_o(l_valid), .m_ready_i(l_ready), .m_data_o(l_data), .m_keep_o(l_keep), .m_last_o(l_last),
      .m_eth_o(l_eth), .m_len_o(l_len), .m_first_len_o(l_first_len),
      .sq_rst_i(sq_rst), .sq_rst_sqn_i(fw_wq_qn_i), .v_valid_i(v_valid), .v_ok_i(v_ok),
      .cqe_valid_o(g_cqe_valid[p]), .cqe_ready_i(g_cqe_ready[p]), .cqe_cqn_o(g_cqe_cqn[p*16 +: 16]),
      .cqe_data_o(g_cqe_data[p*256 +: 256]),
      .gerr_valid_o(g_gerr_valid[p]), .gerr_ready_i(g_gerr_ready[p]), .gerr_sqn_o(g_gerr_sqn[p*QW +: QW]),
      .dma_err_o(g_dma_err[p]), .lso_rej_o(g_lso_rej[p]), .r_seq_o(g_r_seq[p]),
      .rd_act_o(g_rd_act[p]), .rd_sqn_o(g_rd_sqn[p*QW +: QW]),
      .st_room_i(g_st_room[p]), .st_valid_o(g_st_valid[p]), .st_sqn_o(g_st_sqn[p*QW +: QW]), .st_total_o(g_st_total[p*17 +: 17]),
      .st_eth_o(g_st_eth[p*128 +: 128])
    );

    kite_txp_lso u_lso (
      .clk_i, .rst_ni,
      .s_valid_i(l_valid), .s_ready_o(l_ready), .s_data_i(l_data), .s_keep_i(l_keep), .s_last_i(l_last),
      .s_eth_i(l_eth), .s_len_i(l_len), .s_first_len_i(l_first_len),
      .m_valid_o(t_valid), .m_ready_i(t_ready), .m_data_o(t_data), .m_keep_o(t_keep), .m_last_o(t_last),
      .m_no_fcs_o(t_no_fcs), .lso_cnt_o(lso_cnt), .seg_cnt_o(seg_cnt), .drop_cnt_o(drop_cnt),
      .v_valid_o(v_valid), .v_ok_o(v_ok)
    );

    kite_card_fcs u_fcs (
      .clk_i, .rst_ni,
      .s_valid_i(t_valid), .s_ready_o(t_ready), .s_data_i(t_data), .s_keep_i(t_keep), .s_last_i(t_last),
      .s_no_fcs_i(t_no_fcs), .m_valid_o(tx_tvalid_o[p]), .m_ready_i(tx_tready_i[p]), .m_data_o(tx_tdata_o[p*512 +: 512]),
      .m_keep_o(tx_tkeep_o[p*64 +: 64]), .m_last_o(tx_tlast_o[p]),
      .frame_o(fcs_frame[p]), .frame_len_o(fcs_len[p*16 +: 16])
    );

    assign lso_cnt_p[p*32 +: 32] = lso_cnt;
    logic unused_tx;
    assign unused_tx = ^{seg_cnt, drop_cnt};
  end

  // ============================================================== RX
  // Each port's frames wait in its kite_card_rxhold until kite_rx_dma has
  // decided them, so a frame parked for PAUSE is received again later
  // without stopping the other port.
  logic [NPORT-1:0]     h_valid, h_ready, h_last, h_epoch, h_commit, h_park, h_rewind, h_resume;
  logic [NPORT*512-1:0] h_data;
  logic [NPORT*64-1:0]  h_keep;
  for (genvar p = 0; p < NPORT; p++) begin : g_hold
    kite_card_rxhold u_hold (
      .clk_i, .rst_ni,
      .s_valid_i(rx_tvalid_i[p]), .s_ready_o(rx_tready_o[p]), .s_data_i(rx_tdata_i[p*512 +: 512]),
      .s_keep_i(rx_tkeep_i[p*64 +: 64]), .s_last_i(rx_tlast_i[p]),
      .m_valid_o(h_valid[p]), .m_ready_i(h_ready[p]), .m_data_o(h_data[p*512 +: 512]),
      .m_keep_o(h_keep[p*64 +: 64]), .m_last_o(h_last[p]), .m_epoch_o(h_epoch[p]),
      .commit_i(h_commit[p]), .park_i(h_park[p]), .rewind_i(h_rewind[p]), .resume_i(h_resume[p]),
      .xoff_o(rx_xoff_o[p])
    );
  end

  // Frame-level round robin between the ports (a port keeps the grant until
  // its last beat).
  logic          rx_lock_q;
  logic [PW-1:0] rx_sel_q, rx_sel;
  logic          in_valid, in_ready, in_last, fcs_ready, dma_s_ready;
  logic [511:0]  in_data;
  logic [63:0]   in_keep;
  always_comb begin
    rx_sel = rx_sel_q;
    if (!rx_lock_q && !h_valid[rx_sel_q]) begin
      for (int k = NPORT - 1; k >= 1; k--)
        if (h_valid[PW'((32'(rx_sel_q) + 32'(k)) % NPORT)]) rx_sel = PW'((32'(rx_sel_q) + 32'(k)) % NPORT);
    end
  end
  assign in_valid = h_valid[rx_sel];
  assign in_data  = h_data[rx_sel*512 +: 512];
  assign in_keep  = h_keep[rx_sel*64 +: 64];
  assign in_last  = h_last[rx_sel];
  assign in_ready = fcs_ready && dma_s_ready;
  always_comb begin
    h_ready = '0;
    h_ready[rx_sel] = in_ready;
  end

  // Port and destination MAC of each frame, for steering (read as records
  // leave kite_rxp) and the counters (read as kite_rx_dma's events come).
  // Deep enough for every frame between the input and its event: kite_rx_dma
  // holds 32, the parse / steer / hash pipelines fewer.
  localparam int unsigned NRXF = 64;
  logic [PW-1:0] rxport_mem [NRXF];
  logic          rxep_mem [NRXF];          // the port's epoch (kite_card_rxhold)
  logic [47:0]   rxda_mem [NRXF];
  logic [6:0]    rxport_wr_q, rxport_rd_q, rxport_st_q, rxport_dp_q;
  logic          rx_first_q;
  logic [47:0]   rx_da_q, rx_da;
  assign rx_da = rx_first_q ? in_data[47:0] : rx_da_q;
  always_ff @(posedge clk_i) begin
    if (in_valid && in_ready && in_last) begin
      rxport_mem[rxport_wr_q[5:0]] <= rx_sel;
      rxep_mem[rxport_wr_q[5:0]]   <= h_epoch[rx_sel];
      rxda_mem[rxport_wr_q[5:0]]   <= rx_da;
    end
    if (in_valid && in_ready && rx_first_q) rx_da_q <= in_data[47:0];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rx_first_q <= 1'b1;
    else if (in_valid && in_ready) rx_first_q <= in_last;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_lock_q <= 1'b0;
      rx_sel_q  <= '0;
    end else if (in_valid && in_ready) begin
      rx_lock_q <= !in_last;
      rx_sel_q  <= in_last ? PW'((32'(rx_sel) + 1) % NPORT) : rx_sel;
    end else if (!rx_lock_q) begin
      rx_sel_q <= rx_sel;
    end
  end

  logic         p_valid, p_ready, p_ip_frag, p_v4ok, p_roce, p_malformed, p_deep, p_l4_ok, p_l4_bad;
  logic [15:0]  p_len, p_tci, p_ethertype, p_l3_hdr_len, p_l3_end, p_l4_off, p_sport, p_dport, p_csum;
  logic [1:0]   p_num_vlans, p_l3, p_l4;
  logic [7:0]   p_l3_off, p_l4_proto, p_bth_opcode;
  logic [23:0]  p_bth_dqpn, p_bth_psn;
  logic [127:0] p_src_ip, p_dst_ip;

  // The parser sees frames without FCS; kite_rx_dma stores them with it.
  logic         f_valid, f_last, rxp_ready;
  logic [511:0] f_data;
  logic [63:0]  f_keep;
  kite_card_rxfcs u_rxfcs (
    .clk_i, .rst_ni,
    .s_valid_i(in_valid && dma_s_ready), .s_ready_o(fcs_ready), .s_data_i(in_data), .s_keep_i(in_keep),
    .s_last_i(in_last),
    .m_valid_o(f_valid), .m_ready_i(rxp_ready), .m_data_o(f_data), .m_keep_o(f_keep), .m_last_o(f_last)
  );

  kite_rxp u_rxp (
    .clk_i, .rst_ni,
    .s_valid_i(f_valid), .s_ready_o(rxp_ready), .s_data_i(f_data), .s_keep_i(f_keep),
    .s_last_i(f_last),
    .m_valid_o(p_valid), .m_ready_i(p_ready), .m_len_o(p_len), .m_num_vlans_o(p_num_vlans), .m_tci_o(p_tci),
    .m_ethertype_o(p_ethertype), .m_l3_off_o(p_l3_off), .m_l3_o(p_l3), .m_l3_hdr_len_o(p_l3_hdr_len),
    .m_l3_end_o(p_l3_end), .m_ip_frag_o(p_ip_frag), .m_ipv4_hdr_ok_o(p_v4ok), .m_l4_proto_o(p_l4_proto),
    .m_l4_o(p_l4), .m_l4_off_o(p_l4_off), .m_sport_o(p_sport), .m_dport_o(p_dport), .m_roce_o(p_roce),
    .m_bth_opcode_o(p_bth_opcode), .m_bth_dqpn_o(p_bth_dqpn), .m_bth_psn_o(p_bth_psn),
    .m_malformed_o(p_malformed), .m_deep_o(p_deep), .m_src_ip_o(p_src_ip), .m_dst_ip_o(p_dst_ip),
    .m_l4_ok_o(p_l4_ok), .m_l4_bad_o(p_l4_bad), .m_csum_complete_o(p_csum)
  );
  logic unused_rxp;
  assign unused_rxp = ^{p_len, p_ethertype, p_l3_off, p_l3_hdr_len, p_l3_end, p_l4_off,
                        p_roce, p_bth_opcode, p_bth_dqpn, p_bth_psn, p_deep};

  // Steering on the frame's port and destination MAC; the parse record
  // travels as its tag.
  localparam int unsigned STW = PW + 2 + 2 + 128 + 128 + 16 + 16 + 1 + 2 + 16 + 1 + 1 + 1 + 1 + 16;
  logic           st_valid, st_ready, st_drop, st_drop_flow, st_to_rq, st_mcast, st_bcast, st_cfg_bad;
  logic [15:0]    st_rq;
  logic [3:0]     st_rss_ctx;
  logic [STW-1:0] st_tag;
  logic [PW-1:0]  t_port;
  logic [1:0]     t_l3, t_l4, t_num_vlans;
  logic [127:0]   t_src_ip, t_dst_ip;
  logic [15:0]    t_sport, t_dport, t_tci, t_csum;
  logic           t_malf, t_v4, t_v4ok, t_l4ok, t_l4bad;

  kite_rx_steer #(.NPORT(NPORT), .TAG_W(STW)) u_steer (
    .clk_i, .rst_ni,
    .cfg_we_i(fw_flt_we_i), .cfg_port_i(fw_flt_port_i), .cfg_addr_i(fw_flt_addr_i),
    .cfg_wdata_i(fw_flt_wdata_i), .cfg_bad_o(st_cfg_bad),
    .s_valid_i(p_valid), .s_ready_o(p_ready), .s_port_i(rxport_mem[rxport_st_q[5:0]]),
    .s_da_i(rxda_mem[rxport_st_q[5:0]]), .s_num_vlans_i(p_num_vlans), .s_tci_i(p_tci), .s_l3_i(p_l3),
    .s_l4_i(p_l4), .s_l4_proto_i(p_l4_proto), .s_ip_frag_i(p_ip_frag), .s_malformed_i(p_malformed),
    .s_src_ip_i(p_src_ip), .s_dst_ip_i(p_dst_ip), .s_sport_i(p_sport), .s_dport_i(p_dport),
    .s_tag_i({rxport_mem[rxport_st_q[5:0]], p_l3, p_l4, p_src_ip, p_dst_ip, p_sport, p_dport, p_malformed,
              p_num_vlans, p_tci,
              p_l3 == 2'd1, p_v4ok, p_l4_ok, p_l4_bad, p_csum}),
    .m_valid_o(st_valid), .m_ready_i(st_ready), .m_tag_o(st_tag), .m_drop_o(st_drop),
    .m_drop_flow_o(st_drop_flow), .m_to_rq_o(st_to_rq), .m_rq_o(st_rq), .m_rss_ctx_o(st_rss_ctx),
    .m_mcast_o(st_mcast), .m_bcast_o(st_bcast)
  );
  assign {t_port, t_l3, t_l4, t_src_ip, t_dst_ip, t_sport, t_dport, t_malf, t_num_vlans, t_tci, t_v4, t_v4ok, t_l4ok,
          t_l4bad, t_csum} = st_tag;

  // Destination class of each frame, for the counters (read with the port).
  logic [1:0] rxcls_mem [NRXF];
  logic [6:0] rxcls_wr_q;
  always_ff @(posedge clk_i) if (st_valid && st_ready) rxcls_mem[rxcls_wr_q[5:0]] <= {st_mcast, st_bcast};

  // Records wait here while kite_rss hashes (same order).
  localparam int unsigned RW = 2 + 16 + 1 + 1 + 1 + 1 + 1 + 16 + 1 + 1 + 1 + 16;
  logic [RW-1:0] rec_mem [8];
  logic [3:0]    rec_wr_q, rec_rd_q;
  logic          rec_full, rss_s_ready, rss_valid, rss_ready;
  logic [31:0]   rss_hash;
  logic [7:0]    rss_htype;
  logic [15:0]   rss_queue, rss_tag;
  logic [PW+3:0] rss_ctx;
  logic [1:0]    r_num_vlans;
  logic [15:0]   r_tci, r_csum, r_rq;
  logic          r_v4, r_v4ok, r_l4ok, r_l4bad, r_malf, r_drop, r_drop_flow, r_to_rq;
  assign rec_full = (rec_wr_q - rec_rd_q) == 4'd8;
  assign st_ready = rss_s_ready && !rec_full;
  always_ff @(posedge clk_i) if (st_valid && st_ready)
    rec_mem[rec_wr_q[2:0]] <= {t_num_vlans, t_tci, t_v4, t_v4ok, t_l4ok, t_l4bad, t_malf, t_csum,
                               st_drop, st_drop_flow, st_to_rq, st_rq};
  assign {r_num_vlans, r_tci, r_v4, r_v4ok, r_l4ok, r_l4bad, r_malf, r_csum, r_drop, r_drop_flow, r_to_rq,
          r_rq} = rec_mem[rec_rd_q[2:0]];

  assign rss_ctx = {t_port, st_rss_ctx};

  kite_rss #(.NCTX(NPORT * 16)) u_rss (
    .clk_i, .rst_ni,
    .cfg_we_i(fw_rss_we_i), .cfg_ctx_i(fw_rss_ctx_i), .cfg_addr_i(fw_rss_addr_i), .cfg_wdata_i(fw_rss_wdata_i),
    .s_valid_i(st_valid && !rec_full), .s_ready_o(rss_s_ready), .s_ctx_i(rss_ctx), .s_l3_i(t_l3), .s_l4_i(t_l4),
    .s_src_ip_i(t_src_ip), .s_dst_ip_i(t_dst_ip), .s_sport_i(t_sport), .s_dport_i(t_dport), .s_tag_i('0),
    .s_malformed_i(t_malf),
    .m_valid_o(rss_valid), .m_ready_i(rss_ready), .m_hash_o(rss_hash), .m_hash_type_o(rss_htype),
    .m_queue_o(rss_queue), .m_tag_o(rss_tag)
  );
  logic unused_tag;
  assign unused_tag = ^{rss_tag, st_cfg_bad};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rec_wr_q <= '0;
      rec_rd_q <= '0;
    end else begin
      if (st_valid && st_ready) rec_wr_q <= rec_wr_q + 1'b1;
      if (rss_valid && rss_ready) rec_rd_q <= rec_rd_q + 1'b1;
    end
  end

  logic         x_rd_valid, x_rd_ready, x_rsp_valid, x_rsp_ready;
  logic [FN_W-1:0] x_rd_fn, x_wr_fn;
  logic [63:0]  x_rd_addr, x_wr_addr;
  logic [15:0]  x_rd_len, x_wr_len;
  logic [7:0]   x_rd_id, x_wr_id;
  logic         x_wr_valid, x_wr_ready, x_wd_valid, x_wd_ready;
  logic [511:0] x_wd;
  logic         x_cqe_valid, x_cqe_ready;
  logic [15:0]  x_cqe_cqn;
  logic [255:0] x_cqe_data;
  logic         x_ev_valid, x_ev_csum_ok, x_ev_bad_csum, x_rqerr_write;
  logic [3:0]   x_ev_kind;
  logic [15:0]  x_ev_qn, x_ev_len;

  // PAUSE at dispatch. The frame's port and epoch are read in frame order
  // as kite_rx_dma takes records. A frame sent before its port's last park
  // carries the old epoch: it is stale (it will come again) and discarded
  // like a steering drop, without a count. A port with PAUSE_RX parks a
  // frame whose ring is empty (kite_rx_dma's park_o; it drops the frame
  // as EV_NO_BUF_Q, which then counts rx_pause only). Both are noted per
  // frame for its event.
  logic             x_park, d_stale, e_stale_x, e_park_x;
  logic [PW-1:0]    dsp_port, ev_port;
  logic [NPORT-1:0] dep_q, pause_q;
  logic [1:0]       rxmark_mem [NRXF];    // {stale, parked}
  assign dsp_port  = rxport_mem[rxport_dp_q[5:0]];
  assign d_stale   = rxep_mem[rxport_dp_q[5:0]] != dep_q[dsp_port];
  assign ev_port   = rxport_mem[rxport_rd_q[5:0]];
  assign {e_stale_x, e_park_x} = rxmark_mem[rxport_rd_q[5:0]];
  always_ff @(posedge clk_i) if (rss_valid && rss_ready) rxmark_mem[rxport_dp_q[5:0]] <= {d_stale, x_park};

  // What may let a parked frame through: an RQ doorbell or RQ context of
  // its port, its port's PAUSE setting.
  logic [PW-1:0] rqport_q [NQ];
  always_ff @(posedge clk_i) if (fw_wq_take && fw_wq_rq_i) rqport_q[fw_wq_qn_i] <= fw_wq_port_i;
  always_comb begin
    for (int p = 0; p < NPORT; p++) begin
      h_park[p]   = x_park && dsp_port == PW'(p);
      h_rewind[p] = x_ev_valid && e_park_x && ev_port == PW'(p);
      h_commit[p] = x_ev_valid && !e_park_x && !e_stale_x && ev_port == PW'(p);
      h_resume[p] = (acc_valid && acc_rq && rqport_q[acc_qn] == PW'(p)) ||
                    (fw_wq_take && fw_wq_rq_i && fw_wq_port_i == PW'(p)) ||
                    (fw_port_we_i && fw_port_sel_i == PW'(p));
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dep_q   <= '0;
      pause_q <= '0;
    end else begin
      dep_q <= dep_q ^ h_park;
      if (fw_port_we_i) pause_q[fw_port_sel_i] <= fw_port_pause_i;
    end
  end

  kite_rx_dma #(.NQ(NQ), .FN_W(FN_W), .RD_ID(RD_ID_RX), .WR_ID(8'h00)) u_rx_dma (
    .clk_i, .rst_ni,
    .cfg_valid_i(fw_wq_take && fw_wq_rq_i), .cfg_qn_i(fw_wq_qn_i), .cfg_en_i(fw_wq_en_i),
    .cfg_state_i(fw_wq_state_i), .cfg_fn_i(fw_wq_fn_i), .cfg_log_size_i(fw_wq_log_size_i),
    .cfg_log_stride_i(fw_wq_log_stride_i), .cfg_cqn_i(fw_wq_cqn_i), .cfg_base_i(fw_wq_base_i),
    .cfg_flags_i(fw_wq_flags_i), .cfg_drain_o(rx_drain),
    .acc_valid_i(acc_valid && acc_rq), .acc_qn_i(acc_qn), .acc_pi_i(acc_pi),
    .s_valid_i(in_valid && fcs_ready), .s_ready_o(dma_s_ready), .s_data_i(in_data), .s_keep_i(in_keep),
    .s_last_i(in_last),
    .meta_valid_i(rss_valid), .meta_ready_o(rss_ready), .meta_rqn_i(r_to_rq ? r_rq : rss_queue),
    .meta_hash_i(rss_hash),
    .meta_hash_type_i(rss_htype), .meta_num_vlans_i(r_num_vlans), .meta_tci_i(r_tci), .meta_ipv4_i(r_v4),
    .meta_ipv4_hdr_ok_i(r_v4ok), .meta_l4_ok_i(r_l4ok), .meta_l4_bad_i(r_l4bad), .meta_malformed_i(r_malf),
    .meta_csum_i(r_csum), .meta_drop_i(r_drop || d_stale), .meta_drop_flow_i(r_drop_flow),
    .meta_pause_i(pause_q[dsp_port]), .park_o(x_park),
    .rd_req_valid_o(x_rd_valid), .rd_req_ready_i(x_rd_ready), .rd_req_id_o(x_rd_id), .rd_req_fn_o(x_rd_fn),
    .rd_req_addr_o(x_rd_addr), .rd_req_len_o(x_rd_len), .cfg_max_read_req_i,
    .rd_rsp_valid_i(x_rsp_valid), .rd_rsp_ready_o(x_rsp_ready), .rd_rsp_data_i(rd_rsp_data),
    .rd_rsp_keep_i(rd_rsp_keep), .rd_rsp_last_i(rd_rsp_last), .rd_rsp_err_i(rd_rsp_err),
    .wr_req_valid_o(x_wr_valid), .wr_req_ready_i(x_wr_ready), .wr_req_id_o(x_wr_id), .wr_req_fn_o(x_wr_fn),
    .wr_req_addr_o(x_wr_addr), .wr_req_len_o(x_wr_len),
    .wr_data_valid_o(x_wd_valid), .wr_data_ready_i(x_wd_ready), .wr_data_o(x_wd),
    .wr_done_i(wr_done), .wr_done_id_i(wr_done_id), .wr_done_err_i(wr_done_err),
    .wr_wait_i(1'b0),   // PCIe writes are posted: none fails (kite_rx_dma's header)
    .cqe_valid_o(x_cqe_valid), .cqe_ready_i(x_cqe_ready), .cqe_cqn_o(x_cqe_cqn), .cqe_data_o(x_cqe_data),
    .rqci_valid_o(rqci_valid), .rqci_ready_i(rqci_ready), .rqci_qn_o(rqci_qn), .rqci_ci_o(rqci_ci),
    .rqerr_valid_o(rq_err_o), .rqerr_qn_o(rq_err_qn_o), .rqerr_write_o(x_rqerr_write),
    .ev_valid_o(x_ev_valid), .ev_kind_o(x_ev_kind), .ev_qn_o(x_ev_qn), .ev_len_o(x_ev_len),
    .ev_csum_ok_o(x_ev_csum_ok), .ev_bad_csum_o(x_ev_bad_csum)
  );

  // Lowest-numbered port first among the TX gathers.
  logic [PW-1:0] g_cqe_sel, g_rd_sel;
  always_comb begin
    g_cqe_sel = '0;
    g_rd_sel  = '0;
    for (int p = NPORT - 1; p >= 0; p--) begin
      if (g_cqe_valid[p]) g_cqe_sel = PW'(p);
      if (g_rd_valid[p]) g_rd_sel = PW'(p);
    end
  end

  // ============================================================== DMA reads
  // Fixed priority: WQE fetch, RX WQE, TX gather by port, firmware. Read
  // ids: the fetch's tags 0x00..0x7f (id[7] clear), RX WQE 0x80 (RD_ID_RX),
  // gather 0xa0 | port (RD_ID_TXG), firmware 0xc0 (RD_ID_FW). Responses go
  // back by id. Each carries the function of the queue (or firmware
  // request) it is for.
  always_comb begin
    rd_req_valid = 1'b0;
    rd_req_id    = '0;
    rd_req_fn    = '0;
    rd_req_addr  = '0;
    rd_req_len   = '0;
    f_rd_ready   = 1'b0;
    x_rd_ready   = 1'b0;
    g_rd_ready   = '0;
    fw_rd_ready_o = 1'b0;
    if (f_rd_valid) begin
      rd_req_valid = 1'b1;
      rd_req_id    = 8'(f_rd_tag);
      rd_req_fn    = 8'(f_rd_fn);
      rd_req_addr  = f_rd_addr;
      rd_req_len   = 16'(f_rd_len);
      f_rd_ready   = rd_req_ready;
    end else if (x_rd_valid) begin
      rd_req_valid = 1'b1;
      rd_req_id    = x_rd_id;
      rd_req_fn    = 8'(x_rd_fn);
      rd_req_addr  = x_rd_addr;
      rd_req_len   = x_rd_len;
      x_rd_ready   = rd_req_ready;
    end else if (|g_rd_valid) begin
      rd_req_valid = 1'b1;
      rd_req_id    = RD_ID_TXG | 8'(g_rd_sel);
      rd_req_fn    = 8'(g_rd_fn[g_rd_sel*FN_W +: FN_W]);
      rd_req_addr  = g_rd_addr[g_rd_sel*64 +: 64];
      rd_req_len   = g_rd_len[g_rd_sel*16 +: 16];
      g_rd_ready[g_rd_sel] = rd_req_ready;
    end else if (fw_rd_valid_i) begin
      rd_req_valid  = 1'b1;
      rd_req_id     = RD_ID_FW;
      rd_req_fn     = 8'(fw_rd_fn_i);
      rd_req_addr   = fw_rd_addr_i;
      rd_req_len    = fw_rd_len_i;
      fw_rd_ready_o = rd_req_ready;
    end
  end
  assign fw_rd_rsp_valid_o = rd_rsp_valid && rd_rsp_id == RD_ID_FW;
  assign fw_rd_rsp_data_o  = rd_rsp_data;
  assign fw_rd_rsp_keep_o  = rd_rsp_keep;
  assign fw_rd_rsp_last_o  = rd_rsp_last;
  assign fw_rd_rsp_err_o   = rd_rsp_err;
  logic unused_rdfn;
  assign unused_rdfn = ^{x_rqerr_write, d_nsge, d_flush};

  always_comb begin
    f_cpl_valid = rd_rsp_valid && !rd_rsp_id[7];
    x_rsp_valid = rd_rsp_valid && rd_rsp_id == RD_ID_RX;
    rd_rsp_ready = !rd_rsp_id[7] || (rd_rsp_id == RD_ID_RX && x_rsp_ready);
    for (int p = 0; p < NPORT; p++) begin
      g_rsp_valid[p] = rd_rsp_valid && rd_rsp_id == (RD_ID_TXG | 8'(p));
      if (rd_rsp_id == (RD_ID_TXG | 8'(p))) rd_rsp_ready = g_rsp_ready[p];
    end
    if (rd_rsp_id == RD_ID_FW) rd_rsp_ready = 1'b1;  // the firmware takes every beat
  end

  // ============================================================== CQ/EQ
  // Command sources, highest priority first: firmware, CQ/EQ doorbells
  // (queued: the doorbell decoder does not wait), queue manager
  // completions, RX CQEs, TX CQEs by port.
  logic [2+16+16+3-1:0] ce_mem [16];
  logic [4:0]   ce_wr_q, ce_rd_q;
  logic         ce_empty;
  logic [2:0]   cf_reg;
  logic [15:0]  cf_qn, cf_idx;
  logic [1:0]   cf_pad;
  logic [31:0]  ce_drop_q;
  assign ce_empty = ce_wr_q == ce_rd_q;
  assign {cf_pad, cf_qn, cf_idx, cf_reg} = ce_mem[ce_rd_q[3:0]];
  always_ff @(posedge clk_i) if (ce_valid) ce_mem[ce_wr_q[3:0]] <= {2'b00, ce_qn, ce_idx, ce_reg};
  logic unused_ce;
  assign unused_ce = ^{ce_fn, ce_page, cf_pad, ce_drop_q};

  localparam logic [2:0] CMD_CQE = 3'd0, CMD_CQ_DB = 3'd1, CMD_EQ_DB = 3'd2, CMD_EVENT = 3'd3;
  logic         c_valid, c_ready, c_arm, c_sol;
  logic [2:0]   c_op;
  logic [15:0]  c_qn, c_ci;
  logic [255:0] c_data, qc_cqe;
  logic         ce_take;
  // WQ_ERROR event of an SQ the queue manager moved to ERR (one waits here).
  logic            qe_pend_q, qe_take;
  logic [QW-1:0]   qe_qn_q;
  logic [FN_W-1:0] qe_fn_q;
  logic [255:0]    qe_eqe;
  assign sq_err_o    = qe_valid;
  assign sq_err_qn_o = qe_qn;
  always_comb begin
    qe_eqe = '0;    // kite_pkg::eqe_t as bytes: ev_type, subtype (0: SQ), obj, data
    qe_eqe[7:0]   = 8'(kite_pkg::EQE_TYPE_WQ_ERROR);
    qe_eqe[63:32] = 32'(qe_qn_q);
    qe_eqe[95:64] = 32'(kite_pkg::SYNDROME_DMA_READ);
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      qe_pend_q <= 1'b0;
      qe_qn_q   <= '0;
      qe_fn_q   <= '0;
    end else if (qe_valid) begin
      qe_pend_q <= 1'b1;
      qe_qn_q   <= qe_qn;
      qe_fn_q   <= qe_fn;
    end else if (qe_take) begin
      qe_pend_q <= 1'b0;
    end
  end

  always_comb begin
    qc_cqe = '0;
    qc_cqe[95:64]   = 32'(qc_qn);
    qc_cqe[143:128] = qc_wqe_index;
    qc_cqe[151:144] = qc_opcode;
    qc_cqe[159:152] = qc_status;
    // Flush CQEs carry no opcode (the model's QueueEngine::flush).
    qc_cqe[175:168] = qc_rq || qc_status == 8'(kite_pkg::CQE_STATUS_WR_FLUSH_ERR) ? 8'd0 :
                      8'(kite_pkg::WQE_OPCODE_ETH_TX);
    qc_cqe[223:192] = qc_syndrome;
  end

  // The queue manager's flush CQEs come after the WQEs their SQ's port
  // had taken (kite_qm parks a flush until then, from port_h_seq /
  // port_r_seq); the fetch's own CQEs go through the port's queue (above).
  logic qc_go;
  assign qc_go    = qc_valid && !qc_fetch;
  assign qc_ready = qc_fetch ? q_s_ready[qc_port] : qc_fl_ready;

  always_comb begin
    c_valid = 1'b1;
    c_op    = CMD_CQE;
    c_qn    = '0;
    c_ci    = '0;
    c_arm   = 1'b0;
    c_sol   = 1'b0;
    c_data  = '0;
    fw_cq_ready_o = 1'b0;
    ce_take = 1'b0;
    qe_take = 1'b0;
    qc_fl_ready = 1'b0;
    x_cqe_ready = 1'b0;
    g_cqe_ready = '0;
    if (fw_cq_valid_i) begin
      c_op = fw_cq_op_i; c_qn = fw_cq_qn_i; c_data = fw_cq_data_i;
      fw_cq_ready_o = c_ready;
    end else if (qe_pend_q) begin
      c_op = CMD_EVENT; c_qn = 16'(qe_fn_q); c_data = qe_eqe;
      qe_take = c_ready;
    end else if (!ce_empty) begin
      c_op  = cf_reg >= 3'd5 ? CMD_EQ_DB : CMD_CQ_DB;
      c_qn  = cf_qn;
      c_ci  = cf_idx;
      c_arm = cf_reg == 3'd3 || cf_reg == 3'd4 || cf_reg == 3'd6;
      c_sol = cf_reg == 3'd4;
      ce_take = c_ready;
    end else if (qc_go) begin
      c_qn = qc_cqn; c_data = qc_cqe;
      qc_fl_ready = c_ready;
    end else if (x_cqe_valid) begin
      c_qn = x_cqe_cqn; c_data = x_cqe_data;
      x_cqe_ready = c_ready;
    end else begin
      c_valid = |g_cqe_valid;
      c_qn    = g_cqe_cqn[g_cqe_sel*16 +: 16];
      c_data  = g_cqe_data[g_cqe_sel*256 +: 256];
      g_cqe_ready[g_cqe_sel] = c_ready && g_cqe_valid[g_cqe_sel];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ce_wr_q   <= '0;
      ce_rd_q   <= '0;
      ce_drop_q <= '0;
    end else begin
      if (ce_valid) begin
        if ((ce_wr_q - ce_rd_q) == 5'd16) ce_drop_q <= ce_drop_q + 1'b1;
        else ce_wr_q <= ce_wr_q + 1'b1;
      end
      if (ce_take) ce_rd_q <= ce_rd_q + 1'b1;
    end
  end

  logic         k_wr_valid, k_wr_ready;
  logic [FN_W-1:0] k_wr_fn;
  logic [63:0]  k_wr_addr;
  logic [5:0]   k_wr_len;
  logic [255:0] k_wr_data;
  logic         k_overflow, k_cq_bad, k_eq_overflow, k_ev_drop, k_eq_bad, k_busy, k_idle;
  logic [15:0]  k_overflow_cqn;

  kite_cq #(.MAX_FN(17), .FN_W(FN_W)) u_cq (
    .clk_i, .rst_ni,
    .cmd_valid_i(c_valid), .cmd_ready_o(c_ready), .cmd_op_i(c_op), .cmd_qn_i(c_qn), .cmd_ci_i(c_ci),
    .cmd_arm_i(c_arm), .cmd_sol_i(c_sol), .cmd_data_i(c_data),
    .now_us_i, .tick_i,
    .dma_wr_valid_o(k_wr_valid), .dma_wr_ready_i(k_wr_ready), .dma_wr_fn_o(k_wr_fn),
    .dma_wr_addr_o(k_wr_addr), .dma_wr_len_o(k_wr_len), .dma_wr_data_o(k_wr_data),
    .msix_valid_o, .msix_ready_i, .msix_fn_o, .msix_vector_o,
    .cqe_drop_o, .cq_overflow_o(k_overflow), .cq_overflow_cqn_o(k_overflow_cqn), .cq_bad_o(k_cq_bad),
    .eq_overflow_o(k_eq_overflow), .ev_drop_o(k_ev_drop), .eq_bad_o(k_eq_bad), .busy_o(k_busy),
    .idle_o(k_idle)
  );
  logic unused_cq;
  assign unused_cq = ^{k_overflow, k_overflow_cqn, k_cq_bad, k_eq_overflow, k_ev_drop, k_eq_bad,
                       k_busy, k_idle, ci_valid, ci_rew, ci_sqn, ci_idx, pick_valid, pick_sqn, db_dropped,
                       tx_bad_desc, tx_dma_error, cnt_rc_unexp_tag, cnt_rc_cpl_err, cnt_rc_bad,
                       cnt_rd_zero_len, cnt_wr_zero_len, cnt_cq_unsup, tags_used, tags_pool, x_wr_id};

  // ============================================================== DMA writes
  // A granted request keeps the data channel until its words have passed:
  // RX data words come from kite_rx_dma, a CQE/EQE is one word, its bytes
  // moved to their address lanes; firmware words come from its port (id 2).
  typedef enum logic [1:0] {W_IDLE, W_RX, W_CQ, W_FW} wstate_e;
  wstate_e      ws_q;
  logic [10:0]  w_left_q;
  logic [511:0] k_word_q;
  always_comb begin
    wr_req_valid = 1'b0;
    wr_req_id    = '0;
    wr_req_fn    = '0;
    wr_req_addr  = '0;
    wr_req_len   = '0;
    x_wr_ready   = 1'b0;
    k_wr_ready   = 1'b0;
    fw_wr_ready_o = 1'b0;
    if (ws_q == W_IDLE) begin
      if (x_wr_valid) begin
        wr_req_valid = 1'b1;
        wr_req_id    = 8'h00;
        wr_req_fn    = 8'(x_wr_fn);
        wr_req_addr  = x_wr_addr;
        wr_req_len   = x_wr_len;
        x_wr_ready   = wr_req_ready;
      end else if (k_wr_valid) begin
        wr_req_valid = 1'b1;
        wr_req_id    = 8'h01;
        wr_req_fn    = 8'(k_wr_fn);
        wr_req_addr  = k_wr_addr;
        wr_req_len   = 16'(k_wr_len);
        k_wr_ready   = wr_req_ready;
      end else if (fw_wr_valid_i) begin
        wr_req_valid  = 1'b1;
        wr_req_id     = 8'h02;
        wr_req_fn     = 8'(fw_wr_fn_i);
        wr_req_addr   = fw_wr_addr_i;
        wr_req_len    = fw_wr_len_i;
        fw_wr_ready_o = wr_req_ready;
      end
    end
  end
  assign wr_data_valid = ws_q == W_RX ? x_wd_valid : ws_q == W_FW ? fw_wd_valid_i : ws_q == W_CQ;
  assign wr_data       = ws_q == W_RX ? x_wd : ws_q == W_FW ? fw_wd_i : k_word_q;
  assign x_wd_ready    = ws_q == W_RX && wr_data_ready;
  assign fw_wd_ready_o = ws_q == W_FW && wr_data_ready;
  assign fw_wr_done_o  = wr_done && wr_done_id == 8'h02;
  assign fw_wr_err_o   = wr_done_err;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ws_q     <= W_IDLE;
      w_left_q <= '0;
      k_word_q <= '0;
    end else begin
      unique case (ws_q)
        W_IDLE: if (x_wr_valid && x_wr_ready) begin
          ws_q     <= W_RX;
          w_left_q <= 11'((17'(x_wr_addr[5:0]) + 17'(x_wr_len) + 17'd63) >> 6);
        end else if (k_wr_valid && k_wr_ready) begin
          ws_q     <= W_CQ;
          k_word_q <= {256'd0, k_wr_data} << {k_wr_addr[5:0], 3'b000};
        end else if (fw_wr_valid_i && fw_wr_ready_o) begin
          ws_q     <= W_FW;
          w_left_q <= 11'((17'(fw_wr_addr_i[5:0]) + 17'(fw_wr_len_i) + 17'd63) >> 6);
        end
        W_RX, W_FW: if (wr_data_valid && wr_data_ready) begin
          w_left_q <= w_left_q - 1'b1;
          if (w_left_q == 11'd1) ws_q <= W_IDLE;
        end
        W_CQ: if (wr_data_ready) ws_q <= W_IDLE;
        default: ws_q <= W_IDLE;
      endcase
    end
  end

  // ============================================================== counters
  // Sources: 0-3 an RX frame's port counters and 4-6 its RQ counters, all of
  // one frame in the same cycle (kite_rx_dma reports at most one frame per
  // cycle, so nothing queues); then per port TX packets, TX bytes; then the
  // SQ counters (a sent frame's packets, bytes, csum, lso; an error CQE's
  // errors, drops) and the SQ/RQ doorbells; last the counts reported as
  // increments (source NSRC-1). Each source's bank covers only the counters
  // it may hit (kite_stats SRC_WIN): port_stats (1), the RQs' (2) or the
  // SQs' (3) queue_stats, or all (0, the doorbells).
  localparam int unsigned NRX = 7;
  localparam int unsigned NSQ = 7;
  localparam int unsigned SQ0 = NRX + 2 * NPORT;   // first SQ source
  localparam int unsigned NSRC = SQ0 + NSQ + 1;
  localparam logic [2*NSRC-1:0] SRC_WIN = {2'd1, 2'd0, {6{2'd3}}, {(2 * NPORT){2'd1}}, {3{2'd2}}, {4{2'd1}}};
  localparam int unsigned IW = 14;
  logic [NSRC-1:0]      inc_valid;
  logic [NSRC*IW-1:0]   inc_idx;
  logic [NSRC*32-1:0]   inc_amt;
  logic [31:0]          st_bad;
  logic                 inc_valid_x;
  logic [IW-1:0]        inc_idx_x;
  logic [31:0]          inc_amt_x;
  logic                 st_busy;

  // kite_rx_dma's event, with the frame's port and destination class, one
  // register stage before the counters.
  logic         ev_q, e_stale, e_park;
  logic [3:0]   e_kind;
  logic [15:0]  e_qn, e_len;
  logic         e_ok, e_bad, e_mc, e_bc;
  logic [PW-1:0] e_port;
  logic [IW-1:0] e_pbase, e_qbase;
  always_ff @(posedge clk_i) if (x_ev_valid)
    {e_kind, e_qn, e_len, e_ok, e_bad, e_mc, e_bc, e_port, e_stale, e_park} <=
        {x_ev_kind, x_ev_qn, x_ev_len, x_ev_csum_ok, x_ev_bad_csum,
         rxcls_mem[rxport_rd_q[5:0]], rxport_mem[rxport_rd_q[5:0]], e_stale_x, e_park_x};
  assign e_pbase = IW'(32'(e_port) * 32);
  assign e_qbase = IW'(64 + 8 * (512 + 32'(e_qn[QW-1:0])));   // RQ n: queue slot 512 + n

  // The event's increments, one per source (port_stats / queue_stats words).
  logic [NRX-1:0]    r_inc;
  logic [IW-1:0]     r_idx [NRX];
  logic [31:0]       r_amt [NRX];
  always_comb begin
    r_inc = '0;
    for (int k = 0; k < NRX; k++) begin
      r_idx[k] = k < 4 ? e_pbase : e_qbase;
      r_amt[k] = 32'd1;
    end
    unique case (e_kind)
      4'd0: begin  // delivered
        r_inc = {e_ok, 2'b11, e_bad, 3'b111};
        r_idx[0] = e_pbase + 0;                          // rx_packets
        r_idx[1] = e_pbase + 1;  r_amt[1] = 32'(e_len);  // rx_bytes
        r_idx[2] = e_pbase + 29;                         // rx_csum_complete
        r_idx[3] = e_pbase + 8;                          // rx_bad_csum
        r_idx[4] = e_qbase + 0;                          // RQ packets
        r_idx[5] = e_qbase + 1;  r_amt[5] = 32'(e_len);  // RQ bytes
        r_idx[6] = e_qbase + 4;                          // RQ csum
      end
      4'd1: begin r_inc[0] = 1'b1; r_idx[0] = e_pbase + 4; end             // rx_no_buffer
      4'd2, 4'd5: begin                                                    // rx_no_buffer, RQ drops / errors
        r_inc[0] = 1'b1; r_idx[0] = e_pbase + 4;
        r_inc[4] = 1'b1; r_idx[4] = e_qbase + (e_kind == 4'd2 ? 2 : 3);
      end
      4'd3: begin r_inc[0] = 1'b1; r_idx[0] = e_pbase + 27; end            // rx_malformed
      4'd8: begin r_inc[0] = 1'b1; r_idx[0] = e_pbase + 9; end             // rx_filtered
      4'd9: begin r_inc[0] = 1'b1; r_idx[0] = e_pbase + 30; end            // rx_flow_drop
      4'd4: begin                                                          // rx_oversize, RQ drops
        r_inc[0] = 1'b1; r_idx[0] = e_pbase + 6;
        r_inc[4] = 1'b1; r_idx[4] = e_qbase + 2;
      end
      default: begin r_inc[4] = 1'b1; r_idx[4] = e_qbase + 3; end          // RQ errors
    endcase
    // PAUSE: a parked frame counts rx_pause only, a stale one nothing.
    if (e_park) begin
      r_inc    = '0;
      r_inc[0] = 1'b1;
      r_idx[0] = e_pbase + 16;
    end
    if (!ev_q || e_stale) r_inc = '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ev_q        <= 1'b0;
      rxport_wr_q <= '0;
      rxport_rd_q <= '0;
      rxport_st_q <= '0;
      rxport_dp_q <= '0;
      rxcls_wr_q  <= '0;
    end else begin
      if (in_valid && in_ready && in_last) rxport_wr_q <= rxport_wr_q + 1'b1;
      if (p_valid && p_ready) rxport_st_q <= rxport_st_q + 1'b1;
      if (rss_valid && rss_ready) rxport_dp_q <= rxport_dp_q + 1'b1;
      if (st_valid && st_ready) rxcls_wr_q <= rxcls_wr_q + 1'b1;
      ev_q <= x_ev_valid;
      if (x_ev_valid) rxport_rd_q <= rxport_rd_q + 1'b1;
    end
  end

  always_comb begin
    inc_valid = '0;
    inc_idx   = '0;
    inc_amt   = '0;
    for (int k = 0; k < NRX; k++) begin
      inc_valid[k]        = r_inc[k];
      inc_idx[k*IW +: IW] = r_idx[k];
      inc_amt[k*32 +: 32] = r_amt[k];
    end
    inc_valid[NSRC-1] = inc_valid_x;
    inc_idx[(NSRC-1)*IW +: IW] = inc_idx_x;
    inc_amt[(NSRC-1)*32 +: 32] = inc_amt_x;
    for (int k = 0; k < NSQ; k++) begin
      inc_valid[SQ0 + k]          = q_inc[k];
      inc_idx[(SQ0 + k)*IW +: IW] = q_idx[k];
      inc_amt[(SQ0 + k)*32 +: 32] = q_amt[k];
    end
    for (int p = 0; p < NPORT; p++) begin
      inc_valid[NRX + 2*p]              = fcs_frame[p];
      inc_idx[(NRX + 2*p)*IW +: IW]     = IW'(32 * p + 2);   // tx_packets
      inc_amt[(NRX + 2*p)*32 +: 32]     = 32'd1;
      inc_valid[NRX + 1 + 2*p]          = fcs_frame[p];
      inc_idx[(NRX + 1 + 2*p)*IW +: IW] = IW'(32 * p + 3);   // tx_bytes
      inc_amt[(NRX + 1 + 2*p)*32 +: 32] = 32'(fcs_len[p*16 +: 16]);
    end
  end

  // ---------------------------------------------------------- SQ counters
  // A frame sent by a port's gather (read without error, taken by the
  // segmenter) counts packets, bytes, csum and lso of its SQ, as the model's
  // TxPipeline::process_wqe counts a sent WQE. The events wait in a queue
  // per port (SQD entries) and go on one per cycle through a division
  // pipeline that turns an LSO super-frame into its segment count,
  // ceil((total - hdr_len) / mss), or 1 without payload, as kite::tx_lso
  // cuts it. A gather retires a frame only while its queue has room, so no
  // event is lost; the queue manager hands on one gather entry per cycle to
  // both gathers, so one event per cycle keeps up.
  localparam int unsigned SQD = 4;
  localparam int unsigned SEW = QW + 17 + 2 + 16 + 16;   // sqn, total, csum, lso, hdr_len, mss
  localparam int unsigned DQ  = 18;   // quotient bits: 64 KiB + mss - 1 < 2^18
  logic [SEW-1:0]   stq_mem [NPORT*SQD];
  logic [2:0]       stq_wr_q [NPORT];
  logic [2:0]       stq_rd_q [NPORT];
  logic [PW-1:0]    stq_rr_q, stq_sel;
  logic             stq_any;
  logic [SEW-1:0]   stq_head;
  always_comb begin
    stq_any = 1'b0;
    stq_sel = stq_rr_q;
    for (int k = NPORT - 1; k >= 0; k--) begin
      if (stq_wr_q[(32'(stq_rr_q) + 32'(k)) % NPORT] != stq_rd_q[(32'(stq_rr_q) + 32'(k)) % NPORT]) begin
        stq_any = 1'b1;
        stq_sel = PW'((32'(stq_rr_q) + 32'(k)) % NPORT);
      end
    end
  end
  for (genvar p = 0; p < NPORT; p++) begin : g_stq_room
    assign g_st_room[p] = stq_wr_q[p] - stq_rd_q[p] != 3'(SQD);
  end
  assign stq_head = stq_mem[32'(stq_sel) * SQD + 32'(stq_rd_q[stq_sel][1:0])];
  always_ff @(posedge clk_i) begin
    for (int p = 0; p < NPORT; p++)
      if (g_st_valid[p])
        stq_mem[p * SQD + 32'(stq_wr_q[p][1:0])] <=
            {g_st_sqn[p*QW +: QW], g_st_total[p*17 +: 17], |g_st_eth[p*128 +: 2], g_st_eth[p*128 + 2],
             g_st_eth[p*128 + 64 +: 16], g_st_eth[p*128 + 16 +: 16]};
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int p = 0; p < NPORT; p++) begin
        stq_wr_q[p] <= '0;
        stq_rd_q[p] <= '0;
      end
      stq_rr_q   <= '0;
    end else begin
      for (int p = 0; p < NPORT; p++) if (g_st_valid[p]) stq_wr_q[p] <= stq_wr_q[p] + 1'b1;
      if (stq_any) begin
        stq_rd_q[stq_sel] <= stq_rd_q[stq_sel] + 1'b1;
        stq_rr_q          <= PW'((32'(stq_sel) + 1) % NPORT);
      end
    end
  end

  // Restoring division, one quotient bit per stage.
  logic [QW-1:0] h_sqn;
  logic [16:0]   h_total, h_pay;
  logic          h_csum, h_lso;
  logic [15:0]   h_hdr, h_mss;
  assign {h_sqn, h_total, h_csum, h_lso, h_hdr, h_mss} = stq_head;
  assign h_pay = h_total - 17'(h_hdr);
  logic             dv_q  [DQ+1];
  logic [DQ-1:0]    dn_q  [DQ+1];   // numerator bits not yet taken, MSB first
  logic [15:0]      dr_q  [DQ+1];   // partial remainder (< mss)
  logic [DQ-1:0]    dqt_q [DQ+1];   // quotient bits so far
  logic [15:0]      dd_q  [DQ+1];   // mss
  logic             d1_q  [DQ+1];   // one packet: not LSO, or no payload
  logic [QW+17+1:0] de_q  [DQ+1];   // sqn, total, csum, lso
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int k = 0; k <= DQ; k++) dv_q[k] <= 1'b0;
    end else begin
      dv_q[0] <= stq_any;
      for (int k = 0; k < DQ; k++) dv_q[k+1] <= dv_q[k];
    end
  end
  logic [16:0]      d_rs  [DQ];     // remainder and the next numerator bit
  logic             d_ge  [DQ];
  always_comb begin
    for (int k = 0; k < DQ; k++) begin
      d_rs[k] = {dr_q[k], dn_q[k][DQ-1]};
      d_ge[k] = d_rs[k] >= {1'b0, dd_q[k]};
    end
  end
  always_ff @(posedge clk_i) begin
    dn_q[0]  <= DQ'(h_pay) + DQ'(h_mss) - DQ'(1);
    dr_q[0]  <= '0;
    dqt_q[0] <= '0;
    dd_q[0]  <= h_mss;
    d1_q[0]  <= !h_lso || h_pay == '0 || h_mss == '0;
    de_q[0]  <= {h_sqn, h_total, h_csum, h_lso};
    for (int k = 0; k < DQ; k++) begin
      dr_q[k+1]  <= d_ge[k] ? 16'(d_rs[k] - {1'b0, dd_q[k]}) : d_rs[k][15:0];
      dqt_q[k+1] <= {dqt_q[k][DQ-2:0], d_ge[k]};
      dn_q[k+1]  <= dn_q[k] << 1;
      dd_q[k+1]  <= dd_q[k];
      d1_q[k+1]  <= d1_q[k];
      de_q[k+1]  <= de_q[k];
    end
  end

  // Error CQEs of SQs as they enter kite_cq, all through a gather: the
  // queue manager's fetch (a bad WQE, or its read failed: TXE_DMA) and the
  // gathers' own (TXE_DMA, or TXE_LSO: a TSO header the segmenter refused);
  // not flushes (the queue manager writes those itself).
  localparam logic [31:0] TXE_DMA = 32'd7;
  logic          sqe_err, sqe_drop, sqe_err_q, sqe_drop_q;
  logic [QW-1:0] sqe_sqn, sqe_sqn_q;
  logic [255:0]  g_sel_cqe;
  assign g_sel_cqe = g_cqe_data[g_cqe_sel*256 +: 256];
  always_comb begin
    sqe_err  = 1'b0;
    sqe_drop = 1'b0;
    sqe_sqn  = '0;
    if (g_cqe_valid[g_cqe_sel] && g_cqe_ready[g_cqe_sel]) begin
      sqe_err  = g_sel_cqe[151:144] == 8'(kite_pkg::CQE_OPCODE_ERROR) &&
                 g_sel_cqe[159:152] != 8'(kite_pkg::CQE_STATUS_WR_FLUSH_ERR);
      sqe_drop = g_sel_cqe[223:192] != TXE_DMA;
      sqe_sqn  = QW'(g_sel_cqe[95:64]);
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sqe_err_q  <= 1'b0;
      sqe_drop_q <= 1'b0;
      sqe_sqn_q  <= '0;
    end else begin
      sqe_err_q  <= sqe_err;
      sqe_drop_q <= sqe_err && sqe_drop;
      sqe_sqn_q  <= sqe_sqn;
    end
  end

  logic [NSQ-1:0] q_inc;
  logic [IW-1:0]  q_idx [NSQ];
  logic [31:0]    q_amt [NSQ];
  logic [QW-1:0]  f_sqn;
  logic [16:0]    f_total;
  logic           f_csum, f_lso;
  logic [IW-1:0]  f_qbase, c_qbase;
  assign {f_sqn, f_total, f_csum, f_lso} = de_q[DQ];
  assign f_qbase = IW'(64 + 8 * 32'(f_sqn));
  assign c_qbase = IW'(64 + 8 * 32'(sqe_sqn_q));
  always_comb begin
    q_inc = {acc_valid, sqe_drop_q, sqe_err_q, dv_q[DQ] && f_lso, dv_q[DQ] && f_csum, dv_q[DQ], dv_q[DQ]};
    q_idx[0] = f_qbase + 0;  q_amt[0] = d1_q[DQ] ? 32'd1 : 32'(dqt_q[DQ]);   // packets
    q_idx[1] = f_qbase + 1;  q_amt[1] = 32'(f_total);                         // bytes
    q_idx[2] = f_qbase + 4;  q_amt[2] = 32'd1;                                // csum
    q_idx[3] = f_qbase + 5;  q_amt[3] = 32'd1;                                // lso
    q_idx[4] = c_qbase + 3;  q_amt[4] = 32'd1;                                // errors
    q_idx[5] = c_qbase + 2;  q_amt[5] = 32'd1;                                // drops
    q_idx[6] = IW'(64 + 8 * ((acc_rq ? 512 : 0) + 32'(acc_qn)) + 6);  q_amt[6] = 32'd1;   // doorbells
  end

  // Source NSRC-1: counts kept elsewhere, reported as increments. Per port,
  // slots 0-3 follow running counts (queue manager tx_bad_desc, tx_dma_error,
  // db_dropped; kite_txp_lso super-frames): the difference to the last
  // reported value; slots 4-11 count mac_ev_i pulses, except 8 and 9
  // (rx_multicast, rx_broadcast): delivered RX frames by their destination
  // (as its event reaches the counters). One slot reports each cycle, taken
  // round robin over both ports' slots: a slot waits at most 24 cycles, so a
  // flood of one kind (runts at line rate on one port) cannot hold back the
  // others until their 16-bit pending counts wrap.
  localparam int unsigned NSLOT = 12;
  function automatic logic [4:0] slot_idx(logic [3:0] k);  // word in struct port_stats
    unique case (k)
      4'd0: slot_idx = 5'd14;   // tx_bad_desc
      4'd1: slot_idx = 5'd15;   // tx_dma_error
      4'd2: slot_idx = 5'd25;   // db_dropped
      4'd3: slot_idx = 5'd28;   // tx_lso
      4'd4: slot_idx = 5'd5;    // rx_runt
      4'd5: slot_idx = 5'd6;    // rx_oversize
      4'd6: slot_idx = 5'd7;    // rx_bad_fcs
      4'd7: slot_idx = 5'd26;   // link_changes
      4'd8: slot_idx = 5'd10;   // rx_multicast
      4'd9: slot_idx = 5'd11;   // rx_broadcast
      4'd10: slot_idx = 5'd12;  // tx_multicast
      default: slot_idx = 5'd13;  // tx_broadcast
    endcase
  endfunction
  logic [1:0]  rx_cls [NPORT];   // a delivered frame: multicast, broadcast
  always_comb begin
    for (int p = 0; p < NPORT; p++)
      rx_cls[p] = (ev_q && e_kind == 4'd0 && e_port == PW'(p)) ? {e_bc, e_mc} : 2'b00;
  end
  localparam int unsigned NX = NPORT * NSLOT;
  localparam int unsigned XW = $clog2(NX);
  logic [31:0]   x_cur [NPORT][4];
  logic [NX-1:0] x_has, x_at;     // slots with something to report; of them at or after x_ptr_q
  logic [31:0]   x_amt_all [NX];
  logic [XW-1:0] x_ptr_q, x_sel;
  logic [31:0] x_rep_q [NPORT][4];
  logic [15:0] x_pend_q [NPORT][8];
  logic        x_valid;
  logic [PW-1:0] x_port;
  logic [3:0]  x_slot;
  logic [31:0] x_amt;
  always_comb begin
    for (int p = 0; p < NPORT; p++) begin
      x_cur[p][0] = tx_bad_desc[p*64 +: 32] + g_rej_cnt_q[p];    // WQE checks + TSO headers
      x_cur[p][1] = tx_dma_error[p*64 +: 32] + g_dma_cnt_q[p];   // WQE fetch + gather
      x_cur[p][2] = db_dropped[p*64 +: 32];
      x_cur[p][3] = lso_cnt_p[p*32 +: 32];
    end
    for (int p = 0; p < NPORT; p++) begin
      for (int k = 0; k < NSLOT; k++) begin
        x_has[p*NSLOT + k] = k < 4 ? x_cur[p][k] != x_rep_q[p][k] : x_pend_q[p][k-4] != 16'd0;
        x_amt_all[p*NSLOT + k] = k < 4 ? x_cur[p][k] - x_rep_q[p][k] : 32'(x_pend_q[p][k-4]);
      end
    end
    // The first slot with something to report at or after x_ptr_q, else
    // the first one.
    x_at    = x_has & ~((NX'(1) << x_ptr_q) - NX'(1));
    x_valid = |x_has;
    x_sel   = '0;
    for (int j = NX - 1; j >= 0; j--) if (x_has[j]) x_sel = XW'(j);
    for (int j = NX - 1; j >= 0; j--) if (x_at[j]) x_sel = XW'(j);
    x_port = '0;
    x_slot = '0;
    for (int p = 0; p < NPORT; p++)
      for (int k = 0; k < NSLOT; k++)
        if (x_sel == XW'(p*NSLOT + k)) begin
          x_port = PW'(p);
          x_slot = 4'(k);
        end
    x_amt  = x_amt_all[x_sel];
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) x_ptr_q <= '0;
    else if (x_valid) x_ptr_q <= x_sel == XW'(NX - 1) ? '0 : x_sel + 1'b1;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int p = 0; p < NPORT; p++) begin
        for (int k = 0; k < 4; k++) x_rep_q[p][k] <= '0;
        for (int k = 0; k < 8; k++) x_pend_q[p][k] <= '0;
      end
    end else begin
      for (int p = 0; p < NPORT; p++) begin
        for (int k = 0; k < 4; k++)
          if (x_valid && x_port == PW'(p) && x_slot == 4'(k)) x_rep_q[p][k] <= x_cur[p][k];
        for (int k = 0; k < 8; k++)
          x_pend_q[p][k] <= x_pend_q[p][k]
                            - ((x_valid && x_port == PW'(p) && x_slot == 4'(k + 4)) ? x_pend_q[p][k] : 16'd0)
                            + ((k == 4 || k == 5) ? 16'(rx_cls[p][k-4]) : 16'(mac_ev_i[p*8 + k]));
      end
    end
  end
  assign inc_valid_x = x_valid;
  assign inc_idx_x   = IW'(32 * 32'(x_port)) + IW'(slot_idx(x_slot));
  assign inc_amt_x   = x_amt;

  kite_stats #(.N_SRC(NSRC), .IDX_W(IW), .SRC_WIN(SRC_WIN)) u_stats (
    .clk_i, .rst_ni,
    .inc_valid_i(inc_valid), .inc_idx_i(inc_idx), .inc_amt_i(inc_amt),
    .rd_valid_i(st_rd_valid), .rd_ready_o(st_rd_ready), .rd_idx_i(st_rd_idx), .rd_clear_i(st_rd_clear),
    .rd_valid_o(st_rd_vo), .rd_data_o(st_rd_data), .rd_err_o(st_rd_err),
    .bad_count_o(st_bad), .busy_o(st_busy)
  );
  logic unused_st;
  assign unused_st = ^{st_rd_err, st_bad, st_busy, m_addr[31:20], e_qn[15:QW], dr_q[DQ], dn_q[DQ],
                       dd_q[DQ], g_sel_cqe[255:224], g_sel_cqe[191:160], g_sel_cqe[143:96], g_sel_cqe[63:0]};

endmodule : kite_card
