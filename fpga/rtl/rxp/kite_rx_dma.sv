// RX DMA: delivers parsed and steered frames into the host's receive buffers
// (the second half of the model's RxPipeline::receive, fpga/model/rxp/rxp.cpp,
// from the RQ checks on).
//
// Frames (no FCS, packed from lane 0) are stored in a frame buffer as they
// arrive, beside kite_rxp; the per-frame record (kite_rxp's parse + checksum
// verdict joined with kite_rss's hash and queue) arrives later on the meta
// port, in frame order. Per frame:
//   RQ not valid or not RDY        drop, EV_NO_BUF
//   malformed                      drop, EV_MALFORMED
//   ring empty (pi == ci)          drop, EV_NO_BUF_Q (rx_no_buffer, RQ drops)
//   WQE read (stride bytes at base + (ci mod size) << log_stride) failed:
//                                  drop, RQ to ERR, EV_RD_ERR
//   frame longer than the WQE's scatter list (entries up to the first of
//   length 0): drop, WQE kept, EV_OVERSIZE (rx_oversize, RQ drops)
//   an lkey other than LKEY_PHYS:  WQE consumed, ERROR CQE LOC_PROT_ERR,
//                                  EV_PROT_ERR
//   otherwise the frame is written over the scatter list (VLAN_STRIP removes
//   an outer 802.1Q tag), all writes done, then the ETH_RX CQE (length,
//   L3/L4 flags, RSS hash and type, stripped TCI, CHECKSUM_COMPLETE sum of
//   the delivered bytes after the 14-byte header); a failed write gives an
//   ERROR CQE LOC_PROT_ERR and moves the RQ to ERR (EV_WR_ERR).
// Every frame ends in exactly one ev_* record (the counters), and ci
// advances (rqci_* to the queue manager) whenever a WQE was consumed.
//
// RQ contexts are the queue manager's (same write port, plus the RQ flags);
// pi comes from the queue manager's accepted RQ doorbells. Not here (see
// rtl.rst): RX_FCS (the MAC strips the FCS before this block), RX_ALL,
// PAUSE back-pressure on an empty ring, receive filters and ntuple rules.
//
// DMA writes follow kite_pcie_wr: data words are address-aligned (lane i =
// address mod 64). A word is read from the frame buffer as a two-beat window
// (even/odd beat banks, so both beats come in one cycle) shifted to the
// word's frame offset; with VLAN_STRIP the first 12 delivered bytes come from
// the frame head kept with the frame. One word per cycle.
module kite_rx_dma #(
  parameter int unsigned NQ      = 512,
  parameter int unsigned FN_W    = 5,
  parameter int unsigned DEPTH   = 512,   // frame buffer, 64-byte beats (power of 2)
  parameter int unsigned NDESC   = 16,    // frames held (power of 2)
  parameter int unsigned MAX_SGE = 32,    // 512-byte WQE stride
  parameter int unsigned ID_W    = 8,
  parameter logic [ID_W-1:0] RD_ID = '0,
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

  // DMA read (WQE); the top routes this client's responses here.
  output logic                  rd_req_valid_o,
  input  logic                  rd_req_ready_i,
  output logic [ID_W-1:0]       rd_req_id_o,
  output logic [FN_W-1:0]       rd_req_fn_o,
  output logic [63:0]           rd_req_addr_o,
  output logic [15:0]           rd_req_len_o,
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
  output logic [2:0]            ev_kind_o,
  output logic [15:0]           ev_qn_o,
  output logic [15:0]           ev_len_o,         // frame length without FCS
  output logic                  ev_csum_ok_o,     // L3_OK or L4_OK in the CQE
  output logic                  ev_bad_csum_o
);
  localparam int unsigned QW = $clog2(NQ);
  localparam int unsigned AW = $clog2(DEPTH);
  localparam int unsigned DW = $clog2(NDESC);
  localparam int unsigned SW = $clog2(MAX_SGE);

  localparam logic [2:0] EV_OK = 3'd0, EV_NO_BUF = 3'd1, EV_NO_BUF_Q = 3'd2, EV_MALFORMED = 3'd3,
                         EV_OVERSIZE = 3'd4, EV_RD_ERR = 3'd5, EV_PROT_ERR = 3'd6, EV_WR_ERR = 3'd7;
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
  logic         in_nz_q;                      // a non-zero byte at 18 or later

  // Descriptor FIFO: start, beats, length, head, nz.
  localparam int unsigned DESC_W = AW + AW + 1 + 16 + 144 + 1;
  logic [DESC_W-1:0] desc_mem [NDESC];
  logic [DW:0]       dq_wr_q, dq_rd_q;
  logic              dq_full, dq_empty;

  logic [6:0]   beat_bytes;
  logic [143:0] head_now;
  logic         nz_now;
  logic         s_go;

  assign dq_full  = (dq_wr_q - dq_rd_q) == (DW + 1)'(NDESC);
  assign dq_empty = dq_wr_q == dq_rd_q;
  assign s_ready_o = (in_ptr_q - rel_ptr_q) != (AW + 1)'(DEPTH) && !dq_full;
  assign s_go = s_valid_i && s_ready_o;

  always_comb begin
    beat_bytes = '0;
    for (int i = 0; i < 64; i++) beat_bytes = beat_bytes + 7'(s_keep_i[i]);
    head_now = in_first_q ? s_data_i[143:0] : in_head_q;
    nz_now = in_first_q ? 1'b0 : in_nz_q;
    for (int i = 0; i < 64; i++)
      if (s_keep_i[i] && (!in_first_q || i >= 18) && s_data_i[8*i +: 8] != 8'd0) nz_now = 1'b1;
  end

  always_ff @(posedge clk_i) begin
    if (s_go && !in_ptr_q[0]) bank_e[in_ptr_q[AW-1:1]] <= s_data_i;
    if (s_go && in_ptr_q[0])  bank_o[in_ptr_q[AW-1:1]] <= s_data_i;
    if (s_go && s_last_i)
      desc_mem[dq_wr_q[DW-1:0]] <= {nz_now, head_now, in_len_q + 16'(beat_bytes),
                                    in_ptr_q + 1'b1 - in_start_q, in_start_q[AW-1:0]};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_ptr_q   <= '0;
      in_start_q <= '0;
      in_len_q   <= '0;
      in_first_q <= 1'b1;
      in_head_q  <= '0;
      in_nz_q    <= 1'b0;
      dq_wr_q    <= '0;
    end else if (s_go) begin
      in_ptr_q   <= in_ptr_q + 1'b1;
      in_head_q  <= head_now;
      in_nz_q    <= nz_now;
      in_first_q <= s_last_i;
      in_len_q   <= s_last_i ? 16'd0 : in_len_q + 16'(beat_bytes);
      if (s_last_i) begin
        in_start_q <= in_ptr_q + 1'b1;
        dq_wr_q    <= dq_wr_q + 1'b1;
      end
    end
  end

  logic [AW-1:0] f_start;
  logic [AW:0]  f_beats;
  logic [15:0]  f_len;
  logic [143:0] f_head;
  logic         f_nz;
  assign {f_nz, f_head, f_len, f_beats, f_start} = desc_mem[dq_rd_q[DW-1:0]];

  // ------------------------------------------------------------ RQ contexts
  localparam int unsigned CTX_W = FN_W + 4 + 4 + 16 + 64 + 8;
  logic [CTX_W-1:0] ctx_mem [NQ];
  logic [CTX_W-1:0] ctx_q;
  logic [NQ-1:0]    en_q;
  // State, pi and ci: no reset (en_q says which entries hold a context).
  logic [1:0]       st_q [NQ];
  logic [15:0]      pi_q [NQ];
  logic [15:0]      ci_q [NQ];

  logic [FN_W-1:0] c_fn;
  logic [3:0]      c_lsz, c_lstr;
  logic [15:0]     c_cqn;
  logic [63:0]     c_base;
  logic [7:0]      c_flags;
  assign {c_fn, c_lsz, c_lstr, c_cqn, c_base, c_flags} = ctx_q;

  // FSM
  typedef enum logic [3:0] {
    S_IDLE, S_LOOK, S_RDREQ, S_RDRSP, S_CHECK, S_WRREQ, S_WRDATA, S_WAIT, S_CQE, S_CI, S_REL
  } state_e;
  state_e state_q;

  logic [QW-1:0] qn_q;
  logic          qn_ok_q;
  logic [2:0]    kind_q;
  logic          ci_step, err_set;
  logic          err_wr_q;

  always_ff @(posedge clk_i) begin
    if (cfg_valid_i) ctx_mem[cfg_qn_i] <= {cfg_fn_i, cfg_log_size_i, cfg_log_stride_i, cfg_cqn_i,
                                           cfg_base_i, cfg_flags_i};
    ctx_q <= ctx_mem[meta_rqn_i[QW-1:0]];
  end

  // As the queue manager: pi = ci = 0 on RST, or RDY from RST (an entry
  // without a context counts as RST).
  logic cfg_restart;
  assign cfg_restart = cfg_state_i == ST_RST ||
                       (cfg_state_i == ST_RDY && (!en_q[cfg_qn_i] || st_q[cfg_qn_i] == ST_RST));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) en_q <= '0;
    else if (cfg_valid_i) en_q[cfg_qn_i] <= cfg_en_i;
  end

  // Two write ports each; a context write wins over the datapath's update
  // of the same entry (it comes last).
  always_ff @(posedge clk_i) begin
    if (acc_valid_i) pi_q[acc_qn_i] <= acc_pi_i;
    if (ci_step) ci_q[qn_q] <= ci_cur + 1'b1;
    if (err_set) st_q[qn_q] <= ST_ERR;
    if (cfg_valid_i && cfg_restart) begin
      pi_q[cfg_qn_i] <= '0;
      ci_q[cfg_qn_i] <= '0;
    end
    if (cfg_valid_i) st_q[cfg_qn_i] <= cfg_state_i;
  end

  // --------------------------------------------------------- frame, WQE
  logic [15:0] dlen_q;
  logic        strip_q;
  logic [15:0] ci_cur;
  assign ci_cur = ci_q[qn_q];

  logic [63:0]   wqe_addr_q;
  logic [3:0]    rd_beat_q;
  logic [31:0]   sge_len  [MAX_SGE];
  logic [63:0]   sge_addr [MAX_SGE];
  logic [SW:0]   nsge_q;
  logic          sge_stop_q;
  logic [37:0]   cap_q;
  logic          bad_key_q, rd_err_q;

  // WQE beat: slot j holds WQE byte 64*beat + 16*j - (addr mod 64).
  logic [SW:0]   n_nsge;
  logic          n_stop, n_bad;
  logic [37:0]   n_cap;
  always_comb begin
    n_nsge = nsge_q;
    n_stop = sge_stop_q;
    n_bad  = bad_key_q;
    n_cap  = cap_q;
    for (int j = 0; j < 4; j++) begin
      if (rd_rsp_keep_i[16*j] && !n_stop && n_nsge < (SW + 1)'(MAX_SGE)) begin
        if (rd_rsp_data_i[128*j + 64 +: 32] == 32'd0) n_stop = 1'b1;
        else begin
          n_cap  = n_cap + 38'(rd_rsp_data_i[128*j + 64 +: 32]);
          n_bad  = n_bad || rd_rsp_data_i[128*j + 96 +: 32] != 32'(kite_pkg::LKEY_PHYS);
          n_nsge = n_nsge + 1'b1;
        end
      end
    end
  end

  // Slot j of the beat is entry 4 * beat + j - (addr mod 64) / 16.
  logic [SW+3:0] sge_e [4];
  always_comb
    for (int j = 0; j < 4; j++) sge_e[j] = (SW + 4)'({rd_beat_q, 2'(j)}) - (SW + 4)'(wqe_addr_q[5:4]);

  always_ff @(posedge clk_i) begin
    if (state_q == S_RDRSP && rd_rsp_valid_i) begin
      for (int j = 0; j < 4; j++) begin
        if (rd_rsp_keep_i[16*j] && sge_e[j] < (SW + 4)'(MAX_SGE)) begin
          sge_len[sge_e[j][SW-1:0]]  <= rd_rsp_data_i[128*j + 64 +: 32];
          sge_addr[sge_e[j][SW-1:0]] <= rd_rsp_data_i[128*j +: 64];
        end
      end
    end
  end

  // ------------------------------------------------------- write scatter
  logic [SW:0]   si_q;                 // current scatter entry
  logic [15:0]   off_q;                // delivered bytes so far
  logic [15:0]   n_cur;
  logic [31:0]   left32;
  logic [63:0]   a_cur;
  assign a_cur  = sge_addr[si_q[SW-1:0]];
  assign left32 = 32'(dlen_q) - 32'(off_q);
  assign n_cur  = sge_len[si_q[SW-1:0]] < left32 ? sge_len[si_q[SW-1:0]][15:0] : dlen_q - off_q;

  // Word generator: words of one request, window position p0 (delivered
  // offset of lane 0) advancing by 64.
  logic          g_busy_q;
  logic [10:0]   g_left_q;             // words still to read
  logic signed [17:0] g_p0_q;
  logic          g_issue;
  logic [2:0]    of_cnt_q;             // output FIFO occupancy
  logic          rd1_q;                // a frame buffer read is in flight
  logic signed [17:0] rd1_p0_q;
  logic [5:0]    rd1_shift_q;
  logic          rd1_lo_odd_q;

  logic signed [17:0] q_pos;           // frame byte of lane 0, plus 64
  logic [AW-1:0] lo_beat;
  logic [AW-2:0] row_e, row_o;
  always_comb begin
    q_pos   = g_p0_q + 18'sd64 + (strip_q ? 18'sd4 : 18'sd0);
    lo_beat = f_start + AW'(q_pos[17:6]) - 1'b1;
    row_o   = lo_beat[AW-1:1];
    row_e   = lo_beat[0] ? lo_beat[AW-1:1] + 1'b1 : lo_beat[AW-1:1];
  end

  logic out_pop;
  assign g_issue = g_busy_q && g_left_q != '0 && (3'(of_cnt_q) + 3'(rd1_q)) < 3'd4;

  logic [511:0] rd_e_q, rd_o_q;
  always_ff @(posedge clk_i) begin
    rd_e_q <= bank_e[row_e];
    rd_o_q <= bank_o[row_o];
  end

  logic [1023:0] win;
  logic [511:0]  word;
  logic signed [17:0] hp;
  always_comb begin
    hp   = '0;
    win  = rd1_lo_odd_q ? {rd_e_q, rd_o_q} : {rd_o_q, rd_e_q};
    word = 512'(win >> {rd1_shift_q, 3'b000});
    if (strip_q) begin
      for (int i = 0; i < 64; i++) begin
        hp = rd1_p0_q + 18'(i);
        if (hp >= 0 && hp < 12) word[8*i +: 8] = f_head[8*hp[3:0] +: 8];
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

  // ------------------------------------------------------------- control
  logic [15:0] wr_out_q;               // write requests not yet done
  logic        wr_go, done_ours;
  assign wr_go     = wr_req_valid_o && wr_req_ready_i;
  assign done_ours = wr_done_i && wr_done_id_i == WR_ID;

  logic l3_ok, bad_csum;
  logic [15:0] csum_adj, csum_fix;
  assign l3_ok    = meta_ipv4_i && meta_ipv4_hdr_ok_i;
  assign bad_csum = (meta_ipv4_i && !meta_ipv4_hdr_ok_i) || meta_l4_bad_i;
  // Stripped: the sum of the delivered bytes after 14 loses frame bytes 14..17.
  assign csum_adj = kite_rtl_pkg::oc_add(kite_rtl_pkg::oc_add(meta_csum_i,
                                         ~{f_head[8*14 +: 8], f_head[8*15 +: 8]}),
                                         ~{f_head[8*16 +: 8], f_head[8*17 +: 8]});
  always_comb begin
    if (!strip_q) csum_fix = meta_csum_i;
    else if (!f_nz) csum_fix = 16'd0;
    else csum_fix = csum_adj == 16'd0 ? 16'hffff : csum_adj;
  end

  // kite_pkg::cqe_t as bytes (yosys 0.23 reads no package structs):
  // 0 byte_cnt, 4 imm_hash, 8 qpn, 12 src_qp, 16 wqe_index, 18 opcode,
  // 19 status, 20 flags (3 VLAN, 4 L3_OK, 5 L4_OK, 6 L4_BAD), 21 hash_type,
  // 22 vlan_tci, 24 csum_syndrome, 31 owner (the CQ writer's).
  logic [255:0] cqe;
  always_comb begin
    cqe = '0;
    cqe[95:64]   = 32'(qn_q);
    cqe[143:128] = ci_cur;
    if (kind_q == EV_OK) begin
      cqe[31:0]    = 32'(dlen_q);
      cqe[63:32]   = meta_hash_i;
      cqe[151:144] = 8'(kite_pkg::CQE_OPCODE_ETH_RX);
      cqe[159:152] = 8'(kite_pkg::CQE_STATUS_SUCCESS);
      cqe[163]     = strip_q;
      cqe[164]     = l3_ok;
      cqe[165]     = meta_l4_ok_i;
      cqe[166]     = meta_l4_bad_i;
      cqe[175:168] = meta_hash_type_i;
      cqe[191:176] = strip_q ? meta_tci_i : 16'd0;
      cqe[223:192] = 32'(csum_fix);
    end else begin
      cqe[151:144] = 8'(kite_pkg::CQE_OPCODE_ERROR);
      cqe[159:152] = 8'(kite_pkg::CQE_STATUS_LOC_PROT_ERR);
    end
  end
  assign cqe_data_o = cqe;
  assign cqe_cqn_o  = c_cqn;

  logic unused_flags;
  assign unused_flags = ^c_flags[7:1];  // RX_FCS / RX_ALL: not in this block (rtl.rst)
  assign cqe_valid_o = state_q == S_CQE;

  assign rqci_valid_o = state_q == S_CI;
  assign rqci_qn_o    = qn_q;
  assign rqci_ci_o    = ci_cur;

  assign rd_req_valid_o = state_q == S_RDREQ;
  assign rd_req_id_o    = RD_ID;
  assign rd_req_fn_o    = c_fn;
  assign rd_req_addr_o  = wqe_addr_q;
  assign rd_req_len_o   = 16'd1 << c_lstr;
  assign rd_rsp_ready_o = state_q == S_RDRSP;

  assign wr_req_valid_o = state_q == S_WRREQ && !g_busy_q && off_q < dlen_q && si_q < nsge_q;
  assign wr_req_id_o    = WR_ID;
  assign wr_req_fn_o    = c_fn;
  assign wr_req_addr_o  = a_cur;
  assign wr_req_len_o   = n_cur;

  assign meta_ready_o = state_q == S_REL;
  assign ci_step      = state_q == S_CQE && cqe_ready_i;
  assign err_set      = (state_q == S_RDRSP && rd_rsp_valid_i && rd_rsp_last_i && (rd_rsp_err_i || rd_err_q)) ||
                        (state_q == S_WAIT && kind_q == EV_WR_ERR && err_wr_q);

  assign ev_valid_o    = state_q == S_REL;
  assign ev_kind_o     = kind_q;
  assign ev_qn_o       = meta_rqn_i;
  assign ev_len_o      = f_len;
  assign ev_csum_ok_o  = l3_ok || meta_l4_ok_i;
  assign ev_bad_csum_o = bad_csum;

  assign rqerr_valid_o = err_set;
  assign rqerr_qn_o    = qn_q;
  assign rqerr_write_o = state_q == S_WAIT;

  logic [QW-1:0] mask;
  assign mask = QW'((17'd1 << c_lsz) - 1'b1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= S_IDLE;
      qn_q       <= '0;
      qn_ok_q    <= 1'b0;
      kind_q     <= EV_OK;
      dlen_q     <= '0;
      strip_q    <= 1'b0;
      wqe_addr_q <= '0;
      rd_beat_q  <= '0;
      nsge_q     <= '0;
      sge_stop_q <= 1'b0;
      cap_q      <= '0;
      bad_key_q  <= 1'b0;
      rd_err_q   <= 1'b0;
      si_q       <= '0;
      off_q      <= '0;
      err_wr_q   <= 1'b0;
      dq_rd_q    <= '0;
      rel_ptr_q  <= '0;
      g_busy_q   <= 1'b0;
      g_left_q   <= '0;
      g_p0_q     <= '0;
      rd1_q      <= 1'b0;
      rd1_p0_q   <= '0;
      rd1_shift_q  <= '0;
      rd1_lo_odd_q <= 1'b0;
      of_cnt_q   <= '0;
      of_wr_q    <= '0;
      of_rd_q    <= '0;
      wr_out_q   <= '0;
    end else begin
      // Word generator and output FIFO.
      rd1_q <= g_issue;
      if (g_issue) begin
        rd1_p0_q     <= g_p0_q;
        rd1_shift_q  <= q_pos[5:0];
        rd1_lo_odd_q <= lo_beat[0];
        g_p0_q       <= g_p0_q + 18'sd64;
        g_left_q     <= g_left_q - 1'b1;
      end
      if (g_busy_q && g_left_q == '0 && !rd1_q) g_busy_q <= 1'b0;
      if (rd1_q) of_wr_q <= of_wr_q + 1'b1;
      if (out_pop) of_rd_q <= of_rd_q + 1'b1;
      of_cnt_q <= of_cnt_q + 3'(rd1_q) - 3'(out_pop);

      wr_out_q <= wr_out_q + 16'(wr_go) - 16'(done_ours);
      if (done_ours && wr_done_err_i) err_wr_q <= 1'b1;

      unique case (state_q)
        S_IDLE: if (meta_valid_i && !dq_empty) begin
          qn_q    <= meta_rqn_i[QW-1:0];
          qn_ok_q <= meta_rqn_i < 16'(NQ);
          state_q <= S_LOOK;
        end
        S_LOOK: begin
          strip_q <= c_flags[0] && meta_num_vlans_i != 2'd0 && f_head[8*12 +: 16] == 16'h0081;
          dlen_q  <= (c_flags[0] && meta_num_vlans_i != 2'd0 && f_head[8*12 +: 16] == 16'h0081) ?
                     f_len - 16'd4 : f_len;
          wqe_addr_q <= c_base + ({48'd0, ci_cur & 16'(mask)} << c_lstr);
          rd_beat_q  <= '0;
          nsge_q     <= '0;
          sge_stop_q <= 1'b0;
          cap_q      <= '0;
          bad_key_q  <= 1'b0;
          rd_err_q   <= 1'b0;
          err_wr_q   <= 1'b0;
          if (!qn_ok_q || !en_q[qn_q] || st_q[qn_q] != ST_RDY) begin
            kind_q <= EV_NO_BUF; state_q <= S_REL;
          end else if (meta_malformed_i) begin
            kind_q <= EV_MALFORMED; state_q <= S_REL;
          end else if (pi_q[qn_q] == ci_cur) begin
            kind_q <= EV_NO_BUF_Q; state_q <= S_REL;
          end else begin
            state_q <= S_RDREQ;
          end
        end
        S_RDREQ: if (rd_req_ready_i) state_q <= S_RDRSP;
        S_RDRSP: if (rd_rsp_valid_i) begin
          rd_beat_q  <= rd_beat_q + 1'b1;
          nsge_q     <= n_nsge;
          sge_stop_q <= n_stop;
          cap_q      <= n_cap;
          bad_key_q  <= n_bad;
          rd_err_q   <= rd_err_q || rd_rsp_err_i;
          if (rd_rsp_last_i) begin
            if (rd_rsp_err_i || rd_err_q) begin
              kind_q <= EV_RD_ERR; state_q <= S_REL;
            end else begin
              state_q <= S_CHECK;
            end
          end
        end
        S_CHECK: begin
          si_q  <= '0;
          off_q <= '0;
          if (38'(dlen_q) > cap_q) begin
            kind_q <= EV_OVERSIZE; state_q <= S_REL;
          end else if (bad_key_q) begin
            kind_q <= EV_PROT_ERR; state_q <= S_CQE;
          end else begin
            kind_q <= EV_OK; state_q <= S_WRREQ;
          end
        end
        S_WRREQ: begin
          if (off_q >= dlen_q || si_q >= nsge_q) begin
            state_q <= S_WAIT;
          end else if (wr_go) begin
            g_busy_q <= 1'b1;
            g_left_q <= 11'((17'(a_cur[5:0]) + 17'(n_cur) + 17'd63) >> 6);
            g_p0_q   <= 18'(off_q) - 18'(a_cur[5:0]);
            off_q    <= off_q + n_cur;
            si_q     <= si_q + 1'b1;
            state_q  <= S_WRDATA;
          end
        end
        S_WRDATA: if (!g_busy_q) state_q <= S_WRREQ;
        S_WAIT: if (of_cnt_q == '0 && !rd1_q && wr_out_q == '0 && !(wr_go)) begin
          if (err_wr_q || (done_ours && wr_done_err_i)) begin
            if (kind_q == EV_WR_ERR) state_q <= S_CQE;
            kind_q <= EV_WR_ERR;
          end else begin
            state_q <= S_CQE;
          end
        end
        S_CQE: if (cqe_ready_i) state_q <= S_CI;
        S_CI: if (rqci_ready_i) state_q <= S_REL;
        S_REL: begin
          dq_rd_q   <= dq_rd_q + 1'b1;
          rel_ptr_q <= rel_ptr_q + f_beats;
          state_q   <= S_IDLE;
        end
        default: state_q <= S_IDLE;
      endcase
    end
  end

endmodule : kite_rx_dma
