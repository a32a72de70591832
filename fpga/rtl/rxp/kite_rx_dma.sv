// RX DMA: delivers parsed and steered frames into the host's receive buffers
// (the second half of the model's RxPipeline::receive, fpga/model/rxp/rxp.cpp,
// from the RQ checks on).
//
// Frames (with their 4 FCS bytes as the MAC passes them, packed from lane 0,
// every beat but the last full) are stored in a frame buffer as they arrive,
// beside kite_rxp (which sees them without FCS); the per-frame record (kite_rxp's parse + checksum
// verdict joined with kite_rss's hash and queue) arrives later on the meta
// port, in frame order. Per frame:
//   dropped by kite_rx_steer       drop, EV_FILTERED (receive filter) or
//                                  EV_FLOW_DROP (flow rule action 2)
//   RQ not valid or not RDY        drop, EV_NO_BUF
//   malformed                      drop, EV_MALFORMED
//   ring empty (pi == ci)          drop, EV_NO_BUF_Q (rx_no_buffer, RQ drops);
//                                  with meta_pause_i also park_o at
//                                  dispatch: the card keeps the frame
//                                  (PAUSE, kite_card_rxhold) and counts
//                                  rx_pause instead
//   WQE read (stride bytes at base + (ci mod size) << log_stride) failed:
//                                  drop, RQ to ERR, EV_RD_ERR
//   frame longer than the WQE's scatter list (entries up to the first of
//   length 0): drop, WQE kept, EV_OVERSIZE (rx_oversize, RQ drops)
//   an lkey other than LKEY_PHYS:  WQE consumed, ERROR CQE LOC_PROT_ERR,
//                                  EV_PROT_ERR
//   otherwise the frame is written over the scatter list (VLAN_STRIP removes
//   an outer 802.1Q tag; the FCS only with RX_FCS, as the length checked
//   against the list), all writes done, then the ETH_RX CQE (length,
//   L3/L4 flags, RSS hash and type, stripped TCI, CHECKSUM_COMPLETE sum of
//   the delivered bytes after the 14-byte header); a failed write gives an
//   ERROR CQE LOC_PROT_ERR and moves the RQ to ERR (EV_WR_ERR).
// Every frame ends in exactly one ev_* record (the counters), and ci
// advances (rqci_* to the queue manager) whenever a WQE was consumed.
//
// RQ contexts are the queue manager's (same write port, plus the RQ flags);
// pi comes from the queue manager's accepted RQ doorbells. Not here (see
// rtl.rst): RX_ALL (the MAC drops bad-FCS frames before this block).
// Receive filters and ntuple rules
// are kite_rx_steer's: its drops only free the frame's buffer here.
//
// DMA writes follow kite_pcie_wr: data words are address-aligned (lane i =
// address mod 64). A word is read from the frame buffer as a two-beat window
// (even/odd beat banks, so both beats come in one cycle) shifted to the
// word's frame offset; with VLAN_STRIP the first 12 delivered bytes come from
// the frame head kept with the frame. One word per cycle.
//
// Throughput (rtl.rst has the figures): WQEs are read ahead of the frames.
// A doorbell gives its RQ a cache line (NLINE lines of NWQE WQEs) and the
// WQEs from ci to pi are read, several consecutive ones per request (up to
// the read size, not across the ring's wrap or a read-size boundary: the
// read size is RD_MAX or the host's Max_Read_Request_Size if smaller, so a
// read is one PCIe request and fails alone, as the host serves it; a line
// waits for room for a batch, so that few read tags carry many WQEs), up
// to RDQ requests in flight; each WQE of an answer is reduced to (entries,
// capacity, bad lkey) for the checks, its entries kept in RAM for the
// writes, and a failed answer marks all its WQEs as failed reads. A cached
// WQE that failed to read is only acted on (RQ to ERR) when a frame takes
// it, as the model reads it then; lines are dropped on a context write and
// on ERR. Frames are checked one per cycle (dispatch), their writes issued
// per scatter entry one per cycle (scatter), and retired in order once
// their writes are done (CQE, ci, ev). With wr_wait_i, a frame's writes
// wait for the outcome of the writes of the previous delivering frame of its
// RQ (a failure would have put the RQ in ERR first); those of other RQs go
// ahead. Frames dispatched meanwhile are speculative and turn into the
// model's NO_BUF at retire when the RQ went to ERR (their writes are never
// issued, ci is rolled back). That is the model's rule for a DMA port whose
// writes can fail; PCIe memory writes are posted (no completion, nothing to
// fail on the card's side: kite_pcie_wr reports an error only for the
// zero-length requests this block never makes), so the card clears
// wr_wait_i and one RQ's frames stream their writes back to back.
module kite_rx_dma #(
  parameter int unsigned NQ      = 512,
  parameter int unsigned FN_W    = 5,
  parameter int unsigned DEPTH   = 512,   // frame buffer, 64-byte beats (power of 2)
  parameter int unsigned NDESC   = 32,    // frames held (power of 2)
  parameter int unsigned MAX_SGE = 32,    // 512-byte WQE stride
  // WQE prefetch (see rtl.rst): NLINE RQs at a time each keep up to NWQE
  // WQEs read ahead of ci (and at most LCH 16-byte chunks of them: 32
  // WQEs at the 512-byte stride), with up to RDQ reads in flight.
  parameter int unsigned NLINE   = 8,
  parameter int unsigned NWQE    = 256,   // power of 2, at least 4
  parameter int unsigned LCH     = 1024,  // power of 2, at least MAX_SGE
  parameter int unsigned RDQ     = 256,   // power of 2
  // Bytes per WQE read at most (power of 2, 128..4096), and less with a
  // smaller MRRS (cfg_max_read_req_i): reads end at a multiple of the read
  // size, so each is one kite_pcie_rd tag.
  parameter int unsigned RD_MAX  = 512,
  parameter int unsigned WRQ     = 64,    // data writes awaiting wr_done (power of 2)
  parameter int unsigned ID_W    = 8,
  // Request IDs the card's DMA arbiter routes responses by; the defaults
  // are kite_card's, so the block's own synthesis result is the card's.
  parameter logic [ID_W-1:0] RD_ID = 8'h80,
  parameter logic [ID_W-1:0] WR_ID = '0
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  // RQ context write (the queue manager's cfg port, RQ writes only).
  input  logic                  cfg_valid_i,
  input  logic [$clog2(NQ)-1:0] cfg_qn_i,
  input  logic                  cfg_en_i,
  input  logic [1:0]            cfg_state_i,
  input  logic [FN_W-1:0]       cfg_fn_i,
  input  logic [3:0]            cfg_log_size_i,
  input  logic [3:0]            cfg_log_stride_i,
  input  logic [15:0]           cfg_cqn_i,
  input  logic [63:0]           cfg_base_i,
  input  logic [7:0]            cfg_flags_i,      // create_wq_in flags
  // Set from the cycle after a context write until no DMA of the RQ's
  // previous context is outstanding (see "Drain" below).
  output logic                  cfg_drain_o,

  // Accepted RQ doorbells (new pi).
  input  logic                  acc_valid_i,
  input  logic [$clog2(NQ)-1:0] acc_qn_i,
  input  logic [15:0]           acc_pi_i,

  // Frames.
  input  logic                  s_valid_i,
  output logic                  s_ready_o,
  input  logic [511:0]          s_data_i,
  input  logic [63:0]           s_keep_i,
  input  logic                  s_last_i,

  // Per-frame record, in frame order.
  input  logic                  meta_valid_i,
  output logic                  meta_ready_o,
  input  logic [15:0]           meta_rqn_i,
  input  logic [31:0]           meta_hash_i,
  input  logic [7:0]            meta_hash_type_i,
  input  logic [1:0]            meta_num_vlans_i,
  input  logic [15:0]           meta_tci_i,
  input  logic                  meta_ipv4_i,
  input  logic                  meta_ipv4_hdr_ok_i,
  input  logic                  meta_l4_ok_i,
  input  logic                  meta_l4_bad_i,
  input  logic                  meta_malformed_i,
  input  logic [15:0]           meta_csum_i,      // kite_rxp csum_complete
  input  logic                  meta_drop_i,      // kite_rx_steer: discard the frame
  input  logic                  meta_drop_flow_i, // reason: flow rule (else receive filter)
  input  logic                  meta_pause_i,     // its port holds frames for an empty ring
  output logic                  park_o,           // it is held (dispatched as EV_NO_BUF_Q)

  // DMA read (WQE); the top routes this client's responses here.
  output logic                  rd_req_valid_o,
  input  logic                  rd_req_ready_i,
  output logic [ID_W-1:0]       rd_req_id_o,
  output logic [FN_W-1:0]       rd_req_fn_o,
  output logic [63:0]           rd_req_addr_o,
  output logic [15:0]           rd_req_len_o,
  // Device Control Max_Read_Request_Size (128 << code bytes), as
  // kite_pcie_rd takes it; reads already made keep their size.
  input  logic [2:0]            cfg_max_read_req_i,
  input  logic                  rd_rsp_valid_i,
  output logic                  rd_rsp_ready_o,
  input  logic [511:0]          rd_rsp_data_i,
  input  logic [63:0]           rd_rsp_keep_i,
  input  logic                  rd_rsp_last_i,
  input  logic                  rd_rsp_err_i,

  // DMA write (packet data).
  output logic                  wr_req_valid_o,
  input  logic                  wr_req_ready_i,
  output logic [ID_W-1:0]       wr_req_id_o,
  output logic [FN_W-1:0]       wr_req_fn_o,
  output logic [63:0]           wr_req_addr_o,
  output logic [15:0]           wr_req_len_o,
  output logic                  wr_data_valid_o,
  input  logic                  wr_data_ready_i,
  output logic [511:0]          wr_data_o,
  input  logic                  wr_done_i,
  input  logic [ID_W-1:0]       wr_done_id_i,
  input  logic                  wr_done_err_i,
  input  logic                  wr_wait_i,      // a frame's writes await the RQ's previous frame's (above)

  // CQE to the CQ writer (kite_cq CMD_CQE).
  output logic                  cqe_valid_o,
  input  logic                  cqe_ready_i,
  output logic [15:0]           cqe_cqn_o,
  output logic [255:0]          cqe_data_o,

  // RQ consumer index to the queue manager.
  output logic                  rqci_valid_o,
  input  logic                  rqci_ready_i,
  output logic [$clog2(NQ)-1:0] rqci_qn_o,
  output logic [15:0]           rqci_ci_o,

  // RQ moved to ERR by a DMA fault (syndrome: 0 read, 1 write).
  output logic                  rqerr_valid_o,
  output logic [$clog2(NQ)-1:0] rqerr_qn_o,
  output logic                  rqerr_write_o,

  // One record per frame for the counters.
  output logic                  ev_valid_o,
  output logic [3:0]            ev_kind_o,
  output logic [15:0]           ev_qn_o,
  output logic [15:0]           ev_len_o,         // frame length without FCS
  output logic                  ev_csum_ok_o,     // L3_OK or L4_OK in the CQE
  output logic                  ev_bad_csum_o
);
  localparam int unsigned QW = $clog2(NQ);
  localparam int unsigned AW = $clog2(DEPTH);
  localparam int unsigned DW = $clog2(NDESC);
  localparam int unsigned SW = $clog2(MAX_SGE);
  localparam int unsigned LW = NLINE > 1 ? $clog2(NLINE) : 1;
  localparam int unsigned KW = $clog2(NWQE);
  localparam int unsigned RW = $clog2(RDQ);
  localparam int unsigned OW = $clog2(WRQ);
  localparam int unsigned CW = $clog2(LCH);
  localparam int unsigned ROWS = NLINE * LCH / 4;   // scatter RAM rows per bank
  localparam int unsigned XW = $clog2(RD_MAX);
  logic [15:0] rdm_cfg;
  logic [XW:0] rdm;                         // bytes per WQE read at most
  assign rdm_cfg = 16'd128 << cfg_max_read_req_i;
  assign rdm     = rdm_cfg > 16'(RD_MAX) ? (XW+1)'(RD_MAX) : rdm_cfg[XW:0];
  localparam int unsigned RD_BATCH = NWQE / 4;

  // Entries per WQE are 2^sh, sh = log_stride - 4 (up to 32 entries read).
  function automatic logic [2:0] sh_of(input logic [3:0] ls);
    sh_of = ls < 4'd4 ? 3'd0 : (ls > 4'd9 ? 3'd5 : 3'(ls - 4'd4));
  endfunction
  localparam logic [3:0] EV_OK = 4'd0, EV_NO_BUF = 4'd1, EV_NO_BUF_Q = 4'd2, EV_MALFORMED = 4'd3,
                         EV_OVERSIZE = 4'd4, EV_RD_ERR = 4'd5, EV_PROT_ERR = 4'd6, EV_WR_ERR = 4'd7,
                         EV_FILTERED = 4'd8, EV_FLOW_DROP = 4'd9;
  localparam logic [1:0] ST_RST = 2'(kite_pkg::WQ_STATE_RST);
  localparam logic [1:0] ST_RDY = 2'(kite_pkg::WQ_STATE_RDY);
  localparam logic [1:0] ST_ERR = 2'(kite_pkg::WQ_STATE_ERR);

  // ---------------------------------------------------------------- ingress
  logic [511:0] bank_e [DEPTH/2];
  logic [511:0] bank_o [DEPTH/2];
  logic [AW:0]  in_ptr_q, rel_ptr_q;          // free-running beat pointers
  logic [AW:0]  in_start_q;
  logic [15:0]  in_len_q;
  logic         in_first_q;
  logic [143:0] in_head_q;                    // frame bytes 0..17
  logic         in_nz_q;                      // a non-zero byte at 18 or later, FCS excluded
  logic [3:0]   in_tnz_q;                     // the last beat's lanes 60..63 non-zero (FCS or not: next beat says)

  // Frame descriptors: written at the frame's last beat, dispatched at
  // dq_dp_q, retired (buffer released) at dq_rd_q.
  localparam int unsigned DESC_W = AW + AW + 1 + 16 + 144 + 1;
  logic [DESC_W-1:0] desc_mem [NDESC];
  // And for the dispatch's length check, worked out as the frame is
  // stored: the length less and plus 4 (VLAN_STRIP, RX_FCS) and whether
  // bytes 12-13 are 802.1Q's TPID, so that the check starts at the RAM.
  logic [32:0]       dl_mem [NDESC];
  logic [DW:0]       dq_wr_q, dq_dp_q, dq_rd_q;
  logic              dq_full;

  logic [6:0]   beat_bytes;
  logic [143:0] head_now;
  logic         nz_now;
  logic [3:0]   tnz_now;
  logic         s_go;

  assign dq_full  = (dq_wr_q - dq_rd_q) == (DW + 1)'(NDESC);
  assign s_ready_o = (in_ptr_q - rel_ptr_q) != (AW + 1)'(DEPTH) && !dq_full;
  assign s_go = s_valid_i && s_ready_o;

  always_comb begin
    beat_bytes = '0;
    for (int i = 0; i < 64; i++) beat_bytes = beat_bytes + 7'(s_keep_i[i]);
    head_now = in_first_q ? s_data_i[143:0] : in_head_q;
    // Lane i is not FCS when lane i + 4 is kept (lanes are packed); the
    // previous beat's lanes 60 + j are not when this beat keeps lane j.
    nz_now = in_first_q ? 1'b0 : in_nz_q | |(in_tnz_q & s_keep_i[3:0]);
    for (int i = 0; i < 60; i++)
      if (s_keep_i[i+4] && (!in_first_q || i >= 18) && s_data_i[8*i +: 8] != 8'd0) nz_now = 1'b1;
    for (int j = 0; j < 4; j++) tnz_now[j] = s_keep_i[60+j] && s_data_i[8*(60+j) +: 8] != 8'd0;
  end

  always_ff @(posedge clk_i) begin
    if (s_go && !in_ptr_q[0]) bank_e[in_ptr_q[AW-1:1]] <= s_data_i;
    if (s_go && in_ptr_q[0])  bank_o[in_ptr_q[AW-1:1]] <= s_data_i;
    if (s_go && s_last_i) begin
      desc_mem[dq_wr_q[DW-1:0]] <= {nz_now, head_now, in_len_q + 16'(beat_bytes) - 16'd4,
                                    in_ptr_q + 1'b1 - in_start_q, in_start_q[AW-1:0]};
      dl_mem[dq_wr_q[DW-1:0]]   <= {head_now[8*12 +: 16] == 16'h0081,
                                    in_len_q + 16'(beat_bytes) - 16'd8, in_len_q + 16'(beat_bytes)};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_ptr_q   <= '0;
      in_start_q <= '0;
      in_len_q   <= '0;
      in_first_q <= 1'b1;
      in_head_q  <= '0;
      in_nz_q    <= 1'b0;
      in_tnz_q   <= '0;
      dq_wr_q    <= '0;
    end else if (s_go) begin
      in_ptr_q   <= in_ptr_q + 1'b1;
      in_head_q  <= head_now;
      in_nz_q    <= nz_now;
      in_tnz_q   <= tnz_now;
      in_first_q <= s_last_i;
      in_len_q   <= s_last_i ? 16'd0 : in_len_q + 16'(beat_bytes);
      if (s_last_i) begin
        in_start_q <= in_ptr_q + 1'b1;
        dq_wr_q    <= dq_wr_q + 1'b1;
      end
    end
  end

  // Dispatch side of the descriptor at dq_dp_q (lengths without FCS).
  logic [AW-1:0] d_start;
  logic [AW:0]   d_beats;
  logic [15:0]   d_len;
  logic [143:0]  d_head;
  logic          d_nz;
  assign {d_nz, d_head, d_len, d_beats, d_start} = desc_mem[dq_dp_q[DW-1:0]];
  logic          d_tpid;
  logic [15:0]   d_len_m4, d_len_p4;
  assign {d_tpid, d_len_m4, d_len_p4} = dl_mem[dq_dp_q[DW-1:0]];
  // Retire side (dq_rd_q).
  logic [AW-1:0] r_start;
  logic [AW:0]   r_beats;
  logic [15:0]   r_len;
  logic [143:0]  r_head;
  logic          r_nz;
  assign {r_nz, r_head, r_len, r_beats, r_start} = desc_mem[dq_rd_q[DW-1:0]];

  // ------------------------------------------------------------ RQ contexts
  localparam int unsigned CTX_W = FN_W + 4 + 4 + 16 + 64 + 8;
  logic [CTX_W-1:0] ctx_mem [NQ];
  logic [CTX_W-1:0] ctx_a_q;                  // for a doorbell's line
  logic [NQ-1:0]    en_q;
  // State, pi and ci of the 512 RQs: distributed RAM, one write port each,
  // read without a clock where the datapath needs them (the head frame's
  // RQ, a doorbell's, the context write's), so the pipeline is the same as
  // with flip-flops. Each array has one writer:
  // pi the doorbells, ci dispatch or the retire side's rollback (dispatch
  // waits that cycle), the state the context writes. What else changes them
  // is a flag per RQ over the RAM: a context write's restart reads pi / ci
  // as 0 (pz_q / cz_q, until the next write of each), the datapath's ERR
  // reads the state as ERR (qerr_q, until the next context write). No reset
  // for the RAMs (en_q says which entries hold a context).
  logic [1:0]       st_mem [NQ];
  logic [15:0]      pi_mem [NQ];
  logic [15:0]      ci_mem [NQ];
  logic [NQ-1:0]    pz_q, cz_q, qerr_q;
  logic [1:0]       st_d, st_a, st_c;     // at qn, a_qn_q, cfg_qn_i

  // The head frame's RQ (the meta port holds it until dispatched).
  logic [QW-1:0]   qn;
  logic            qn_ok;
  assign qn    = meta_rqn_i[QW-1:0];
  assign qn_ok = meta_rqn_i < 16'(NQ);

  logic [FN_W-1:0] c_fn;
  logic [3:0]      c_lsz, c_lstr;
  logic [15:0]     c_cqn;
  logic [63:0]     c_base;
  logic [7:0]      c_flags;
  assign {c_fn, c_lsz, c_lstr, c_cqn, c_base, c_flags} = ctx_mem[qn];

  logic [FN_W-1:0] a_fn;
  logic [3:0]      a_lsz, a_lstr;
  logic [15:0]     a_cqn;
  logic [63:0]     a_base;
  logic [7:0]      a_flags;
  assign {a_fn, a_lsz, a_lstr, a_cqn, a_base, a_flags} = ctx_a_q;

  always_ff @(posedge clk_i) begin
    if (cfg_valid_i) ctx_mem[cfg_qn_i] <= {cfg_fn_i, cfg_log_size_i, cfg_log_stride_i, cfg_cqn_i,
                                           cfg_base_i, cfg_flags_i};
    ctx_a_q <= ctx_mem[acc_qn_i];
  end

  // As the queue manager: pi = ci = 0 on RST, or RDY from RST (an entry
  // without a context counts as RST).
  logic cfg_restart;
  assign cfg_restart = cfg_state_i == ST_RST ||
                       (cfg_state_i == ST_RDY && (!en_q[cfg_qn_i] || st_c == ST_RST));

  logic          d_consume;           // dispatch takes the WQE at ci
  logic          r_errph;             // retire: a write failed, RQ to ERR
  logic [QW-1:0] rc_qn;               // the retiring frame's RQ, WQE index
  logic [15:0]   rc_widx;
  logic          r_go;                // the frame at dq_rd_q retires
  logic [$clog2(NDESC)-1:0] rt_i;
  logic          err_set;             // an RQ goes to ERR
  logic [QW-1:0] err_qn;
  logic [15:0]   ci_d, pi_d, ci_a, pi_a;    // at qn, a_qn_q
  logic [15:0]   ci_h;                      // at qn, from its line (dispatch)
  assign ci_d = cz_q[qn] ? 16'd0 : ci_mem[qn];
  assign pi_d = pz_q[qn] ? 16'd0 : pi_mem[qn];
  assign ci_a = cz_q[a_qn_q] ? 16'd0 : ci_mem[a_qn_q];
  assign pi_a = pz_q[a_qn_q] ? 16'd0 : pi_mem[a_qn_q];
  assign st_d = qerr_q[qn] ? ST_ERR : st_mem[qn];
  assign st_a = qerr_q[a_qn_q] ? ST_ERR : st_mem[a_qn_q];
  assign st_c = qerr_q[cfg_qn_i] ? ST_ERR : st_mem[cfg_qn_i];

  // ci: dispatch's consumption, or a write error's rollback over younger
  // speculative frames (dispatch waits in that cycle).
  logic          ci_we;
  logic [QW-1:0] ci_wa;
  logic [15:0]   ci_wd;
  assign ci_we = d_consume || r_errph;
  assign ci_wa = r_errph ? rc_qn : qn;
  assign ci_wd = r_errph ? rc_widx + 1'b1 : ci_h + 1'b1;   // consumed: hit

  always_ff @(posedge clk_i) begin
    if (acc_valid_i) pi_mem[acc_qn_i] <= acc_pi_i;
    if (ci_we) ci_mem[ci_wa] <= ci_wd;
    if (cfg_valid_i) st_mem[cfg_qn_i] <= cfg_state_i;
  end

  // A context write wins over the datapath's update of the same entry.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      en_q   <= '0;
      pz_q   <= '1;
      cz_q   <= '1;
      qerr_q <= '0;
    end else begin
      if (acc_valid_i) pz_q[acc_qn_i] <= 1'b0;
      // Entry by entry, each comparing both RQ numbers: the retire's error
      // comes late, and through ci_wa / err_qn it would select the index
      // ahead of the decode.
      for (int q = 0; q < NQ; q++) begin
        if ((d_consume && qn == QW'(q)) || (r_errph && rc_qn == QW'(q))) cz_q[q] <= 1'b0;
        if ((d_go && d_kind == EV_RD_ERR && qn == QW'(q)) || (r_errph && rc_qn == QW'(q)))
          qerr_q[q] <= 1'b1;
      end
      if (cfg_valid_i) begin
        en_q[cfg_qn_i]   <= cfg_en_i;
        qerr_q[cfg_qn_i] <= 1'b0;
        if (cfg_restart) begin
          pz_q[cfg_qn_i] <= 1'b1;
          cz_q[cfg_qn_i] <= 1'b1;
        end
      end
    end
  end

  // --------------------------------------------------------- WQE cache
  // A line caches one RQ's WQEs from lci (= the RQ's ci) up to lfe (next to
  // read), at most NWQE (LCH 16-byte chunks: 32 at the 512-byte stride),
  // slot = index mod NWQE. Lines are allocated on a
  // doorbell (a free or idle line) or when a frame finds its RQ without one
  // (any line without reads in flight), and dropped on any context write of
  // their RQ and when it goes to ERR. A line is reused only once its reads
  // have been answered, so a late answer never lands in another RQ's line.
  logic [NLINE-1:0] lv_q;
  logic [QW-1:0]    lq_q    [NLINE];
  logic [15:0]      lci_q   [NLINE];
  logic [15:0]      lfe_q   [NLINE];
  logic [15:0]      lpi_q   [NLINE];
  logic [63:0]      lbase_q [NLINE];
  logic [3:0]       llsz_q  [NLINE];
  logic [3:0]       llstr_q [NLINE];
  logic [FN_W-1:0]  lfn_q   [NLINE];
  logic [KW:0]      lout_q  [NLINE];        // reads issued, not yet answered
  // The dispatch's view of the RQ, kept per line so that a frame whose RQ
  // holds a line is checked from registers (see "dispatch" below): ldc is
  // the RQ's ci (its next WQE to take), lflg its VLAN_STRIP and RX_FCS
  // flags. Both stay equal to the RQ's while the line is valid: ci moves
  // only by a frame that holds the line or by a rollback that drops it,
  // the flags only by a context write, which drops it too.
  logic [15:0]      ldc_q   [NLINE];
  logic [1:0]       lflg_q  [NLINE];
  // Answers come in request order and a line's requests in index order, and
  // its WQEs are consumed in index order (lci), so the WQEs it holds are
  // lci .. lans - 1: no flag per slot. Only the first failed read matters
  // (a frame that takes its first WQE puts the RQ in ERR, and ci never
  // passes it): lerr, valid with lerr_v.
  logic [15:0]      lans_q  [NLINE];        // next WQE to be answered
  logic [15:0]      lrdy_q  [NLINE];        // lans a cycle late (see g_lsum)
  logic [15:0]      lerr_q  [NLINE];
  logic [NLINE-1:0] lerr_v_q;

  // Per slot, from the WQE's answer: entries, capacity, bad lkey, in four
  // banks (slot mod 4: the up to four WQEs ending in one answer beat are
  // consecutive), valid once the whole answer is in (lans passes it).
  localparam int unsigned SUM_W = SW + 1 + 38 + 1;

  // Doorbell stage: the context read for a possible allocation.
  logic          a_v_q, a_stale_q;
  logic [QW-1:0] a_qn_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_v_q     <= 1'b0;
      a_stale_q <= 1'b0;
      a_qn_q    <= '0;
    end else begin
      a_v_q     <= acc_valid_i;
      a_stale_q <= cfg_valid_i && cfg_qn_i == acc_qn_i;
      a_qn_q    <= acc_qn_i;
    end
  end

  // Line lookups.
  logic             pf_load;                // the prefetch takes a read for pf_pick
  logic [LW-1:0]    pf_pick;
  logic [NLINE-1:0] hitv, a_hitv, freev, evv0, lbusy;
  logic             hit, a_hit;
  logic [LW-1:0]    h;
  always_comb begin
    h = '0;
    for (int l = 0; l < NLINE; l++) begin
      hitv[l]   = qn_ok && lv_q[l] && lq_q[l] == qn;
      a_hitv[l] = lv_q[l] && lq_q[l] == a_qn_q;
      evv0[l]   = lout_q[l] == '0 && !lbusy[l];
      // A free line is never the one the prefetch reads for (that line has
      // WQEs posted and not read).
      freev[l]  = evv0[l] && (!lv_q[l] || (lfe_q[l] == lci_q[l] && lpi_q[l] == lci_q[l]));
      // At most one line per RQ: h is an OR of the hit lines' numbers.
      h = h | (hitv[l] ? LW'(l) : '0);
    end
  end
  assign hit   = |hitv;
  assign a_hit = |a_hitv;

  // Victim: the first free line, else the next evictable one after the
  // last evicted (kite_rr_pick), but not the line the prefetch takes a read
  // for in this cycle: its answer would land in the line's next RQ. That
  // line is known late (at the end of the prefetch pick), so the evictable
  // line is picked without it and, in case it is the one picked, a second
  // time without that one; the prefetch selects between the two. Dropping
  // any other line from the requests would not change the pick.
  logic [LW-1:0]    vp_q, vict, free_l, ev_l, ev0_l, ev1_l;
  logic             vict_ok, free_ok, ev_ok, ev0_ok, ev1_ok, ev_pf;
  logic [NLINE-1:0] evv1;
  kite_rr_pick #(.N(NLINE)) u_free (.req_i(freev), .last_i('1), .valid_o(free_ok), .idx_o(free_l));
  kite_rr_pick #(.N(NLINE)) u_evict0 (.req_i(evv0), .last_i(vp_q), .valid_o(ev0_ok), .idx_o(ev0_l));
  always_comb
    for (int l = 0; l < NLINE; l++) evv1[l] = evv0[l] && ev0_l != LW'(l);
  kite_rr_pick #(.N(NLINE)) u_evict1 (.req_i(evv1), .last_i(vp_q), .valid_o(ev1_ok), .idx_o(ev1_l));
  assign ev_pf   = pf_load && pf_pick == ev0_l;
  assign ev_ok   = ev_pf ? ev1_ok : ev0_ok;
  assign ev_l    = ev_pf ? ev1_l : ev0_l;
  assign vict    = free_ok ? free_l : ev_l;
  assign vict_ok = ev_ok;   // a free line is evictable, and not the prefetch's

  logic d_alloc, a_alloc, alloc;
  logic [LW-1:0]   al_l;
  logic [QW-1:0]   al_qn;
  logic [63:0]     al_base;
  logic [3:0]      al_lsz, al_lstr;
  logic [FN_W-1:0] al_fn;
  logic [1:0]      al_flg;
  logic [15:0]     al_ci, al_pi;
  // Neither allocation for an RQ whose context is written, or that goes to
  // ERR, in this cycle: the line would hold the old context, and the drops
  // below only see the lines as they were.
  assign a_alloc = a_v_q && !a_stale_q && !a_hit && en_q[a_qn_q] && st_a == ST_RDY &&
                   free_ok && !d_alloc && !(cfg_valid_i && cfg_qn_i == a_qn_q) &&
                   !(err_set && err_qn == a_qn_q);
  assign alloc   = d_alloc || a_alloc;
  always_comb begin
    if (d_alloc) begin
      al_l = vict; al_qn = qn; al_base = c_base; al_lsz = c_lsz; al_lstr = c_lstr; al_fn = c_fn;
      al_flg = c_flags[1:0];
    end else begin
      al_l = free_l; al_qn = a_qn_q; al_base = a_base; al_lsz = a_lsz; al_lstr = a_lstr; al_fn = a_fn;
      al_flg = a_flags[1:0];
    end
    al_ci = d_alloc ? ci_d : ci_a;
    al_pi = (acc_valid_i && acc_qn_i == al_qn) ? acc_pi_i : (d_alloc ? pi_d : pi_a);
  end

  // Prefetch: a round-robin pick among the lines with a posted WQE not yet
  // read and room in their window; one request reads the WQEs from lfe that
  // are posted, fit the window, lie before the ring's wrap and before the
  // next read-size boundary (at least one). That count and the address are
  // worked out for every line in parallel and the pick selects them, so
  // that the pick and the arithmetic are not one after the other on the
  // path back to lfe.
  logic             pf_v_q;
  logic [LW-1:0]    pf_l_q, pf_last_q;
  logic [KW-1:0]    pf_slot_q;
  logic [KW:0]      pf_n_q, pf_n;
  logic [63:0]      pf_addr_q;
  logic [15:0]      pf_len_q;
  logic [FN_W-1:0]  pf_fn_q;
  logic [NLINE-1:0] elig;
  logic             pf_any, rd_go;
  logic [RW:0]      rd_res_q;               // reads loaded, not yet answered
  logic [15:0]      lwin [NLINE];
  logic [16:0]      lwmax [NLINE];          // window: NWQE, or LCH chunks
  logic [16:0]      lrdw  [NLINE];          // WQEs in one read of rdm bytes
  logic [16:0]      lwmax_q [NLINE];        // both registered: see lm1_q
  logic [16:0]      lrdw_q  [NLINE];
  logic [16:0]      lroom [NLINE];          // lwmax - lwin, when lwin < lwmax
  logic [NLINE-1:0] l_thr_ok;
  logic [NLINE-1:0] l_pfe, lpfe_q;          // WQEs to read and room: lpfe_q, see lm1_q
  always_comb begin
    for (int l = 0; l < NLINE; l++) begin
      lwin[l] = lfe_q[l] - lci_q[l];
      lwmax[l] = 17'(LCH) >> sh_of(llstr_q[l]);
      if (lwmax[l] > 17'(NWQE)) lwmax[l] = 17'(NWQE);
      lrdw[l]  = 17'(rdm) >> llstr_q[l];
      lroom[l] = lwmax_q[l] - 17'(lwin[l]);
      // Wait for room for a batch: the least of NWQE / 4, what is posted and
      // what one read takes at this stride (with a few tags, reads as small
      // as the last consumption would not keep up). Room for the least of
      // three is room for any one of them: three compares side by side,
      // not a min of min before the compare.
      l_thr_ok[l] = lroom[l] >= 17'(lpi_q[l] - lfe_q[l]) || lroom[l] >= 17'(RD_BATCH) ||
                    lroom[l] >= lrdw_q[l];
      l_pfe[l]    = lfe_q[l] != lpi_q[l] && 17'(lwin[l]) < lwmax_q[l] && l_thr_ok[l];
      // Not a line a context write drops in this cycle: a read loaded for it
      // would only be withdrawn (pf_dead). A line the retire's ERR phase
      // drops is not checked here: its RQ number comes out of rec_mem, too
      // deep in front of the pick (rtl.rst, twelfth round), and a read
      // loaded for it is withdrawn the same way.
      elig[l] = lv_q[l] && !lnb_q[l] && lpfe_q[l] && !(cfg_valid_i && lq_q[l] == cfg_qn_i);
    end
  end
  kite_rr_pick #(.N(NLINE)) u_prefetch (.req_i(elig), .last_i(pf_last_q), .valid_o(pf_any), .idx_o(pf_pick));
  // A request whose line has been dropped (a context write of its RQ, or
  // ERR) before it is taken is withdrawn: the ring it reads may be gone.
  // The card's read arbiter is a priority mux that takes a request only in
  // the cycle of its handshake, so withdrawing one is allowed. (From the
  // cycle after the drop: taken in the cycle of the context write, a read
  // is not after it, and the context port reaches back, through the
  // firmware's queue port, to the TX gather's read ready.)
  logic pf_dead, pf_cancel;
  assign pf_dead   = !lv_q[pf_l_q];
  assign pf_cancel = pf_v_q && pf_dead;
  assign rd_go   = pf_v_q && !pf_dead && rd_req_ready_i;
  assign pf_load = (!pf_v_q || pf_dead || rd_req_ready_i) && pf_any && rd_res_q != (RW + 1)'(RDQ);

  // The bound a read must stop at, the next read-size boundary or the
  // ring's wrap, depends on lfe through the ring index and the address: a
  // 64-bit add and two shifts, too deep for the loop from the prefetch's
  // pick back to lfe, and too deep for one cycle. It is registered in two
  // steps: the address and the WQEs to the wrap (la_q, lwr_q, from the lfe
  // of the cycle before), then the bound (lm1_q, from those). The WQEs a
  // read takes (the least of what is posted, the room in the window and
  // the bound) and whether the line is to read at all (lpfe_q) are
  // registered a step after that (ln_q), so that the pick starts from
  // registers and only the select of its line's count lies between it and
  // lfe. A line whose lfe has moved (a read, an allocation) in any of the
  // last three cycles is not eligible (lnb_q) while they catch up. The
  // window and the WQEs per read, which change only with an allocation,
  // are registered too (lwmax_q, lrdw_q), and the same cycles cover them.
  // Otherwise a cycle-old count is never too large: pi and ci only grow
  // (more posted, more room). A read ends at what is posted, the window or
  // the bound, so a line left with more to read stopped at a read-size
  // block or the wrap; one such read every fourth cycle per line is far
  // more WQEs than frames take. A new MRRS
  // applies from the cycle after; like kite_pcie_rd, the block expects it
  // to change only while the function is idle.
  logic [63:0]   l_a [NLINE];               // each line's next read: address
  logic [KW:0]   l_n [NLINE];               // and WQEs
  logic [XW:0]   l_m1 [NLINE];              // and bound, from la_q
  logic [63:0]   la_q [NLINE];              // l_a of the cycle before
  logic [16:0]   l_wr [NLINE];              // WQEs to the ring's wrap
  logic [16:0]   lwr_q [NLINE];
  logic [XW:0]   lm1_q [NLINE];             // l_m1 of the cycle before
  logic [KW:0]   ln_q [NLINE];              // l_n of the cycle before
  logic [NLINE-1:0] lmv_q, lmv2_q;          // lfe moved one, two cycles before
  logic [NLINE-1:0] lnb_q;                  // lm1_q, ln_q, lpfe_q are for an older lfe
  logic [15:0]   lfe_nx [NLINE];            // lfe after a read of ln_q WQEs
  logic [63:0]   pf_a;
  logic [15:0]   ln_idx;                    // per line, in turn
  logic [XW-1:0] ln_off;                    // l_a within its read-size block
  logic [16:0]   ln_bnd;
  logic [16:0]   ln_av, ln_room, ln_m1;
  logic [KW:0]   ln_min;
  logic          ln_ra, ln_ma, ln_mr, ln_sm, ln_z;
  always_comb begin
    for (int l = 0; l < NLINE; l++) begin
      ln_idx  = lfe_q[l] & 16'((17'd1 << llsz_q[l]) - 1'b1);
      l_a[l]  = lbase_q[l] + ({48'd0, ln_idx} << llstr_q[l]);
      l_wr[l] = (17'd1 << llsz_q[l]) - 17'(ln_idx);
      ln_off  = la_q[l][XW-1:0] & (rdm[XW-1:0] - XW'(1));
      ln_bnd  = 17'((18'(rdm) - 18'(ln_off)) >> llstr_q[l]);
      l_m1[l] = ln_bnd < lwr_q[l] ? (XW + 1)'(ln_bnd) : (XW + 1)'(lwr_q[l]);
    end
    // The least of the three (at least 1): each pair compared side by
    // side, and each one's zero test, so that no compare or zero test
    // waits for the select of another (a min of a min before did).
    for (int l = 0; l < NLINE; l++) begin
      ln_av   = 17'(lpi_q[l] - lfe_q[l]);
      ln_room = lroom[l];
      ln_m1   = 17'(lm1_q[l]);
      ln_ra   = ln_room < ln_av;
      ln_ma   = ln_m1 < ln_av;
      ln_mr   = ln_m1 < ln_room;
      ln_sm   = ln_ra ? ln_mr : ln_ma;
      ln_min  = (KW + 1)'(ln_sm ? ln_m1 : (ln_ra ? ln_room : ln_av));
      ln_z    = ln_sm ? ln_m1 == '0 : (ln_ra ? ln_room == '0 : ln_av == '0);
      l_n[l]  = ln_z ? (KW + 1)'(1) : ln_min;
    end
    // Added per line from registers, so that the pick only enables the
    // write: not the select of its count and the add behind it.
    for (int l = 0; l < NLINE; l++) lfe_nx[l] = lfe_q[l] + 16'(ln_q[l]);
  end
  assign pf_n = ln_q[pf_pick];
  assign pf_a = la_q[pf_pick];

  assign rd_req_valid_o = pf_v_q && !pf_dead;
  assign rd_req_id_o    = RD_ID;
  assign rd_req_fn_o    = pf_fn_q;
  assign rd_req_addr_o  = pf_addr_q;
  assign rd_req_len_o   = pf_len_q;

  // Reads in flight (answers come in request order).
  localparam int unsigned RQ_W = LW + KW + KW + 1 + 2 + 3;
  logic [RQ_W-1:0] rdq_mem [RDQ];
  logic [RW:0]     rdq_wr_q, rdq_rd_q;
  logic [LW-1:0]   rs_l;
  logic [KW-1:0]   rs_slot;                 // first WQE's slot
  logic [KW:0]     rs_n;                    // WQEs
  logic [1:0]      rs_a54;                  // address bits 5:4
  logic [2:0]      rs_sh;                   // entries per WQE: 2^rs_sh
  // The line's stride goes with the request, so that the answer does not
  // look it up through rs_l at the head of its per-chunk arithmetic (it
  // does not change while the line has reads out). The head request's
  // entry is registered (rs_q: the entry that is the head in the next
  // cycle, taken from the write port when it is written in this one), so
  // that the answer's decode does not start behind the queue's RAM. The
  // RAM is read at the entry after the head, which the head becomes when
  // the answer ends: the end selects, rather than picks the read address
  // (through the RAM, the answer's last beat into rs_q was 11 LUTs).
  logic [RQ_W-1:0] rdq_wd, rs_q;
  logic [RW:0]     rdq_rd1;
  logic            rsp_go, rsp_end;
  assign rdq_wd  = {pf_l_q, pf_slot_q, pf_n_q, pf_addr_q[5:4], sh_of(llstr_q[pf_l_q])};
  assign rdq_rd1 = rdq_rd_q + 1'b1;
  always_ff @(posedge clk_i) begin
    if (rd_go) rdq_mem[rdq_wr_q[RW-1:0]] <= rdq_wd;
    if (rsp_end) rs_q <= rd_go && rdq_wr_q == rdq_rd1 ? rdq_wd : rdq_mem[rdq_rd1[RW-1:0]];
    else if (rd_go && rdq_wr_q == rdq_rd_q) rs_q <= rdq_wd;
  end
  assign {rs_l, rs_slot, rs_n, rs_a54, rs_sh} = rs_q;

  assign rd_rsp_ready_o = rdq_wr_q != rdq_rd_q;
  assign rsp_go  = rd_rsp_valid_i && rd_rsp_ready_o;
  assign rsp_end = rsp_go && rd_rsp_last_i;

  // Scatter entries are kept per line as a ring of LCH 16-byte chunks:
  // entry e of slot s is chunk (s * 2^sh + e) mod LCH (no two WQEs of the
  // window share one), in bank chunk mod 4, so the four chunks of an answer
  // beat (consecutive in the ring) go to four banks whatever the stride.
  function automatic logic [CW-1:0] chunk_of(input logic [2:0] sh, input logic [KW-1:0] s,
                                             input logic [5:0] e);
    chunk_of = CW'(((CW + KW)'(s) << sh) + (CW + KW)'(e));
  endfunction

  // Answer, in two stages. A WQE's reduction (its entries up to the first
  // of length 0 and at most MAX_SGE: their count, capacity and whether an
  // lkey is bad) restarts at its entry 0 and is stored at its last chunk.
  // Stage A takes the beat: chunk j (16 bytes) is the request's chunk
  // c = 4 * beat + j - (addr mod 64) / 16, entry c mod 2^sh of its WQE
  // c / 2^sh; the scatter entries are written, and each chunk's place in
  // its WQE and its entry's length and lkey are checked. Stage B, the cycle
  // after, works out which chunks of the beat each chunk's reduction takes
  // and adds their lengths to what is carried from the beats before. Done
  // in one cycle, the decode behind the read queue's RAM and four 38-bit
  // adds in series behind it were the block's deepest path.
  logic [3:0]    rb_beat_q;                 // saturates: strides over 512 bytes
  logic          rb_err_q;
  logic [4:0]    rs_emask;
  // Chunk c's place in the ring is chunk_of(sh, slot + c / 2^sh, c mod
  // 2^sh) = (chunk_of(sh, slot, 0) + c) mod 2^min(CW, KW + sh): one add
  // behind the request's entry instead of a shift, an add, a shift and an
  // add behind the chunk's count (the scatter RAM's write address was the
  // block's deepest path). The banks' rotation is the base's, less a54.
  // The mod 2^(KW + sh) only matters when the slot wraps inside a read,
  // which needs a read longer than NWQE WQEs of 16 bytes: rings are 4 KiB
  // aligned (WQ_ALIGN) and reads end at a multiple of their size.
  localparam bit SLOT_WRAP = RD_MAX > 16 * NWQE;
  logic [CW-1:0] rs_base, rs_wmask;
  logic [1:0]    rs_rot;
  logic [5:0]    ck_c [4];
  logic [4:0]    ck_e [4];
  logic [5:0]    ck_k [4];
  logic [KW-1:0] ck_slot [4];
  logic [CW-1:0] ck_ch [4];
  logic [3:0]    ck_v, ck_end;
  logic [3:0]    ck_rst;                    // entry 0: the reduction restarts
  logic [3:0]    ck_gate;                   // an entry the reduction looks at
  logic [3:0]    ck_zero, ck_bad;           // length 0 (the list ends), bad lkey
  always_comb begin
    rs_emask = 5'((6'd1 << rs_sh) - 1'b1);
    rs_base  = chunk_of(rs_sh, rs_slot, 6'd0);
    rs_wmask = '1;
    if (SLOT_WRAP && KW + 32'(rs_sh) < CW) rs_wmask = CW'((32'd1 << (KW + 32'(rs_sh))) - 1);
    rs_rot   = rs_base[1:0] - rs_a54;
    for (int j = 0; j < 4; j++) begin
      ck_c[j]    = {rb_beat_q, 2'(j)} - 6'(rs_a54);
      ck_e[j]    = ck_c[j][4:0] & rs_emask;
      ck_k[j]    = ck_c[j] >> rs_sh;
      ck_slot[j] = rs_slot + KW'(ck_k[j]);
      ck_ch[j]   = (rs_base + CW'(ck_c[j])) & rs_wmask;
      ck_v[j]    = rd_rsp_keep_i[16*j] && 7'(ck_k[j]) < 7'(rs_n);
      ck_end[j]  = ck_v[j] && ck_e[j] == rs_emask;
      ck_rst[j]  = ck_v[j] && ck_e[j] == '0;
      // Until the list ends every entry before e was taken, so the count
      // the MAX_SGE limit applies to is e.
      ck_gate[j] = ck_v[j] && 32'(ck_e[j]) < MAX_SGE;
      ck_zero[j] = rd_rsp_data_i[128*j + 64 +: 32] == 32'd0;
      ck_bad[j]  = rd_rsp_data_i[128*j + 96 +: 32] != 32'(kite_pkg::LKEY_PHYS);
    end
  end

  // Stage B: the beat's chunks registered (ab_*), and the reduction
  // carried from the beats before (rb_*, cleared after a request's last
  // beat). Per chunk j, the beat's part of its reduction, from its WQE's
  // entry 0 or the beat's start: the chunks taken (b_mt[j][i]), their count
  // and lkeys, and whether the WQE began in an earlier beat (b_cont: the
  // carried reduction is added, or kept as it is if its list had ended).
  logic             ab_v_q, ab_end_q, ab_err_q;
  logic [LW-1:0]    ab_l_q;
  logic [KW:0]      ab_n_q;
  logic [3:0]       ab_cend_q;              // ck_end
  logic [KW-1:0]    ab_slot_q [4];          // ck_slot
  logic [3:0]       ab_rst_q, ab_gate_q, ab_zero_q, ab_bad_q;
  logic [31:0]      ab_len_q [4];
  logic [SW:0]      rb_nsge_q;
  logic             rb_stop_q, rb_bad_q;
  logic [37:0]      rb_cap_q, rb_cap;
  logic             rb_clr_q;               // rb_cap_q reads as 0 (a request ended)
  logic [3:0]       b_tk, b_cont, b_bad;
  logic             b_st;                   // the list has ended, in the beat
  logic [3:0]       b_mt [4];
  logic [2:0]       b_cnt [4];
  logic [37:0]      b_m [4][4];
  logic [37:0]      b_lcap [4], b_rcap [4], b_cap [4];
  logic [SUM_W-1:0] b_sum [4];
  logic [SUM_W-1:0] sw_d [4];
  logic             b_stop;
  // Summary writes, in stage B from the slots stage A registered (behind
  // the decode they were the block's deepest path): per bank (slot mod 4)
  // the WQE ending in the beat, if any, and the chunk whose reduction it
  // takes. The WQEs ending in a beat (at most four) have consecutive
  // slots, so at most one chunk matches a bank: an OR of the matches, not
  // a chain of selects.
  logic [3:0]          sw_v;
  logic [KW-3:0]       sw_row [4];
  logic [1:0]          sw_j [4];
  logic [3:0]          sw_m [4];
  always_comb begin
    for (int b = 0; b < 4; b++) begin
      sw_row[b] = '0;
      sw_j[b]   = '0;
      for (int j = 0; j < 4; j++) begin
        sw_m[b][j] = ab_cend_q[j] && ab_slot_q[j][1:0] == 2'(b);
        sw_row[b] = sw_row[b] | (sw_m[b][j] ? ab_slot_q[j][KW-1:2] : '0);
        sw_j[b]   = sw_j[b] | (sw_m[b][j] ? 2'(j) : 2'd0);
      end
      sw_v[b] = |sw_m[b];
    end
  end

  assign rb_cap = rb_clr_q ? '0 : rb_cap_q;
  always_comb begin
    // The list's end within the beat, restarting at each entry 0.
    b_st = 1'b0;
    for (int i = 0; i < 4; i++) begin
      if (ab_rst_q[i]) b_st = 1'b0;
      b_tk[i] = ab_gate_q[i] && !ab_zero_q[i] && !b_st;
      if (ab_gate_q[i] && ab_zero_q[i]) b_st = 1'b1;
    end
    for (int j = 0; j < 4; j++) begin
      b_mt[j]   = '0;
      b_cont[j] = 1'b1;
      for (int i = 3; i >= 0; i--)
        if (i <= j && b_cont[j]) begin
          b_mt[j][i] = b_tk[i];
          if (ab_rst_q[i]) b_cont[j] = 1'b0;
        end
      b_cnt[j] = 3'($countones(b_mt[j]));
      b_bad[j] = |(b_mt[j] & ab_bad_q);
      // The capacity with no select behind its adds: the carried part an
      // operand (0 for a WQE begun in this beat), the beat's lengths masked
      // where the carried list has ended.
      for (int i = 0; i < 4; i++)
        b_m[j][i] = b_mt[j][i] && !(b_cont[j] && rb_stop_q) ? 38'(ab_len_q[i]) : '0;
      b_lcap[j] = (b_m[j][0] + b_m[j][1]) + (b_m[j][2] + b_m[j][3]);
      b_rcap[j] = b_cont[j] ? rb_cap : '0;
      b_cap[j]  = b_rcap[j] + b_lcap[j];
      if (!b_cont[j]) b_sum[j] = {(SW + 1)'(b_cnt[j]), b_cap[j], b_bad[j]};
      else if (rb_stop_q) b_sum[j] = {rb_nsge_q, b_cap[j], rb_bad_q};
      else b_sum[j] = {rb_nsge_q + (SW + 1)'(b_cnt[j]), b_cap[j], rb_bad_q || b_bad[j]};
    end
    for (int b = 0; b < 4; b++) sw_d[b] = b_sum[sw_j[b]];
    b_stop = b_st || (b_cont[3] && rb_stop_q);
  end

  // Scatter entries: four banks (see chunk_of), so a beat's four entries
  // are written in one cycle; row = line, chunk / 4. One registered read.
  logic [LW+CW-3:0]    e_row;
  logic [1:0]          e_bank, e_bank_q;
  logic [95:0]         e_rd [4];
  for (genvar b = 0; b < 4; b++) begin : g_sge
    logic [95:0]   mem [ROWS];
    logic [1:0]    j;
    assign j = 2'(b) - rs_rot;              // chunks are consecutive
    always_ff @(posedge clk_i) begin
      if (rsp_go && ck_v[j] && 32'(ck_e[j]) < MAX_SGE)
        mem[{rs_l, ck_ch[j][CW-1:2]}] <= {rd_rsp_data_i[128*j + 64 +: 32],
                                          rd_rsp_data_i[128*j +: 64]};
      e_rd[b] <= mem[e_row];
    end
  end
  always_ff @(posedge clk_i) e_bank_q <= e_bank;

  logic [63:0] e_addr;
  logic [31:0] e_len;
  assign {e_len, e_addr} = e_rd[e_bank_q];

  // ----------------------------------------------------------- dispatch
  // One frame per cycle when its WQE is cached. A frame whose RQ has an
  // older delivering frame in flight is speculative: the older frame's
  // writes may still fail (RQ to ERR), so its own writes wait for that
  // outcome (other frames' writes go ahead), and at retire it becomes the
  // model's NO_BUF if the RQ went to ERR (its writes never issued, ci rolled
  // back). A WQE read error (RQ to ERR at once) waits for all older frames
  // of its RQ instead, a bad lkey for the older delivering ones.
  logic          d_have, haz, infl;
  logic          strip_d, tag_d;
  logic [15:0]   dlen_d;
  logic [1:0]    flg_d;
  logic          rdy_d, s_err, s_bad, s_over, s_empty;
  logic [SW:0]   s_nsge;
  // A frame whose RQ holds a line (hit) is checked from that line's
  // registers, every line's verdict worked out beside the others and the
  // frame's selected by h: the RQ's ci read through its 512-entry select,
  // then the WQE's summary read at that slot, in series, were the block's
  // deepest path (rtl.rst, "Logic depth"). Such an RQ is enabled and RDY
  // (a line is allocated only then, and dropped by a context write or
  // ERR), and the line's lpi, ldc and lflg are its pi, ci and flags.
  // A frame without a line is checked from the context RAMs and their
  // flags, a shorter path than the line's.
  assign tag_d = meta_num_vlans_i != 2'd0 && d_tpid;
  // VLAN_STRIP removes the outer tag's 4 bytes; RX_FCS: the FCS follows
  // the frame in the buffer, and the length counts it.
  function automatic logic [15:0] dlen_of(input logic [1:0] flg, input logic tag, input logic [15:0] len,
                                          input logic [15:0] len_m4, input logic [15:0] len_p4);
    if (flg[0] && tag) dlen_of = flg[1] ? len : len_m4;
    else dlen_of = flg[1] ? len_p4 : len;
  endfunction

  // Per slot, the WQE's summary (see the answer's stage B): four banks
  // (slot mod 4), each line its own RAM. The summary of the WQE at ldc is
  // a register (sum_q): read from the RAM at ldc, its compares with the
  // frame's lengths, then the bank, length and line selects, were the
  // block's deepest path (rtl.rst, "Logic depth"). It is loaded each
  // cycle with the WQE ldc will point at: ldc + 1 when the line's frame
  // takes its WQE now (the next bank at the same row, or bank 0 at the
  // next, from a copy of bank 0), else ldc. A write reaches sum_q a cycle
  // after the RAM, so the dispatch counts a WQE cached a cycle after its
  // answer (lrdy: lans a cycle late); sum_q is not read before that, nor
  // in the cycle after an allocation (the line caches nothing yet).
  // Each of the frame's three lengths is compared with the capacity, and
  // the verdict selected by which applies (the line's flags, the frame's
  // tag): the compares do not wait for the select.
  logic [NLINE-1:0] l_empty, l_rdy, l_err, l_over, l_bad;
  logic [SW:0]      l_nsge [NLINE];
  for (genvar l = 0; l < NLINE; l++) begin : g_lsum
    logic [SUM_W-1:0] sum_rd [4];           // bank b at ldc's row
    logic [SUM_W-1:0] sum_nr;               // bank 0 at the row after
    logic [SUM_W-1:0] sum_at, sum_nx, sum_q;
    logic [2:0]       ovb;                  // longer than the capacity: len, len - 4, len + 4
    logic [1:0]       lv;                   // which: 0, 1, 2
    logic [15:0]      lag;
    logic [KW-1:0]    slot;
    logic [KW-3:0]    row;
    assign slot = ldc_q[l][KW-1:0];
    assign row  = slot[KW-1:2];
    assign lv   = lflg_q[l][0] && tag_d ? (lflg_q[l][1] ? 2'd0 : 2'd1) : (lflg_q[l][1] ? 2'd2 : 2'd0);
    for (genvar b = 0; b < 4; b++) begin : g_bank
      logic [SUM_W-1:0] mem [NWQE/4];
      always_ff @(posedge clk_i)
        if (ab_v_q && sw_v[b] && ab_l_q == LW'(l)) mem[sw_row[b]] <= sw_d[b];
      assign sum_rd[b] = mem[row];
      // Bank 0's copy for the row after: as a second read port of mem,
      // yosys merges the two reads into one at a selected address, and
      // the select is by the late consumption.
      if (b == 0) begin : g_nr
        logic [SUM_W-1:0] nr [NWQE/4];
        always_ff @(posedge clk_i)
          if (ab_v_q && sw_v[b] && ab_l_q == LW'(l)) nr[sw_row[b]] <= sw_d[b];
        assign sum_nr = nr[row + 1'b1];
      end
    end
    assign sum_at = sum_rd[slot[1:0]];
    assign sum_nx = slot[1:0] == 2'd3 ? sum_nr : sum_rd[slot[1:0] + 2'd1];
    always_ff @(posedge clk_i) sum_q <= d_consume && h == LW'(l) ? sum_nx : sum_at;
    assign ovb = {38'(d_len_p4) > sum_q[38:1], 38'(d_len_m4) > sum_q[38:1], 38'(d_len) > sum_q[38:1]};
    // WQE ldc is cached when it lies in lci .. lrdy - 1 (dispatch runs
    // ahead of lci, the line's oldest WQE still being written).
    assign lag        = ldc_q[l] - lci_q[l];
    assign l_empty[l] = lpi_q[l] == ldc_q[l];
    assign l_rdy[l]   = lag < lrdy_q[l] - lci_q[l];
    assign l_err[l]   = lerr_v_q[l] && lag >= lerr_q[l] - lci_q[l];
    assign l_over[l]  = ovb[lv];
    assign l_nsge[l]  = sum_q[SUM_W-1 -: SW + 1];
    assign l_bad[l]   = sum_q[0];
  end
  assign s_empty = l_empty[h];
  assign rdy_d   = l_rdy[h];
  assign s_err   = l_err[h];
  assign s_over  = l_over[h];
  assign s_nsge  = l_nsge[h];
  assign s_bad   = l_bad[h];
  assign ci_h    = ldc_q[h];
  assign flg_d   = hit ? lflg_q[h] : c_flags[1:0];
  assign strip_d = flg_d[0] && tag_d;
  assign dlen_d  = dlen_of(flg_d, tag_d, d_len, d_len_m4, d_len_p4);
  assign d_have  = meta_valid_i && dq_wr_q != dq_dp_q;

  // Each line's WQE at ldc: its entry 0's chunk, worked out from the
  // line's registers so that a task's first read needs no shift behind the
  // dispatch or the scatter's take.
  logic [CW-1:0] lch [NLINE];
  always_comb
    for (int l = 0; l < NLINE; l++) lch[l] = chunk_of(sh_of(llstr_q[l]), ldc_q[l][KW-1:0], 6'd0);

  // Records dq_rd_q .. dq_dp_q - 1 (indexed like the descriptors).
  logic [NDESC-1:0] infl_q;                 // not retired
  logic [NDESC-1:0] pend_q;                 // delivering, not retired
  logic [NDESC-1:0] spec_q;
  logic [NDESC-1:0] terr_q;                 // its RQ went to ERR after its dispatch
  logic [NDESC-1:0] todo_q;                 // scatter not started
  logic [NDESC-1:0] fin_q;                  // all write requests issued (or none)
  logic [NDESC-1:0] cancel_q;               // writes dropped: an older frame's failed
  logic [NDESC-1:0] pv_q;                   // waits for the outcome of record prev
  logic [NDESC-1:0] err_q;                  // a write failed
  logic [QW-1:0]    pq_q   [NDESC];
  logic [DW-1:0]    prev_q [NDESC];
  logic [LW-1:0]    tl_q   [NDESC];         // scatter task: line, first chunk, entries, length, strip
  logic [CW-1:0]    tch_q  [NDESC];
  logic [SW:0]      tn_q   [NDESC];
  logic [15:0]      td_q   [NDESC];
  logic [NDESC-1:0] tstrip_q;
  logic [SW:0]      rec_nwr [NDESC];        // write requests of the frame
  logic [SW:0]      rec_got [NDESC];        // of which done
  logic [DW-1:0]    dp_i;
  assign dp_i = dq_dp_q[DW-1:0];

  always_comb begin
    haz  = 1'b0;
    infl = 1'b0;
    for (int i = 0; i < NDESC; i++) begin
      if (pend_q[i] && pq_q[i] == qn) haz = 1'b1;
      if (infl_q[i] && pq_q[i] == qn) infl = 1'b1;
    end
  end

  // The youngest delivering frame per line, to chain a new one behind it.
  logic [DW-1:0]    lr_q [NLINE];
  logic [NLINE-1:0] lr_v_q;
  logic             prev_v_d;
  assign prev_v_d = lr_v_q[h] && pend_q[lr_q[h]] && pq_q[lr_q[h]] == qn && !(r_go && lr_q[h] == rt_i);

  logic       d_go, d_ok;
  logic [3:0] d_kind;
  logic       d_wait;
  always_comb begin
    d_kind  = EV_OK;
    d_wait  = 1'b0;
    d_alloc = 1'b0;
    // A frame to be held (EV_NO_BUF_Q with meta_pause_i) waits for the
    // delivering frames of its RQ: if one of them fails, the RQ is in ERR
    // and this one is the model's NO_BUF, not held.
    if (!d_have) d_wait = 1'b1;
    else if (meta_drop_i) d_kind = meta_drop_flow_i ? EV_FLOW_DROP : EV_FILTERED;
    else if (!hit) begin
      if (!qn_ok || !en_q[qn] || st_d != ST_RDY) d_kind = EV_NO_BUF;
      else if (meta_malformed_i) d_kind = EV_MALFORMED;
      else if (pi_d == ci_d) begin
        d_kind = EV_NO_BUF_Q;
        d_wait = meta_pause_i && haz;
      end else begin
        d_wait  = 1'b1;
        d_alloc = vict_ok && !(cfg_valid_i && cfg_qn_i == qn);
      end
    end
    else if (meta_malformed_i) d_kind = EV_MALFORMED;
    else if (s_empty) begin
      d_kind = EV_NO_BUF_Q;
      d_wait = meta_pause_i && haz;
    end
    else if (!rdy_d) d_wait = 1'b1;
    else if (s_err) begin
      d_kind = EV_RD_ERR;
      d_wait = r_errph || infl;
    end else if (s_over) d_kind = EV_OVERSIZE;
    else if (s_bad) begin
      // Consumed here, so it waits for the older frames of its RQ: the
      // line's lci counts WQEs in order, and their slots' entries must not
      // be refilled while being written.
      d_kind = EV_PROT_ERR;
      d_wait = haz;
    end
    // ci's write port is the retire side's rollback in this cycle (which
    // may be this RQ's: no line for it either).
    if (r_errph) begin
      d_wait  = 1'b1;
      d_alloc = 1'b0;
    end
  end
  assign d_go      = !d_wait;
  assign d_ok      = d_go && d_kind == EV_OK;
  assign d_consume = d_go && (d_kind == EV_OK || d_kind == EV_PROT_ERR);
  assign meta_ready_o = d_go;
  assign park_o       = d_go && d_kind == EV_NO_BUF_Q && meta_pause_i;

  // terr_q for the dispatched frame: a context write of ERR to its RQ in
  // this cycle (the retire's ERR phase and a dispatch never share one). A
  // frame that finds its RQ in ERR is NO_BUF already, and an RD_ERR frame
  // waits until none of its RQ is in flight, so it is never speculative.
  logic cfg_err, d_terr;
  assign cfg_err = cfg_valid_i && cfg_state_i == ST_ERR;
  assign d_terr  = cfg_err && cfg_qn_i == qn;

  logic l3_ok_d, bad_csum_d;
  logic [15:0] csum_adj, csum_fix;
  assign l3_ok_d    = meta_ipv4_i && meta_ipv4_hdr_ok_i;
  assign bad_csum_d = (meta_ipv4_i && !meta_ipv4_hdr_ok_i) || meta_l4_bad_i;
  // Stripped: the sum of the delivered bytes after 14 loses frame bytes 14..17.
  assign csum_adj = kite_rtl_pkg::oc_add(kite_rtl_pkg::oc_add(meta_csum_i,
                                         ~{d_head[8*14 +: 8], d_head[8*15 +: 8]}),
                                         ~{d_head[8*16 +: 8], d_head[8*17 +: 8]});
  always_comb begin
    if (!strip_d) csum_fix = meta_csum_i;
    else if (!d_nz) csum_fix = 16'd0;
    else csum_fix = csum_adj == 16'd0 ? 16'hffff : csum_adj;
  end

  // Per-frame record, kept from dispatch to retire: kind, rqn, cqn, WQE
  // index, then the ETH_RX CQE fields and the counter flags.
  localparam int unsigned REC_W = 4 + 16 + 16 + 16 + 16 + 32 + 8 + 1 + 16 + 3 + 16 + 2;
  logic [REC_W-1:0] rec_mem [NDESC];
  always_ff @(posedge clk_i) begin
    if (d_go)
      rec_mem[dp_i] <= {d_kind, meta_rqn_i, c_cqn, hit ? ci_h : ci_d, dlen_d, meta_hash_i, meta_hash_type_i,
                        strip_d, meta_tci_i, l3_ok_d, meta_l4_ok_i, meta_l4_bad_i, csum_fix,
                        l3_ok_d || meta_l4_ok_i, bad_csum_d};
  end

  // ------------------------------------------------------------ scatter
  // Tasks (delivering frames) in age order, skipping those that wait for an
  // older frame of their RQ; one write request per entry (up to the frame's
  // end), one per cycle, the next task's first entry read meanwhile.
  // wdone: every write of the task issued and answered. The retire reads
  // it at rt_i too: one select of a flag instead of three of the counts.
  logic [NDESC-1:0] wdone, okdone, faildone, elig_t, cancel_now;
  always_comb begin
    for (int j = 0; j < NDESC; j++) begin
      wdone[j]    = fin_q[j] && rec_got[j] == rec_nwr[j];
      okdone[j]   = !pend_q[j] || (wdone[j] && !cancel_q[j] && !err_q[j]);
      faildone[j] = pend_q[j] && (cancel_q[j] || (wdone[j] && err_q[j]));
    end
    for (int i = 0; i < NDESC; i++) begin
      elig_t[i]     = todo_q[i] && (!pv_q[i] || okdone[prev_q[i]]);
      cancel_now[i] = todo_q[i] && pv_q[i] && faildone[prev_q[i]];
    end
  end

  // The oldest eligible task: the first from dq_rd_q on (the one after
  // dq_rd_q - 1, as kite_rr_pick counts).
  logic [DW-1:0] tk_pick;
  logic          tk_any;
  logic [DW-1:0] tk_last_q;                 // dq_rd_q - 1, kept beside it
  kite_rr_pick #(.N(NDESC)) u_task (
    .req_i(elig_t), .last_i(tk_last_q), .valid_o(tk_any), .idx_o(tk_pick));

  logic          sg_run_q;
  logic [DW-1:0] sg_i_q;
  logic [LW-1:0] sg_l_q;
  logic [CW-1:0] sg_ch_q;                   // the chunk of entry si_q
  logic [SW:0]   si_q, nsge_q, nwr_q;
  logic [15:0]   off_q, dlen_q;
  logic          strip_q;
  logic [AW-1:0] sg_start_q;
  logic [15:0]   n_cur;
  logic [31:0]   left32;
  logic          e_fits;                    // the entry holds what is left
  logic          wr_go, sg_last, sg_take, jb_full;
  logic [OW:0]   wo_q;                      // write requests issued, not done
  assign left32 = 32'(dlen_q) - 32'(off_q);
  assign e_fits = e_len >= left32;
  assign n_cur  = e_fits ? left32[15:0] : e_len[15:0];
  assign wr_req_valid_o = sg_run_q && !jb_full && wo_q != (OW + 1)'(WRQ);
  assign wr_go   = wr_req_valid_o && wr_req_ready_i;
  // The frame ends in this entry when it holds what is left: off_q + n_cur
  // reaches dlen_q (off_q never passes it), without n_cur's add.
  assign sg_last = e_fits || si_q + 1'b1 >= nsge_q;
  assign sg_take = tk_any && (!sg_run_q || (wr_go && sg_last));
  assign wr_req_id_o   = WR_ID;
  assign wr_req_fn_o   = lfn_q[sg_l_q];
  assign wr_req_addr_o = e_addr;
  assign wr_req_len_o  = n_cur;

  // The entry read for the next cycle: the next task's first, or the
  // current task's next or same (its chunk and the one after are ready
  // before the take and wr_go, known late, select).
  logic [AW-1:0] tk_start;
  assign tk_start = desc_mem[tk_pick][AW-1:0];
  logic [LW-1:0] e_l;
  logic [CW-1:0] e_ch;
  always_comb begin
    if (sg_take) begin
      e_l  = tl_q[tk_pick];
      e_ch = tch_q[tk_pick];
    end else begin
      e_l  = sg_l_q;
      e_ch = wr_go ? sg_ch_q + 1'b1 : sg_ch_q;
    end
    e_row  = {e_l, e_ch[CW-1:2]};
    e_bank = e_ch[1:0];
  end

  // Which record each write request belongs to (wr_done comes in request order).
  logic [DW-1:0] wq_mem [WRQ];
  logic [OW:0]   wq_wr_q, wq_rd_q;
  logic [DW-1:0] dn_i;
  logic          done_ours;
  assign done_ours = wr_done_i && wr_done_id_i == WR_ID;
  assign dn_i = wq_mem[wq_rd_q[OW-1:0]];
  always_ff @(posedge clk_i) if (wr_go) wq_mem[wq_wr_q[OW-1:0]] <= sg_i_q;

  // Write jobs: (delivered offset of the word's lane 0, words, strip,
  // frame start, descriptor for the head bytes).
  localparam int unsigned JB_W = 18 + 11 + 1 + AW + DW;
  logic [JB_W-1:0] jb_mem [8];
  logic [3:0]      jb_wr_q, jb_rd_q;
  logic            jb_pop, jb_have;
  assign jb_full = (jb_wr_q - jb_rd_q) == 4'd8;
  assign jb_have = jb_wr_q != jb_rd_q;
  always_ff @(posedge clk_i)
    if (wr_go)
      jb_mem[jb_wr_q[2:0]] <= {18'(off_q) - 18'(e_addr[5:0]),
                               11'((17'(e_addr[5:0]) + 17'(n_cur) + 17'd63) >> 6),
                               strip_q, sg_start_q, sg_i_q};

  // ------------------------------------------------------- word generator
  // Words of one job, window position p0 (delivered offset of lane 0)
  // advancing by 64; the next job follows without a gap.
  logic          g_busy_q;
  logic [10:0]   g_left_q;
  logic signed [17:0] g_p0_q;
  logic          g_strip_q;
  logic [AW-1:0] g_start_q;
  logic [DW-1:0] g_di_q;
  logic          g_issue;
  logic [2:0]    of_cnt_q;             // output FIFO occupancy
  logic          rd1_q;                // a frame buffer read is in flight
  logic signed [17:0] rd1_p0_q;
  logic [5:0]    rd1_shift_q;
  logic          rd1_lo_odd_q, rd1_strip_q;
  logic [DW-1:0] rd1_di_q;

  logic signed [17:0] jb_p0;
  logic [10:0]   jb_nw;
  logic          jb_strip;
  logic [AW-1:0] jb_start;
  logic [DW-1:0] jb_di;
  assign {jb_p0, jb_nw, jb_strip, jb_start, jb_di} = jb_mem[jb_rd_q[2:0]];

  logic signed [17:0] q_pos;           // frame byte of lane 0, plus 64
  logic [AW-1:0] lo_beat;
  logic [AW-2:0] row_e, row_o;
  always_comb begin
    q_pos   = g_p0_q + 18'sd64 + (g_strip_q ? 18'sd4 : 18'sd0);
    lo_beat = g_start_q + AW'(q_pos[17:6]) - 1'b1;
    row_o   = lo_beat[AW-1:1];
    row_e   = lo_beat[0] ? lo_beat[AW-1:1] + 1'b1 : lo_beat[AW-1:1];
  end

  logic out_pop;
  assign g_issue = g_busy_q && (3'(of_cnt_q) + 3'(rd1_q)) < 3'd4;
  assign jb_pop  = jb_have && (!g_busy_q || (g_issue && g_left_q == 11'd1));

  logic [511:0] rd_e_q, rd_o_q;
  always_ff @(posedge clk_i) begin
    rd_e_q <= bank_e[row_e];
    rd_o_q <= bank_o[row_o];
  end

  logic [143:0] g_head;
  assign g_head = desc_mem[rd1_di_q][AW + AW + 1 + 16 +: 144];

  logic [1023:0] win;
  logic [511:0]  word;
  logic signed [17:0] hp;
  always_comb begin
    hp   = '0;
    win  = rd1_lo_odd_q ? {rd_e_q, rd_o_q} : {rd_o_q, rd_e_q};
    word = 512'(win >> {rd1_shift_q, 3'b000});
    if (rd1_strip_q) begin
      for (int i = 0; i < 64; i++) begin
        hp = rd1_p0_q + 18'(i);
        if (hp >= 0 && hp < 12) word[8*i +: 8] = g_head[8*hp[3:0] +: 8];
      end
    end
  end

  // Output FIFO, four words.
  logic [511:0] of_mem [4];
  logic [1:0]   of_wr_q, of_rd_q;
  assign wr_data_valid_o = of_cnt_q != '0;
  assign wr_data_o       = of_mem[of_rd_q];
  assign out_pop         = wr_data_valid_o && wr_data_ready_i;

  always_ff @(posedge clk_i) if (rd1_q) of_mem[of_wr_q] <= word;

  // -------------------------------------------------------------- retire
  // Frames retire in order once their writes are done: a failed write makes
  // the frame an ERROR CQE and its RQ ERR (one cycle for that first, which
  // also rolls ci back over younger speculative frames of the RQ); a
  // speculative frame whose RQ went to ERR after its dispatch (terr_q) is
  // the model's NO_BUF, in whatever state the RQ is now; then the
  // CQE and ci (both at once) and the ev record; the frame buffer is freed.
  logic [3:0]  rc_kind;
  logic [15:0] rc_rqn, rc_cqn, rc_dlen, rc_tci, rc_csum;
  logic [31:0] rc_hash;
  logic [7:0]  rc_htype;
  logic        rc_strip, rc_l3ok, rc_l4ok, rc_l4bad, rc_csum_ok, rc_bad_csum;
  assign rt_i = dq_rd_q[DW-1:0];
  assign {rc_kind, rc_rqn, rc_cqn, rc_widx, rc_dlen, rc_hash, rc_htype, rc_strip, rc_tci, rc_l3ok, rc_l4ok,
          rc_l4bad, rc_csum, rc_csum_ok, rc_bad_csum} = rec_mem[rt_i];
  assign rc_qn = rc_rqn[QW-1:0];

  logic        r_have, r_resolved, r_failed, r_conv, r_ready, need_cqe;
  logic        h_errd_q, cqe_sent_q, ci_sent_q;
  logic [3:0]  r_kind;
  assign r_have     = dq_rd_q != dq_dp_q;
  assign r_resolved = r_have && wdone[rt_i];
  assign r_failed   = rc_kind == EV_OK && !cancel_q[rt_i] && err_q[rt_i];
  assign r_conv     = cancel_q[rt_i] || (spec_q[rt_i] && terr_q[rt_i]);
  assign r_errph    = r_resolved && r_failed && !h_errd_q;
  assign r_ready    = r_resolved && !r_errph;
  assign r_kind     = r_failed ? EV_WR_ERR : (r_conv ? EV_NO_BUF : rc_kind);
  assign need_cqe   = r_kind == EV_OK || r_kind == EV_PROT_ERR || r_kind == EV_WR_ERR;
  assign cqe_valid_o  = r_ready && need_cqe && !cqe_sent_q;
  assign rqci_valid_o = r_ready && need_cqe && !ci_sent_q;
  assign r_go = r_ready && (!need_cqe || ((cqe_sent_q || cqe_ready_i) && (ci_sent_q || rqci_ready_i)));

  // kite_pkg::cqe_t as bytes (yosys 0.23 reads no package structs):
  // 0 byte_cnt, 4 imm_hash, 8 qpn, 12 src_qp, 16 wqe_index, 18 opcode,
  // 19 status, 20 flags (3 VLAN, 4 L3_OK, 5 L4_OK, 6 L4_BAD), 21 hash_type,
  // 22 vlan_tci, 24 csum_syndrome, 31 owner (the CQ writer's).
  logic [255:0] cqe;
  always_comb begin
    cqe = '0;
    cqe[95:64]   = 32'(rc_qn);
    cqe[143:128] = rc_widx;
    if (r_kind == EV_OK) begin
      cqe[31:0]    = 32'(rc_dlen);
      cqe[63:32]   = rc_hash;
      cqe[151:144] = 8'(kite_pkg::CQE_OPCODE_ETH_RX);
      cqe[159:152] = 8'(kite_pkg::CQE_STATUS_SUCCESS);
      cqe[163]     = rc_strip;
      cqe[164]     = rc_l3ok;
      cqe[165]     = rc_l4ok;
      cqe[166]     = rc_l4bad;
      cqe[175:168] = rc_htype;
      cqe[191:176] = rc_strip ? rc_tci : 16'd0;
      cqe[223:192] = 32'(rc_csum);
    end else begin
      cqe[151:144] = 8'(kite_pkg::CQE_OPCODE_ERROR);
      cqe[159:152] = 8'(kite_pkg::CQE_STATUS_LOC_PROT_ERR);
    end
  end
  assign cqe_data_o = cqe;
  assign cqe_cqn_o  = rc_cqn;

  logic unused;
  // RX_FCS / RX_ALL: not in this block (rtl.rst); the retire side's head
  // bytes and start are the generator's.
  assign unused = ^{c_flags[7:2], a_flags[7:2], a_cqn, r_head, r_nz, r_start, d_beats, d_head[111:0], d_start};

  assign rqci_qn_o = rc_qn;
  assign rqci_ci_o = rc_widx + 1'b1;

  // RQ to ERR: a WQE read error at dispatch, a write error at retire (the
  // retire side first; dispatch waits a cycle).
  assign err_set = (d_go && d_kind == EV_RD_ERR) || r_errph;
  assign err_qn  = r_errph ? rc_qn : qn;
  assign rqerr_valid_o = err_set;
  assign rqerr_qn_o    = err_qn;
  assign rqerr_write_o = r_errph;

  assign ev_valid_o    = r_go;
  assign ev_kind_o     = r_kind;
  assign ev_qn_o       = rc_rqn;
  assign ev_len_o      = r_len;
  assign ev_csum_ok_o  = rc_csum_ok;
  assign ev_bad_csum_o = rc_bad_csum;

  // ------------------------------------------------------------------ drain
  // After a context write (a destroy, a restart, ERR) the host may free the
  // ring and the buffers once the command completes, so the firmware waits
  // (cfg_drain_o, the card's WQ port busy) until nothing of the previous
  // context can still reach host memory: every frame of the RQ dispatched
  // up to the write has retired (its data writes handed to the PCIe writer,
  // ahead of the firmware's completion write), and every WQE read of the
  // old ring has been answered (a line keeps its RQ and count of reads out
  // after it is dropped, and is reused only once they are answered). Frames
  // and reads of the new context do not count, so traffic to a live RQ
  // cannot hold it. One write at a time: a second one restarts the drain
  // for its own RQ (the card's port takes none while it is set).
  logic             dr_snap_q, dr_v_q;
  logic [QW-1:0]    dr_qn_q;
  logic [NDESC-1:0] dr_f_q, dr_f_snap, ret1h;
  logic [NLINE-1:0] dr_l_q, dr_l_snap, lidle;
  always_comb begin
    for (int i = 0; i < NDESC; i++) begin
      ret1h[i]     = r_go && rt_i == DW'(i);
      dr_f_snap[i] = infl_q[i] && pq_q[i] == dr_qn_q;
    end
    for (int l = 0; l < NLINE; l++) begin
      lidle[l]     = lout_q[l] == '0;
      dr_l_snap[l] = !lidle[l] && lq_q[l] == dr_qn_q;
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dr_snap_q <= 1'b0;
      dr_v_q    <= 1'b0;
      dr_qn_q   <= '0;
      dr_f_q    <= '0;
      dr_l_q    <= '0;
    end else begin
      // The cycle after the write: a frame dispatched in its cycle (with the
      // old context) is in infl_q now, and no line holds the new one yet.
      dr_snap_q <= cfg_valid_i;
      if (cfg_valid_i) dr_qn_q <= cfg_qn_i;
      if (dr_snap_q) begin
        dr_f_q <= dr_f_snap & ~ret1h;
        dr_l_q <= dr_l_snap;
      end else begin
        dr_f_q <= dr_f_q & ~ret1h;
        dr_l_q <= dr_l_q & ~lidle;
      end
      dr_v_q <= cfg_valid_i || dr_snap_q ||
                (dr_v_q && (|(dr_f_q & ~ret1h) || |(dr_l_q & ~lidle)));
    end
  end
  assign cfg_drain_o = dr_v_q;

  // ------------------------------------------------------------ sequential
  // Lines: kept while a delivering frame taken from them is in flight (its
  // entries are still to be read, and the next frame of the RQ chains to it).
  always_comb begin
    for (int l = 0; l < NLINE; l++) begin
      lbusy[l] = 1'b0;
      for (int i = 0; i < NDESC; i++) if (pend_q[i] && tl_q[i] == LW'(l)) lbusy[l] = 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lv_q      <= '0;
      lr_v_q    <= '0;
      lerr_v_q  <= '0;
      vp_q      <= '1;                     // line 0 first
      pf_v_q    <= 1'b0;
      lnb_q     <= '1;
      lmv_q     <= '1;
      lmv2_q    <= '1;
      lpfe_q    <= '0;
      pf_l_q    <= '0;
      pf_last_q <= '1;                     // line 0 first
      pf_slot_q <= '0;
      pf_n_q    <= '0;
      pf_addr_q <= '0;
      pf_len_q  <= '0;
      pf_fn_q   <= '0;
      rd_res_q  <= '0;
      rdq_wr_q  <= '0;
      rdq_rd_q  <= '0;
      rb_beat_q <= '0;
      rb_nsge_q <= '0;
      rb_stop_q <= 1'b0;
      rb_cap_q  <= '0;
      rb_clr_q  <= 1'b1;
      rb_bad_q  <= 1'b0;
      rb_err_q  <= 1'b0;
      ab_v_q    <= 1'b0;
      ab_end_q  <= 1'b0;
      ab_err_q  <= 1'b0;
      ab_l_q    <= '0;
      ab_n_q    <= '0;
      ab_cend_q <= '0;
      ab_rst_q  <= '0;
      ab_gate_q <= '0;
      ab_zero_q <= '0;
      ab_bad_q  <= '0;
      for (int j = 0; j < 4; j++) begin
        ab_slot_q[j]  <= '0;
        ab_len_q[j]   <= '0;
      end
      for (int l = 0; l < NLINE; l++) begin
        lq_q[l]    <= '0;
        lr_q[l]    <= '0;
        lci_q[l]   <= '0;
        ldc_q[l]   <= '0;
        lflg_q[l]  <= '0;
        lfe_q[l]   <= '0;
        lans_q[l]  <= '0;
        lrdy_q[l]  <= '0;
        lerr_q[l]  <= '0;
        lpi_q[l]   <= '0;
        lbase_q[l] <= '0;
        llsz_q[l]  <= '0;
        llstr_q[l] <= '0;
        lfn_q[l]   <= '0;
        lout_q[l]  <= '0;
        lm1_q[l]   <= '0;
        ln_q[l]    <= '0;
        la_q[l]    <= '0;
        lwr_q[l]   <= '0;
        lwmax_q[l] <= '0;
        lrdw_q[l]  <= '0;
      end
    end else begin
      // Prefetch requests.
      if (rd_go) rdq_wr_q <= rdq_wr_q + 1'b1;
      if (pf_load) begin
        pf_v_q    <= 1'b1;
        pf_l_q    <= pf_pick;
        pf_last_q <= pf_pick;
        pf_slot_q <= lfe_q[pf_pick][KW-1:0];
        pf_n_q    <= pf_n;
        pf_addr_q <= pf_a;
        pf_len_q  <= 16'(pf_n) << llstr_q[pf_pick];
        pf_fn_q   <= lfn_q[pf_pick];
        // lfe_q and lv_q are written line by line, each comparing its
        // number: through a variable index yosys 0.23 puts a range check
        // (a carry chain) at the end of the path from the pick.
        for (int l = 0; l < NLINE; l++) if (pf_pick == LW'(l)) lfe_q[l] <= lfe_nx[l];
      end else if (rd_go || pf_cancel) begin
        pf_v_q <= 1'b0;
      end
      for (int l = 0; l < NLINE; l++) begin
        la_q[l]    <= l_a[l];
        lwr_q[l]   <= l_wr[l];
        lm1_q[l]   <= l_m1[l];
        lwmax_q[l] <= lwmax[l];
        lrdw_q[l]  <= lrdw[l];
        ln_q[l]    <= l_n[l];
        lpfe_q[l]  <= l_pfe[l];
        lmv_q[l]   <= (pf_load && pf_pick == LW'(l)) || (alloc && al_l == LW'(l));
        lmv2_q[l]  <= lmv_q[l];
        lnb_q[l]   <= (pf_load && pf_pick == LW'(l)) || (alloc && al_l == LW'(l)) || lmv_q[l] ||
                      lmv2_q[l];
      end
      rd_res_q <= rd_res_q + (RW + 1)'(pf_load) - (RW + 1)'(rsp_end) - (RW + 1)'(pf_cancel);
      for (int l = 0; l < NLINE; l++)
        lout_q[l] <= lout_q[l] + (KW + 1)'(pf_load && pf_pick == LW'(l)) -
                     (KW + 1)'(ab_v_q && ab_end_q && ab_l_q == LW'(l)) -
                     (KW + 1)'(pf_cancel && pf_l_q == LW'(l));

      // Answers: stage A.
      if (rsp_go) begin
        if (rb_beat_q != 4'hf) rb_beat_q <= rb_beat_q + 1'b1;
        rb_err_q <= rb_err_q || rd_rsp_err_i;
      end
      if (rsp_end) begin
        rdq_rd_q  <= rdq_rd1;
        rb_beat_q <= '0;
        rb_err_q  <= 1'b0;
      end
      ab_v_q   <= rsp_go;
      ab_end_q <= rsp_end;
      if (rsp_go) begin
        ab_err_q  <= rb_err_q || rd_rsp_err_i;
        ab_l_q    <= rs_l;
        ab_n_q    <= rs_n;
        ab_cend_q <= ck_end;
        ab_rst_q  <= ck_rst;
        ab_gate_q <= ck_gate;
        ab_zero_q <= ck_zero;
        ab_bad_q  <= ck_bad;
        for (int j = 0; j < 4; j++) begin
          ab_slot_q[j]  <= ck_slot[j];
          ab_len_q[j]   <= rd_rsp_data_i[128*j + 64 +: 32];
        end
      end

      // Stage B.
      if (ab_v_q) begin
        rb_nsge_q <= ab_end_q ? '0 : b_sum[3][SUM_W-1 -: SW + 1];
        rb_cap_q  <= b_sum[3][38:1];         // cleared by rb_clr_q, off this path
        rb_clr_q  <= ab_end_q;
        rb_bad_q  <= !ab_end_q && b_sum[3][0];
        rb_stop_q <= !ab_end_q && b_stop;
      end
      // The request's WQEs are cached, failed or not, once its answer is in.
      for (int l = 0; l < NLINE; l++) lrdy_q[l] <= lans_q[l];
      if (ab_v_q && ab_end_q && lv_q[ab_l_q]) begin
        lans_q[ab_l_q] <= lans_q[ab_l_q] + 16'(ab_n_q);
        if (ab_err_q && !lerr_v_q[ab_l_q]) begin
          for (int l = 0; l < NLINE; l++) if (ab_l_q == LW'(l)) lerr_v_q[l] <= 1'b1;
          lerr_q[ab_l_q] <= lans_q[ab_l_q];
        end
      end

      // Consumption: a PROT_ERR WQE at dispatch, a delivering one once its
      // last entry is read (its slot must not be refilled before). lci
      // moves by 0, 1 or 2: the sums come from the register alone and the
      // dispatch's decode, the deepest input here, only selects one.
      for (int l = 0; l < NLINE; l++) begin
        case ({d_go && d_kind == EV_PROT_ERR && h == LW'(l), wr_go && sg_last && sg_l_q == LW'(l)})
          2'b11:        lci_q[l] <= lci_q[l] + 16'd2;
          2'b10, 2'b01: lci_q[l] <= lci_q[l] + 16'd1;
          default:      ;
        endcase
        if (d_consume && h == LW'(l)) ldc_q[l] <= ldc_q[l] + 1'b1;
      end
      if (d_ok) begin
        lr_q[h]   <= dp_i;
        for (int l = 0; l < NLINE; l++) if (h == LW'(l)) lr_v_q[l] <= 1'b1;
      end

      // Doorbells move pi.
      if (acc_valid_i)
        for (int l = 0; l < NLINE; l++) if (lv_q[l] && lq_q[l] == acc_qn_i) lpi_q[l] <= acc_pi_i;

      if (alloc) begin
        // The flags entry by entry (lv_q, lr_v_q, lerr_v_q): a write through
        // a variable index puts a 32-bit range check on the path (rtl.rst).
        for (int l = 0; l < NLINE; l++) begin
          if (al_l == LW'(l)) begin
            lv_q[l]     <= 1'b1;
            lr_v_q[l]   <= 1'b0;
            lerr_v_q[l] <= 1'b0;
          end
        end
        lq_q[al_l]    <= al_qn;
        lci_q[al_l]   <= al_ci;
        ldc_q[al_l]   <= al_ci;
        lflg_q[al_l]  <= al_flg;
        lfe_q[al_l]   <= al_ci;
        lans_q[al_l]  <= al_ci;
        lrdy_q[al_l]  <= al_ci;
        lpi_q[al_l]   <= al_pi;
        lbase_q[al_l] <= al_base;
        llsz_q[al_l]  <= al_lsz;
        llstr_q[al_l] <= al_lstr;
        lfn_q[al_l]   <= al_fn;
        if (d_alloc && !free_ok) vp_q <= vict;
      end

      // Drops come last: a context write or ERR wins.
      for (int l = 0; l < NLINE; l++) begin
        if (d_go && d_kind == EV_RD_ERR && h == LW'(l)) lv_q[l] <= 1'b0;
        if (cfg_valid_i && lq_q[l] == cfg_qn_i) lv_q[l] <= 1'b0;
        if (r_errph && lq_q[l] == rc_qn) lv_q[l] <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dq_dp_q    <= '0;
      dq_rd_q    <= '0;
      tk_last_q  <= '1;
      rel_ptr_q  <= '0;
      infl_q     <= '0;
      pend_q     <= '0;
      spec_q     <= '0;
      terr_q     <= '0;
      todo_q     <= '0;
      fin_q      <= '0;
      cancel_q   <= '0;
      pv_q       <= '0;
      err_q      <= '0;
      tstrip_q   <= '0;
      sg_run_q   <= 1'b0;
      sg_i_q     <= '0;
      sg_l_q     <= '0;
      sg_ch_q    <= '0;
      sg_start_q <= '0;
      si_q       <= '0;
      nsge_q     <= '0;
      nwr_q      <= '0;
      off_q      <= '0;
      dlen_q     <= '0;
      strip_q    <= 1'b0;
      wo_q       <= '0;
      wq_wr_q    <= '0;
      wq_rd_q    <= '0;
      jb_wr_q    <= '0;
      jb_rd_q    <= '0;
      g_busy_q   <= 1'b0;
      g_left_q   <= '0;
      g_p0_q     <= '0;
      g_strip_q  <= 1'b0;
      g_start_q  <= '0;
      g_di_q     <= '0;
      rd1_q      <= 1'b0;
      rd1_p0_q   <= '0;
      rd1_shift_q  <= '0;
      rd1_lo_odd_q <= 1'b0;
      rd1_strip_q  <= 1'b0;
      rd1_di_q   <= '0;
      of_cnt_q   <= '0;
      of_wr_q    <= '0;
      of_rd_q    <= '0;
      h_errd_q   <= 1'b0;
      cqe_sent_q <= 1'b0;
      ci_sent_q  <= 1'b0;
      for (int i = 0; i < NDESC; i++) begin
        pq_q[i]    <= '0;
        prev_q[i]  <= '0;
        tl_q[i]    <= '0;
        tch_q[i]   <= '0;
        tn_q[i]    <= '0;
        td_q[i]    <= '0;
        rec_nwr[i] <= '0;
        rec_got[i] <= '0;
      end
    end else begin
      // A retiring frame releases the frames chained behind it (before the
      // dispatch below, which may reuse a chain entry).
      if (r_go)
        for (int i = 0; i < NDESC; i++) if (prev_q[i] == rt_i) pv_q[i] <= 1'b0;
      // Whether a frame's RQ went to ERR after its dispatch, kept beside
      // the frame: by an older frame's failed write (the ERR phase), or by
      // a context write. (Reading the RQ's state at the retiring frame's RQ
      // put two RAM reads behind the record's on the retire's path.) A
      // later context write out of ERR does not clear it: the frame came
      // to an RQ in ERR, as the model counts it.
      for (int i = 0; i < NDESC; i++)
        if ((r_errph && pq_q[i] == rc_qn) || (cfg_err && pq_q[i] == cfg_qn_i)) terr_q[i] <= 1'b1;

      // Dispatch: a new record.
      if (d_go) begin
        dq_dp_q          <= dq_dp_q + 1'b1;
        // The flags entry by entry: a write through a variable index puts a
        // 32-bit range check on the path (rtl.rst).
        for (int i = 0; i < NDESC; i++) begin
          if (dp_i == DW'(i)) begin
            infl_q[i]    <= 1'b1;
            pend_q[i]    <= d_ok;
            spec_q[i]    <= haz && d_kind < EV_FILTERED;   // steering drops come first
            terr_q[i]    <= d_terr;
            todo_q[i]    <= d_ok && dlen_d != '0;
            fin_q[i]     <= !(d_ok && dlen_d != '0);
            cancel_q[i]  <= 1'b0;
            pv_q[i]      <= d_ok && prev_v_d && wr_wait_i;
            err_q[i]     <= 1'b0;
            tstrip_q[i]  <= strip_d;
          end
        end
        pq_q[dp_i]       <= qn;
        prev_q[dp_i]     <= lr_q[h];
        tl_q[dp_i]       <= h;
        tch_q[dp_i]      <= lch[h];
        tn_q[dp_i]       <= s_nsge;
        td_q[dp_i]       <= dlen_d;
        rec_nwr[dp_i]    <= '0;
        rec_got[dp_i]    <= '0;
      end

      // Scatter.
      for (int i = 0; i < NDESC; i++)
        if (cancel_now[i]) begin
          todo_q[i]   <= 1'b0;
          fin_q[i]    <= 1'b1;
          cancel_q[i] <= 1'b1;
        end
      if (wr_go) begin
        off_q   <= off_q + n_cur;
        si_q    <= si_q + 1'b1;
        sg_ch_q <= sg_ch_q + 1'b1;
        nwr_q   <= nwr_q + 1'b1;
        if (sg_last) begin
          rec_nwr[sg_i_q] <= nwr_q + 1'b1;
          // Entry by entry: a write through a variable index (rtl.rst).
          for (int i = 0; i < NDESC; i++) if (sg_i_q == DW'(i)) fin_q[i] <= 1'b1;
          sg_run_q        <= 1'b0;
        end
      end
      if (sg_take) begin
        sg_run_q        <= 1'b1;
        // Each bit compared with the pick: yosys 0.23 checks a variable
        // index (todo_q[tk_pick]) against the range with a 32-bit carry chain.
        for (int i = 0; i < NDESC; i++) if (tk_pick == DW'(i)) todo_q[i] <= 1'b0;
        sg_i_q     <= tk_pick;
        sg_l_q     <= tl_q[tk_pick];
        sg_ch_q    <= tch_q[tk_pick];
        sg_start_q <= tk_start;
        si_q       <= '0;
        nsge_q     <= tn_q[tk_pick];
        nwr_q      <= '0;
        off_q      <= '0;
        dlen_q     <= td_q[tk_pick];
        strip_q    <= tstrip_q[tk_pick];
      end
      if (wr_go) wq_wr_q <= wq_wr_q + 1'b1;
      if (done_ours) begin
        wq_rd_q       <= wq_rd_q + 1'b1;
        rec_got[dn_i] <= rec_got[dn_i] + 1'b1;
        if (wr_done_err_i)
          for (int i = 0; i < NDESC; i++) if (dn_i == DW'(i)) err_q[i] <= 1'b1;
      end
      wo_q <= wo_q + (OW + 1)'(wr_go) - (OW + 1)'(done_ours);
      if (wr_go) jb_wr_q <= jb_wr_q + 1'b1;

      // Word generator and output FIFO.
      rd1_q <= g_issue;
      if (g_issue) begin
        rd1_p0_q     <= g_p0_q;
        rd1_shift_q  <= q_pos[5:0];
        rd1_lo_odd_q <= lo_beat[0];
        rd1_strip_q  <= g_strip_q;
        rd1_di_q     <= g_di_q;
        g_p0_q       <= g_p0_q + 18'sd64;
        g_left_q     <= g_left_q - 1'b1;
        if (g_left_q == 11'd1) g_busy_q <= 1'b0;
      end
      if (jb_pop) begin
        jb_rd_q   <= jb_rd_q + 1'b1;
        g_busy_q  <= 1'b1;
        g_left_q  <= jb_nw;
        g_p0_q    <= jb_p0;
        g_strip_q <= jb_strip;
        g_start_q <= jb_start;
        g_di_q    <= jb_di;
      end
      if (rd1_q) of_wr_q <= of_wr_q + 1'b1;
      if (out_pop) of_rd_q <= of_rd_q + 1'b1;
      of_cnt_q <= of_cnt_q + 3'(rd1_q) - 3'(out_pop);

      // Retire.
      if (r_errph) h_errd_q <= 1'b1;
      if (cqe_valid_o && cqe_ready_i) cqe_sent_q <= 1'b1;
      if (rqci_valid_o && rqci_ready_i) ci_sent_q <= 1'b1;
      for (int i = 0; i < NDESC; i++) begin
        if (ret1h[i]) begin
          infl_q[i] <= 1'b0;
          pend_q[i] <= 1'b0;
        end
      end
      if (r_go) begin
        dq_rd_q    <= dq_rd_q + 1'b1;
        tk_last_q  <= rt_i;
        rel_ptr_q  <= rel_ptr_q + r_beats;
        h_errd_q   <= 1'b0;
        cqe_sent_q <= 1'b0;
        ci_sent_q  <= 1'b0;
      end
    end
  end

endmodule : kite_rx_dma
