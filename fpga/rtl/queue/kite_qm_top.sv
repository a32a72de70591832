// Doorbell decode + queue manager + TX descriptor fetch: from BAR2 doorbell
// writes to checked ETH_TX descriptors (to the gather stage) and completions
// (to the CQ writer). See kite_doorbell, kite_qm and kite_qm_fetch; the DMA
// read interface and the figures are in Documentation/hw/rtl.rst.
module kite_qm_top #(
  parameter int unsigned NFN   = 17,
  parameter int unsigned FN_W  = 5,
  parameter int unsigned NQ    = 512,
  parameter int unsigned NPORT = 2,
  parameter int unsigned NTAG  = 128,
  parameter int unsigned SQ_DEPTH = 16    // WQEs of one SQ in flight in the fetch
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,

  // Function table (firmware).
  input  logic                      fn_we_i,
  input  logic [FN_W-1:0]           fn_sel_i,
  input  logic [8:0]                fn_db_pages_i,
  input  logic [$clog2(NPORT)-1:0]  fn_port_i,

  // SQ/RQ context write (firmware).
  input  logic                      cfg_valid_i,
  output logic                      cfg_ready_o,
  input  logic                      cfg_rq_i,
  input  logic [$clog2(NQ)-1:0]     cfg_qn_i,
  input  logic                      cfg_en_i,
  input  logic [1:0]                cfg_state_i,
  input  logic [FN_W-1:0]           cfg_fn_i,
  input  logic [7:0]                cfg_page_i,
  input  logic [3:0]                cfg_log_size_i,
  input  logic [3:0]                cfg_log_stride_i,
  input  logic [15:0]               cfg_cqn_i,
  input  logic [$clog2(NPORT)-1:0]  cfg_port_i,
  input  logic [63:0]               cfg_base_i,

  // BAR2 writes.
  input  logic                      db_valid_i,
  output logic                      db_ready_o,
  input  logic [FN_W-1:0]           db_fn_i,
  input  logic [19:0]               db_off_i,
  input  logic [3:0]                db_size_i,
  input  logic [31:0]               db_data_i,

  // Accepted SQ/RQ doorbells (RQ: new receive buffers for the RX path).
  output logic                      acc_valid_o,
  output logic                      acc_rq_o,
  output logic [$clog2(NQ)-1:0]     acc_qn_o,
  output logic [15:0]               acc_pi_o,

  // CQ/EQ doorbells to the CQ/EQ block, and its drops.
  output logic                      ce_valid_o,
  output logic [2:0]                ce_reg_o,
  output logic [15:0]               ce_qn_o,
  output logic [15:0]               ce_idx_o,
  output logic [FN_W-1:0]           ce_fn_o,
  output logic [7:0]                ce_page_o,
  input  logic                      ce_drop_i,
  input  logic [FN_W-1:0]           ce_drop_fn_i,

  // RQ consumer index from the RX path.
  input  logic                      rqci_valid_i,
  output logic                      rqci_ready_o,
  input  logic [$clog2(NQ)-1:0]     rqci_qn_i,
  input  logic [15:0]               rqci_ci_i,

  // DMA reads.
  output logic                      rd_valid_o,
  input  logic                      rd_ready_i,
  output logic [$clog2(NTAG)-1:0]   rd_tag_o,
  output logic [FN_W-1:0]           rd_fn_o,
  output logic [63:0]               rd_addr_o,
  output logic [9:0]                rd_len_o,
  input  logic                      rd_cpl_valid_i,
  input  logic [$clog2(NTAG)-1:0]   rd_cpl_tag_i,
  input  logic [511:0]              rd_cpl_data_i,
  input  logic                      rd_cpl_last_i,
  input  logic                      rd_cpl_err_i,

  // Checked descriptors, to each port's descriptor queue (d_free_i: its
  // free entries; a WQE is handed on only when all of it fits).
  input  logic [NPORT*8-1:0]        d_free_i,
  // WQEs (and the fetch's completions) handed to each port's queue and
  // retired by its gather: a flush's CQEs follow them (kite_qm).
  input  logic [NPORT*16-1:0]       port_h_seq_i,
  input  logic [NPORT*16-1:0]       port_r_seq_i,
  output logic                      d_valid_o,
  input  logic                      d_ready_i,
  output logic [$clog2(NQ)-1:0]     d_sqn_o,
  output logic [FN_W-1:0]           d_fn_o,
  output logic [$clog2(NPORT)-1:0]  d_port_o,
  output logic [15:0]               d_cqn_o,
  output logic [15:0]               d_wqe_index_o,
  output logic                      d_signaled_o,
  output logic [127:0]              d_eth_o,
  output logic [4:0]                d_nsge_o,
  output logic [16:0]               d_total_o,
  output logic [63:0]               d_sge_addr_o,
  output logic [31:0]               d_sge_len_o,
  output logic                      d_last_o,
  output logic [15:0]               d_ci_o,         // the WQE's ring index
  output logic                      d_flush_o,      // its SQ is in ERR now
  output logic [NQ-1:0]             sq_err_o,       // every SQ's ERR flag

  // Completions (errors, signaled NOPs, flushes) to the CQ writer.
  output logic                      cq_valid_o,
  input  logic                      cq_ready_i,
  output logic                      cq_rq_o,
  output logic [$clog2(NQ)-1:0]     cq_qn_o,
  output logic [$clog2(NPORT)-1:0]  cq_port_o,      // an SQ's port
  output logic                      cq_fetch_o,     // the fetch's (a WQE's own), not a flush's
  output logic [15:0]               cq_cqn_o,
  output logic [15:0]               cq_wqe_index_o,
  output logic [7:0]                cq_opcode_o,
  output logic [7:0]                cq_status_o,
  output logic [31:0]               cq_syndrome_o,

  // Observation: SQ consumer index advanced (a WQE finished) or a WQE given
  // back to its ring (ci_rew_o, ci_sqn_o's: a firmware write waits), and picks.
  output logic                      ci_valid_o,
  output logic                      ci_rew_o,
  output logic [$clog2(NQ)-1:0]     ci_sqn_o,
  output logic [15:0]               ci_o,
  output logic                      pick_valid_o,
  output logic [$clog2(NQ)-1:0]     pick_sqn_o,
  output logic [15:0]               pick_ci_o,      // the ring index it reads

  // TX gather error (kite_qm: SQ to ERR, flush) and the WQ_ERROR event
  // after an error's flush.
  input  logic                      gerr_valid_i,
  output logic                      gerr_ready_o,
  input  logic [$clog2(NQ)-1:0]     gerr_sqn_i,
  output logic                      ev_valid_o,
  output logic [$clog2(NQ)-1:0]     ev_qn_o,
  output logic [FN_W-1:0]           ev_fn_o,

  output logic [NPORT*64-1:0]       db_dropped_o,
  output logic [NPORT*64-1:0]       tx_bad_desc_o,
  output logic [NPORT*64-1:0]       tx_dma_error_o
);

  localparam int unsigned QN_W = $clog2(NQ);
  localparam int unsigned PW   = $clog2(NPORT);
  localparam int unsigned CW   = $clog2(NTAG + 1);

  logic            stall;
  logic            wq_valid, wq_rq;
  logic [QN_W-1:0] wq_qn;
  logic [15:0]     wq_idx;
  logic [FN_W-1:0] wq_fn;
  logic [7:0]      wq_page;
  logic            qm_drop;
  logic [FN_W-1:0] qm_drop_fn;

  kite_doorbell #(.NFN(NFN), .FN_W(FN_W), .NQ(NQ), .NPORT(NPORT)) u_db (
    .clk_i, .rst_ni,
    .fn_we_i, .fn_sel_i, .fn_db_pages_i, .fn_port_i,
    .db_valid_i, .db_ready_o, .db_fn_i, .db_off_i, .db_size_i, .db_data_i,
    .stall_i      (stall),
    .wq_valid_o   (wq_valid),
    .wq_rq_o      (wq_rq),
    .wq_qn_o      (wq_qn),
    .wq_idx_o     (wq_idx),
    .wq_fn_o      (wq_fn),
    .wq_page_o    (wq_page),
    .ce_valid_o, .ce_reg_o, .ce_qn_o, .ce_idx_o, .ce_fn_o, .ce_page_o,
    .qm_drop_i    (qm_drop),
    .qm_drop_fn_i (qm_drop_fn),
    .ce_drop_i, .ce_drop_fn_i,
    .db_dropped_o
  );

  logic [CW-1:0]   free;
  logic [NPORT-1:0] port_lt, port_lt1;
  logic            pick_valid;
  logic [QN_W-1:0] pick_sqn;
  logic [FN_W-1:0] pick_fn;
  logic [PW-1:0]   pick_port;
  logic [15:0]     pick_cqn, pick_ci;
  logic [63:0]     pick_addr;
  logic [3:0]      pick_lstr;
  logic            done_valid, done_ready, done_err, done_rew, rew_valid;
  logic [QN_W-1:0] rew_sqn;
  logic [QN_W-1:0] done_sqn;
  logic [15:0]     done_ci, done_cqn;
  logic            fl_valid, fl_ready, fl_rq;
  logic [QN_W-1:0] fl_qn;
  logic [15:0]     fl_cqn, fl_idx;
  logic [PW-1:0]   fl_port;

  kite_qm #(.NQ(NQ), .FN_W(FN_W), .NPORT(NPORT), .NTAG(NTAG), .SQ_DEPTH(SQ_DEPTH)) u_qm (
    .clk_i, .rst_ni,
    .cfg_valid_i, .cfg_ready_o, .cfg_rq_i, .cfg_qn_i, .cfg_en_i, .cfg_state_i, .cfg_fn_i,
    .cfg_page_i, .cfg_log_size_i, .cfg_log_stride_i, .cfg_cqn_i, .cfg_port_i, .cfg_base_i,
    .db_stall_o   (stall),
    .wq_valid_i   (wq_valid),
    .wq_rq_i      (wq_rq),
    .wq_qn_i      (wq_qn),
    .wq_idx_i     (wq_idx),
    .wq_fn_i      (wq_fn),
    .wq_page_i    (wq_page),
    .acc_valid_o, .acc_rq_o, .acc_qn_o, .acc_pi_o,
    .drop_o       (qm_drop),
    .drop_fn_o    (qm_drop_fn),
    .rqci_valid_i, .rqci_ready_o, .rqci_qn_i, .rqci_ci_i,
    .fetch_free_i (free),
    .fetch_port_lt_i   (port_lt),
    .fetch_port_lt1_i  (port_lt1),
    .pick_valid_o (pick_valid),
    .pick_sqn_o   (pick_sqn),
    .pick_fn_o    (pick_fn),
    .pick_port_o  (pick_port),
    .pick_cqn_o   (pick_cqn),
    .pick_ci_o    (pick_ci),
    .pick_addr_o  (pick_addr),
    .pick_log_stride_o (pick_lstr),
    .done_valid_i (done_valid),
    .done_ready_o (done_ready),
    .done_sqn_i   (done_sqn),
    .done_ci_i    (done_ci),
    .done_err_i   (done_err),
    .done_cqn_i   (done_cqn),
    .done_rew_i   (done_rew),
    .rew_valid_o  (rew_valid),
    .rew_sqn_o    (rew_sqn),
    .fl_valid_o   (fl_valid),
    .fl_ready_i   (fl_ready),
    .fl_rq_o      (fl_rq),
    .fl_qn_o      (fl_qn),
    .fl_cqn_o     (fl_cqn),
    .fl_idx_o     (fl_idx),
    .fl_port_o    (fl_port),
    .gerr_valid_i, .gerr_ready_o, .gerr_sqn_i,
    .port_h_seq_i, .port_r_seq_i,
    .err_sqn_i    (d_sqn_o),
    .err_o        (d_flush_o),
    .sq_err_o,
    .ev_valid_o, .ev_qn_o, .ev_fn_o
  );

  logic            c_valid, c_ready;
  logic [QN_W-1:0] c_sqn;
  logic [PW-1:0]   c_port;
  logic [15:0]     c_cqn, c_idx;
  logic [7:0]      c_opcode, c_status;
  logic [31:0]     c_syn;

  kite_qm_fetch #(.NQ(NQ), .FN_W(FN_W), .NPORT(NPORT), .NTAG(NTAG)) u_fetch (
    .clk_i, .rst_ni,
    .free_o       (free),
    .port_lt_o    (port_lt),
    .port_lt1_o   (port_lt1),
    .d_free_i,
    .pick_valid_i (pick_valid),
    .pick_sqn_i   (pick_sqn),
    .pick_fn_i    (pick_fn),
    .pick_port_i  (pick_port),
    .pick_cqn_i   (pick_cqn),
    .pick_ci_i    (pick_ci),
    .pick_addr_i  (pick_addr),
    .pick_log_stride_i (pick_lstr),
    .rd_valid_o, .rd_ready_i, .rd_tag_o, .rd_fn_o, .rd_addr_o, .rd_len_o,
    .rd_cpl_valid_i, .rd_cpl_tag_i, .rd_cpl_data_i, .rd_cpl_last_i, .rd_cpl_err_i,
    .d_valid_o, .d_ready_i, .d_sqn_o, .d_fn_o, .d_port_o, .d_cqn_o, .d_wqe_index_o,
    .d_signaled_o, .d_eth_o, .d_nsge_o, .d_total_o, .d_sge_addr_o, .d_sge_len_o, .d_last_o,
    .c_valid_o    (c_valid),
    .c_ready_i    (c_ready),
    .c_sqn_o      (c_sqn),
    .c_port_o     (c_port),
    .c_cqn_o      (c_cqn),
    .c_wqe_index_o (c_idx),
    .c_opcode_o   (c_opcode),
    .c_status_o   (c_status),
    .c_syndrome_o (c_syn),
    .done_valid_o (done_valid),
    .done_ready_i (done_ready),
    .done_sqn_o   (done_sqn),
    .done_ci_o    (done_ci),
    .done_err_o   (done_err),
    .done_cqn_o   (done_cqn),
    .done_rew_o   (done_rew),
    .sq_err_i     (d_flush_o),
    .rew_valid_i  (rew_valid),
    .rew_sqn_i    (rew_sqn),
    .tx_bad_desc_o, .tx_dma_error_o
  );

  // Completions: the fetch first (a queue's error CQE precedes its flush).
  assign c_ready        = cq_ready_i;
  assign fl_ready       = cq_ready_i && !c_valid;
  assign cq_valid_o     = c_valid || fl_valid;
  assign cq_rq_o        = !c_valid && fl_rq;
  assign cq_qn_o        = c_valid ? c_sqn : fl_qn;
  assign cq_port_o      = c_valid ? c_port : fl_port;
  assign cq_fetch_o     = c_valid;
  assign cq_cqn_o       = c_valid ? c_cqn : fl_cqn;
  assign cq_wqe_index_o = c_valid ? c_idx : fl_idx;
  assign cq_opcode_o    = c_valid ? c_opcode : 8'(kite_pkg::CQE_OPCODE_ERROR);
  assign cq_status_o    = c_valid ? c_status : 8'(kite_pkg::CQE_STATUS_WR_FLUSH_ERR);
  assign cq_syndrome_o  = c_valid ? c_syn : 32'd0;

  assign d_ci_o       = done_ci - 16'd1;
  assign ci_valid_o   = done_valid && done_ready && !done_rew;
  assign ci_rew_o     = done_valid && done_ready && done_rew;
  assign ci_sqn_o     = done_sqn;
  assign ci_o         = done_ci;
  assign pick_valid_o = pick_valid;
  assign pick_sqn_o   = pick_sqn;
  assign pick_ci_o    = pick_ci;

endmodule
