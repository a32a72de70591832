// TX descriptor fetch and check: reads the WQE of each SQ the queue manager
// picks over a tagged DMA read interface, checks it as the model's
// TxPipeline::process_wqe (fpga/model/txp/txp.cpp) does before gathering,
// and hands good ETH_TX descriptors on, one gather entry per transfer.
// Zero-length gather entries are not handed on (the model reads nothing for
// them), so the last transfer is the last entry with a length.
//
// DMA read interface (documented in Documentation/hw/rtl.rst):
//   request  rd_valid_o/rd_ready_i, tag, function, bus address, length in
//            bytes (a multiple of 64, at most 512): a WQE's first 64 bytes,
//            then, if num_ds asks for more, the rest of its segments.
//   completion (no back-pressure) rd_cpl_valid_i, tag, 512-bit data (byte i
//            in bits 8i+7:8i), last, err. The beats of one request arrive in
//            address order; requests complete in any order and their beats
//            may interleave. err ends the request (err implies last).
// Each tag has a 512-byte slot in one block RAM; a tag is held from the pick
// until its WQE has been handed on or completed.
//
// Order: the queue manager may have several WQEs of one SQ in flight, and
// their reads complete in any order. Each tag records the tag its SQ picked
// just before it (t_pred, from the SQ's last_q entry) when that one has not
// left the checker yet (t_wp); the checker takes a read tag only once its
// predecessor has left, so the WQEs of one SQ are checked, handed on and
// finished in ring order (a chain: each waits for the one before), and
// other SQs pass a slow read. One link per tag, not the set of older tags
// (NTAG x log2(NTAG) bits, not an NTAG x NTAG matrix).
// A WQE of an SQ that is in ERR by the time it leaves (sq_err_i, asked for
// d_sqn_o) completes as ERROR / WR_FLUSH_ERR at its ring index without
// counters or done_err_o, as the queue manager's flush would have completed
// it; a good descriptor goes on with the gather's d_flush, which flushes it.
//
// Checks, in the model's order (the first that fails decides):
//   DMA error                     ERROR LOC_PROT_ERR  TXE_DMA, wqe_index = ci
//                                 (first read) or ctrl.wqe_index (second), the
//                                 SQ goes to ERR (done_err_o)
//   num_ds 0 or beyond the stride ERROR LOC_LEN_ERR   TXE_NUM_DS
//   opcode NOP                    ETH_TX SUCCESS if SIGNALED, else nothing
//   opcode not ETH_TX             ERROR LOC_QP_OP_ERR TXE_OPCODE
//   0 or > MAX_GATHER entries     ERROR LOC_LEN_ERR   TXE_GATHER
//   an lkey not LKEY_PHYS         ERROR LOC_PROT_ERR  TXE_LKEY
//   total length 0, < 14, > MAX_MTU + 18 (LSO: > MAX_TSO_SIZE), or < 18
//   with NO_FCS                   ERROR LOC_LEN_ERR   TXE_LENGTH
//   LSO with mss 0, hdr_len > MAX_TSO_HDR, hdr_len > first entry,
//   hdr_len + mss > MAX_MTU + 18  ERROR LOC_LEN_ERR   TXE_LSO
// Malformed WQEs count tx_bad_desc on the SQ's port and the SQ keeps
// running; DMA errors count tx_dma_error (operation.rst, Ethernet transmit).
// The queue manager learns of each finished WQE (done_*) in the cycle its
// descriptor's last transfer or its completion is taken.
// Rewind: while the queue manager asks for an SQ's WQEs back (rew_*, a
// firmware write waiting for them), the checker takes each of the SQ's tags
// in ring order without waiting for room in the port's queue and finishes it
// with done_rew_o and nothing else: no descriptor, no CQE, no counter (its
// ci stays; the WQE is fetched again or flushed as the write decides). WQEs
// already past the checker go on as before (their room was counted).
// Ports: each port's gather sits behind its own descriptor queue
// (d_free_i: its free entries, read a cycle ahead). The checker takes a
// WQE only when its port's queue has room for a whole one (MAX_GATHER
// entries) beyond what the output register may still add, so a transfer
// is never held by a port whose MAC takes nothing, and WQEs of other ports
// pass. port_lt_o / port_lt1_o say whether each port holds fewer than
// PORT_TAGS / PORT_TAGS - 1 tags, for the queue manager's cap.
// Rate: a WQE with one or two gather entries is checked in one cycle from its
// first beat and waits in an output register while the next is checked, so
// single-entry WQEs leave one per cycle (one gather entry per transfer).
module kite_qm_fetch #(
  parameter int unsigned NQ    = 512,
  parameter int unsigned FN_W  = 5,
  parameter int unsigned NPORT = 2,
  parameter int unsigned NTAG  = 128,
  // Fetch tags one port may hold (all of them with one port).
  parameter int unsigned PORT_TAGS = NPORT > 1 ? NTAG - NTAG / 4 : NTAG
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,

  output logic [$clog2(NTAG+1)-1:0] free_o,
  output logic [NPORT-1:0]          port_lt_o,    // holds fewer than PORT_TAGS tags
  output logic [NPORT-1:0]          port_lt1_o,   // fewer than PORT_TAGS - 1
  input  logic [NPORT*8-1:0]        d_free_i,       // free entries of each port's descriptor queue
  input  logic                      pick_valid_i,
  input  logic [$clog2(NQ)-1:0]     pick_sqn_i,
  input  logic [FN_W-1:0]           pick_fn_i,
  input  logic [$clog2(NPORT)-1:0]  pick_port_i,
  input  logic [15:0]               pick_cqn_i,
  input  logic [15:0]               pick_ci_i,
  input  logic [63:0]               pick_addr_i,
  input  logic [3:0]                pick_log_stride_i,

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

  // Good descriptor: header fields on every transfer, one gather entry each.
  output logic                      d_valid_o,
  input  logic                      d_ready_i,
  output logic [$clog2(NQ)-1:0]     d_sqn_o,
  output logic [FN_W-1:0]           d_fn_o,
  output logic [$clog2(NPORT)-1:0]  d_port_o,
  output logic [15:0]               d_cqn_o,
  output logic [15:0]               d_wqe_index_o,
  output logic                      d_signaled_o,
  output logic [127:0]              d_eth_o,        // kite_pkg::wqe_eth_t
  output logic [4:0]                d_nsge_o,
  output logic [16:0]               d_total_o,
  output logic [63:0]               d_sge_addr_o,
  output logic [31:0]               d_sge_len_o,
  output logic                      d_last_o,

  // Completion of a WQE that is not handed on (errors, signaled NOP).
  output logic                      c_valid_o,
  input  logic                      c_ready_i,
  output logic [$clog2(NQ)-1:0]     c_sqn_o,
  output logic [$clog2(NPORT)-1:0]  c_port_o,
  output logic [15:0]               c_cqn_o,
  output logic [15:0]               c_wqe_index_o,
  output logic [7:0]                c_opcode_o,
  output logic [7:0]                c_status_o,
  output logic [31:0]               c_syndrome_o,

  output logic                      done_valid_o,
  input  logic                      done_ready_i,
  output logic [$clog2(NQ)-1:0]     done_sqn_o,
  output logic [15:0]               done_ci_o,
  output logic                      done_err_o,
  output logic [15:0]               done_cqn_o,
  output logic                      done_rew_o,

  // d_sqn_o's SQ is in ERR (from the queue manager).
  input  logic                      sq_err_i,
  // Give the WQEs of SQ rew_sqn_i back (see above).
  input  logic                      rew_valid_i,
  input  logic [$clog2(NQ)-1:0]     rew_sqn_i,

  output logic [NPORT*64-1:0]       tx_bad_desc_o,
  output logic [NPORT*64-1:0]       tx_dma_error_o
);

  localparam int unsigned QN_W = $clog2(NQ);
  localparam int unsigned PW   = $clog2(NPORT);
  localparam int unsigned TW   = $clog2(NTAG);
  localparam int unsigned CW   = $clog2(NTAG + 1);
  localparam int unsigned NB   = 8;            // 512-byte WQE: 8 beats
  // Vendor syndromes of TX error CQEs (the model's TXE_* in txp.cpp).
  localparam logic [31:0] TXE_NUM_DS = 32'd1, TXE_OPCODE = 32'd2, TXE_GATHER = 32'd3,
                          TXE_LENGTH = 32'd4, TXE_LSO = 32'd5, TXE_LKEY = 32'd6, TXE_DMA = 32'd7;
  localparam logic [36:0] MAX_FRAME = 37'(kite_pkg::MAX_MTU + 14 + 4);
  localparam logic [36:0] MAX_TSO   = 37'(kite_pkg::MAX_TSO_SIZE);

  // ---------------------------------------------------------------- tags
  localparam logic [1:0] T_FREE = 2'd0, T_REQ = 2'd1, T_WAIT = 2'd2, T_DONE = 2'd3;
  // Reset state (t_st, t_err, t_wp) is one flat vector per field (tag i at
  // [W*i +: W]): Verilator 5.006 does not unroll a loop of more than 64
  // non-blocking writes to an unpacked array, and yosys 0.23 takes no
  // multi-dimensional packed arrays.
  logic [2*NTAG-1:0] t_st;
  logic [NTAG-1:0]  t_err;
  logic [3:0]       t_nb   [NTAG];   // beats received
  logic [QN_W-1:0]  t_sqn  [NTAG];
  logic [FN_W-1:0]  t_fn   [NTAG];
  logic [PW-1:0]    t_port [NTAG];
  logic [15:0]      t_cqn  [NTAG];
  logic [15:0]      t_ci   [NTAG];
  logic [63:0]      t_addr [NTAG];
  logic [9:0]       t_len  [NTAG];   // bytes of the next request
  logic             t_ph2  [NTAG];   // the request is a WQE's second part
  logic [3:0]       t_lstr [NTAG];
  logic [TW-1:0]    t_pred [NTAG];   // the SQ's tag picked just before it
  logic [NTAG-1:0]  t_wp;            // t_pred has not left the checker yet
  logic [NTAG-1:0]  t_past;          // left the checker (in the output register)
  logic [TW-1:0]    last_q [NQ];     // each SQ's last picked tag (LUT RAM)

  logic [NTAG-1:0] is_free, is_req, is_done;
  always_comb begin
    for (int i = 0; i < NTAG; i++) begin
      is_free[i] = t_st[2*i +: 2] == T_FREE;
      is_req[i]  = t_st[2*i +: 2] == T_REQ;
      is_done[i] = t_st[2*i +: 2] == T_DONE;
    end
  end

  // Round robin over the tags (kite_rr_pick): the first after the last
  // taken, else the first. Free tags are taken lowest first.
  logic [TW:0] req, chk;
  // Always valid when used: the queue manager picks only with a free tag.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [TW:0] alloc;
  /* verilator lint_on UNUSEDSIGNAL */
  // Not FSMs: yosys 0.23 fsm_extract asserts on these.
  (* fsm_encoding = "none" *) logic [TW-1:0] req_ptr_q;
  (* fsm_encoding = "none" *) logic [TW-1:0] chk_ptr_q;
  kite_rr_pick #(.N(NTAG)) u_alloc (
    .req_i(is_free), .last_i('1), .valid_o(alloc[TW]), .idx_o(alloc[TW-1:0]));
  kite_rr_pick #(.N(NTAG)) u_req (
    .req_i(is_req), .last_i(req_ptr_q), .valid_o(req[TW]), .idx_o(req[TW-1:0]));

  // The free tags, counted as they are taken and given back (as pu_q
  // below): a count of is_free would put a 128-input adder tree between
  // the tag states and the queue manager's pick.
  logic [CW-1:0] free_q;
  assign free_o = free_q;

  assign rd_valid_o = req[TW];
  assign rd_tag_o   = req[TW-1:0];
  assign rd_fn_o    = t_fn[req[TW-1:0]];
  assign rd_addr_o  = t_addr[req[TW-1:0]];
  assign rd_len_o   = t_len[req[TW-1:0]];

  // ---------------------------------------------------------------- WQE buffer
  // Each beat is stored with the verdict (w_v) and w_fast of the checker
  // below, worked out as the beat is written, and its tag's port: they take
  // the length sum, the verdict and two tag-array reads off the checker's
  // loop (the WQE's first beat, its checks, the next tag's pick, that tag's
  // read).
  logic [PW+514:0] buf_mem [NTAG*NB];
  logic            buf_re;
  logic [TW+2:0]   buf_ra;
  logic [511:0]    rdata;
  logic [1:0]      rdata_v, w_v;
  logic            rdata_fast, w_fast;
  logic [PW-1:0]   rdata_port;
  // A read completion is registered as it arrives, and everything here
  // takes it from the register: the checks of a first beat (w_v, w_fast,
  // 11 LUTs) were behind the card's PCIe read FIFO in one cycle. A WQE's
  // read ends a cycle later.
  logic          cpl_v_q, cpl_last_q, cpl_err_q;
  logic [TW-1:0] cpl_tag_q;
  logic [511:0]  cpl_data_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cpl_v_q <= 1'b0;
    else cpl_v_q <= rd_cpl_valid_i;
  end
  always_ff @(posedge clk_i) begin
    cpl_tag_q  <= rd_cpl_tag_i;
    cpl_data_q <= rd_cpl_data_i;
    cpl_last_q <= rd_cpl_last_i;
    cpl_err_q  <= rd_cpl_err_i;
  end
  always_ff @(posedge clk_i) begin
    if (cpl_v_q)
      buf_mem[{cpl_tag_q, t_nb[cpl_tag_q][2:0]}] <= {t_port[cpl_tag_q], w_v, w_fast, cpl_data_q};
    if (buf_re) {rdata_port, rdata_v, rdata_fast, rdata} <= buf_mem[buf_ra];
  end

  // ---------------------------------------------------------------- checker
  typedef enum logic [2:0] {K_IDLE, K_HDR, K_SGE, K_VERD, K_CPL, K_DONE, K_OUT, K_REW} k_e;
  k_e            k_q;
  logic [TW-1:0] k_tag_q;
  logic [2:0]    k_beat_q;      // beat in rdata (K_SGE / K_OUT)
  logic [4:0]    k_nsge_q, k_i_q;
  logic [4:0]    k_lastnz_q;    // the last entry with a length
  logic [36:0]   k_total_q;
  logic          k_lkey_bad_q;
  logic [31:0]   k_sge0_len_q;
  logic [15:0]   k_wqe_index_q;
  logic          k_signaled_q;
  logic [127:0]  k_eth_q;
  logic [7:0]    k_opcode_q, k_status_q;
  logic [31:0]   k_syn_q;
  logic          k_dma_q, k_dma_ci_q;
  // The checker's tag's fields, copied from t_*[k_tag_q] every cycle: the
  // outputs read them from a register, not through a 128-to-1 mux (that mux
  // was at the start of the path into the queue manager's doorbell check,
  // through done_sqn_o and done_ci_o). The copy is of the tag from the second
  // cycle after a pick on (k_new_q clear). K_HDR, the first cycle, reads the
  // arrays; the outputs are used in later states only, and K_REW, which a
  // pick may enter, waits for its second cycle to finish.
  logic [QN_W-1:0] k_sqn_q;
  logic [FN_W-1:0] k_fn_q;
  logic [PW-1:0]   k_port_q;
  logic [15:0]     k_cqn_q, k_ci_q;
  logic            k_new_q;

  // The checker's tag leaves it in this cycle (rel): younger WQEs of its SQ
  // may be taken in the same cycle. rel comes late (from the WQE's checks),
  // so the checker's next tag is picked both ways and rel selects.
  logic            rel;
  logic [NTAG-1:0] chk_ok0, chk_ok1, rew;   // eligible without, with rel
  logic [NTAG-1:0] chk_rdy;                 // fetched, with room (or rewound)
  logic [NPORT-1:0] d_room;   // see below
  // Registered: a write is taken only with none of its SQ's tags left, so
  // the cycle after it no tag of the SQ exists yet.
  logic            rew_q;
  logic [QN_W-1:0] rew_sqn_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rew_q <= 1'b0;
    else rew_q <= rew_valid_i;
  end
  always_ff @(posedge clk_i) rew_sqn_q <= rew_sqn_i;
  always_comb begin
    for (int i = 0; i < NTAG; i++) begin
      rew[i]     = rew_q && t_sqn[i] == rew_sqn_q;
      chk_rdy[i] = is_done[i] && (d_room[t_port[i]] || rew[i]);
      chk_ok0[i] = chk_rdy[i] && !t_wp[i];
      chk_ok1[i] = chk_rdy[i] && !(t_wp[i] && t_pred[i] != k_tag_q);
    end
  end
  // last_q is written the cycle after the pick, from a register, so it is
  // a simple dual-port LUT RAM (yosys 0.23 fails to map a 512-deep
  // single-port one); a pick of the same SQ in that cycle reads the register.
  logic            lw_q;
  logic [QN_W-1:0] lw_sqn_q;
  logic [TW-1:0]   lw_tag_q;
  logic [TW-1:0]   prev;
  logic            prev_live;
  assign prev      = lw_q && lw_sqn_q == pick_sqn_i ? lw_tag_q : last_q[pick_sqn_i];
  // The picked SQ's previous tag is still before the checker: live, not
  // past it, not leaving it now, and still the SQ's (a tag that left may
  // have been taken by another SQ since; no tag of an SQ is live before
  // its first pick has written last_q).
  assign prev_live = !is_free[prev] && !t_past[prev] && !(rel && k_tag_q == prev) && t_sqn[prev] == pick_sqn_i;
  logic [TW:0] chk0, chk1;
  kite_rr_pick #(.N(NTAG)) u_chk0 (
    .req_i(chk_ok0), .last_i(chk_ptr_q), .valid_o(chk0[TW]), .idx_o(chk0[TW-1:0]));
  kite_rr_pick #(.N(NTAG)) u_chk1 (
    .req_i(chk_ok1), .last_i(chk_ptr_q), .valid_o(chk1[TW]), .idx_o(chk1[TW-1:0]));
  assign chk = rel ? chk1 : chk0;
  // Whether the next tag is a rewound one, looked up for both picks: rel
  // selects the bit, not the index of a 128-to-1 mux.
  logic chk_rew;
  assign chk_rew = rel ? rew[chk1[TW-1:0]] : rew[chk0[TW-1:0]];

  // Gather entries 4b-2 .. 4b+1 are the lanes of beat b. In K_HDR rdata is
  // beat 0 and the entry count comes straight from it.
  logic [4:0]  h_nsge, acc_nsge;
  logic [2:0]  acc_beat;
  logic [36:0] beat_sum;
  logic        beat_lkey_bad, beat_nz;
  logic [4:0]  beat_lastnz;
  logic [5:0]  sge_idx;
  assign h_nsge   = 5'(rdata[23:16] - 8'd1);
  assign acc_nsge = k_q == K_HDR ? h_nsge : k_nsge_q;
  assign acc_beat = k_q == K_HDR ? 3'd0 : k_beat_q;
  // The lengths are summed as a tree, not one lane after another. In K_HDR
  // the sum goes to registers only (the verdict was stored with the beat).
  logic [127:0] lane_len;   // lane l's length at [32*l +: 32], 0 when not an entry
  always_comb begin
    lane_len = '0;
    beat_lkey_bad = 1'b0;
    beat_nz = 1'b0;
    beat_lastnz = '0;
    for (int l = 0; l < 4; l++) begin
      sge_idx = 6'({acc_beat, 2'(l)}) - 6'd2;
      if ((acc_beat != 3'd0 || l >= 2) && sge_idx < {1'b0, acc_nsge}) begin
        lane_len[32*l +: 32] = rdata[128*l+64 +: 32];
        if (rdata[128*l+96 +: 32] != 32'(kite_pkg::LKEY_PHYS)) beat_lkey_bad = 1'b1;
        if (rdata[128*l+64 +: 32] != '0) begin
          beat_nz = 1'b1;
          beat_lastnz = sge_idx[4:0];
        end
      end
    end
    beat_sum = (37'(lane_len[0 +: 32]) + 37'(lane_len[32 +: 32])) +
               (37'(lane_len[64 +: 32]) + 37'(lane_len[96 +: 32]));
  end

  // Last beat holding a gather entry: entry nsge-1 sits at byte 32 + 16(nsge-1).
  logic [2:0] last_beat;
  assign last_beat = 3'((6'(k_nsge_q) + 6'd1) >> 2);

  // Verdict on lkey, length and LSO fields, in the model's order.
  localparam logic [1:0] V_OK = 2'd0, V_LENGTH = 2'd1, V_LSO = 2'd2, V_LKEY = 2'd3;
  function automatic logic [1:0] verdict(logic [36:0] total, logic lkey_bad, logic lso,
                                         logic no_fcs, logic [15:0] mss, logic [15:0] hdr_len,
                                         logic [31:0] sge0_len);
    logic [36:0] max;
    max = lso ? MAX_TSO : MAX_FRAME;
    verdict = V_OK;
    if (lkey_bad)
      verdict = V_LKEY;
    else if (total == '0 || total > max || (no_fcs && total < 37'd18) || total < 37'd14)
      verdict = V_LENGTH;
    else if (lso && (mss == '0 || 32'(hdr_len) > 32'(kite_pkg::MAX_TSO_HDR) ||
                     32'(hdr_len) > sge0_len || 37'(hdr_len) + 37'(mss) > MAX_FRAME))
      verdict = V_LSO;
  endfunction

  // num_ds 0, or more segments than the tag's WQE stride holds: (num_ds +
  // 1) * 16 > 2^log_stride, that is num_ds >= 2^(log_stride - 4). Written
  // as that, a select of "num_ds has a bit at k or above" by the stride,
  // not a multiply, a shift and a compare: abc mapped those as a ripple
  // behind the stride's LUT RAM read.
  function automatic logic ds_bad(logic [7:0] num_ds, logic [3:0] log_stride);
    logic [7:0] hi;                         // hi[k]: num_ds >= 2^k
    for (int k = 0; k < 8; k++) hi[k] = |(num_ds >> k);
    if (log_stride < 4'd4) ds_bad = 1'b1;
    else if (log_stride >= 4'd12) ds_bad = num_ds == 8'd0;
    else ds_bad = num_ds == 8'd0 || hi[3'(log_stride - 4'd4)];
  endfunction

  // Of a beat being written, as if it were its WQE's first: w_v, the
  // verdict on its one or two gather entries (lanes 2 and 3; num_ds 2 or 3
  // is the only WQE that K_HDR judges), and w_fast, an ETH_TX WQE of that
  // size that passes and fits the tag's stride. The rest of hdr_fast (the
  // tag's read error) is the tag's, not the beat's.
  logic         w_two;
  logic [36:0]  w_total;
  logic         w_lkey_bad;
  assign w_two      = cpl_data_q[23:16] == 8'd3;
  assign w_total    = 37'(cpl_data_q[351:320]) + (w_two ? 37'(cpl_data_q[479:448]) : 37'd0);
  assign w_lkey_bad = cpl_data_q[383:352] != 32'(kite_pkg::LKEY_PHYS) ||
                      (w_two && cpl_data_q[511:480] != 32'(kite_pkg::LKEY_PHYS));
  assign w_v        = verdict(w_total, w_lkey_bad, cpl_data_q[128 + 2], cpl_data_q[128 + 4],
                              cpl_data_q[128 + 16 +: 16], cpl_data_q[128 + 64 +: 16],
                              cpl_data_q[351:320]);
  assign w_fast     = cpl_data_q[7:0] == 8'(kite_pkg::WQE_OPCODE_ETH_TX) &&
                      (cpl_data_q[23:16] == 8'd2 || w_two) && w_v == V_OK &&
                      !ds_bad(cpl_data_q[23:16], t_lstr[cpl_tag_q]);

  // The verdict: in K_HDR as stored with beat 0, in K_VERD from the sums.
  logic [1:0]   v_code;
  logic [31:0]  v_syn;
  logic [7:0]   v_status;
  assign v_code = k_q == K_HDR ? rdata_v :
                  verdict(k_total_q, k_lkey_bad_q, k_eth_q[2], k_eth_q[4], k_eth_q[16 +: 16],
                          k_eth_q[64 +: 16], k_sge0_len_q);
  always_comb begin
    case (v_code)
      V_LKEY:   v_syn = TXE_LKEY;
      V_LENGTH: v_syn = TXE_LENGTH;
      V_LSO:    v_syn = TXE_LSO;
      default:  v_syn = '0;
    endcase
    v_status = v_code == V_LKEY ? 8'(kite_pkg::CQE_STATUS_LOC_PROT_ERR) : 8'(kite_pkg::CQE_STATUS_LOC_LEN_ERR);
  end

  // A good ETH_TX WQE with one or two gather entries is checked in K_HDR
  // and moves to the output register (o_*), so the checker takes the next
  // WQE in the following cycle: one single-entry WQE per cycle. Longer WQEs
  // go out from the checker (K_OUT) once the register is empty; the
  // checker's completions wait for it too (one done_* per cycle).
  logic          hdr_fast, handoff, o_room, o_fin, o_last, o_dv;
  logic          o_valid_q, o_i_q, o_two_q;
  logic [TW-1:0] o_tag_q;
  logic [15:0]   o_wqe_index_q;
  logic          o_signaled_q;
  logic [127:0]  o_eth_q;
  logic [16:0]   o_total_q;
  logic [95:0]   o_sge0_q, o_sge1_q;   // {len, addr}
  logic [95:0]   o_sge;
  // The tag's fields too: the tag arrays keep one read port (k_tag_q).
  logic [QN_W-1:0] o_sqn_q;
  logic [FN_W-1:0] o_fn_q;
  logic [PW-1:0]   o_port_q;
  logic [15:0]     o_cqn_q, o_ci_q;

  // A port's queue has room for a whole WQE: its free entries (one may be
  // taken this cycle) less two for the output register and two for a WQE in
  // K_HDR that may move there now (neither the checker's next WQE waits for).
  // Compared against each of the three bounds, the holders select: the sum
  // of the bound would put two adders before the compare. The compares are
  // registered, so that the port queue's count (a subtraction in
  // kite_card_txq) and the checker's pick are not one path across the two
  // blocks: they are made a cycle ahead on the count less the entry this
  // block writes in that cycle, which is the next cycle's count but for
  // the gather's reads (room shows a cycle later, never too early).
  logic [2:0] room_over_q [NPORT];   // free entries above MAX_GATHER + 0, 2, 4
  logic             o_here, k_here;
  logic [NPORT-1:0] d_wr;            // an entry written to the port's queue now
  always_comb for (int p = 0; p < NPORT; p++) d_wr[p] = d_valid_o && d_ready_i && d_port_o == PW'(p);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int p = 0; p < NPORT; p++) room_over_q[p] <= '0;
    end else begin
      for (int p = 0; p < NPORT; p++)
        for (int j = 0; j < 3; j++)
          room_over_q[p][j] <= 9'(d_free_i[8*p +: 8]) > 9'(kite_pkg::MAX_GATHER) + 9'(2 * j) + 9'(d_wr[p]);
    end
  end
  always_comb begin
    for (int p = 0; p < NPORT; p++) begin
      o_here    = o_valid_q && o_port_q == PW'(p);
      k_here    = k_q == K_HDR && rdata_port == PW'(p);
      d_room[p] = o_here && k_here ? room_over_q[p][2] :
                  o_here || k_here ? room_over_q[p][1] : room_over_q[p][0];
    end
  end

  // Outputs. K_OUT passes over a zero-length entry in one cycle without a
  // transfer; the entry after the last one with a length is never reached.
  logic [1:0] out_lane;
  logic       out_last, k_dv, k_zero, k_step;
  assign out_lane = 2'(k_i_q + 5'd2);
  assign out_last = k_i_q == k_lastnz_q;
  assign k_zero   = rdata[128*out_lane+64 +: 32] == '0;
  assign o_last   = o_i_q == o_two_q;
  assign o_sge    = o_i_q ? o_sge1_q : o_sge0_q;
  assign o_dv     = o_valid_q && (!o_last || done_ready_i);
  assign k_dv     = !o_valid_q && k_q == K_OUT && !k_zero && (!out_last || done_ready_i);
  assign k_step   = (k_dv && d_ready_i) || (!o_valid_q && k_q == K_OUT && k_zero);
  assign o_fin    = o_dv && d_ready_i && o_last;
  assign o_room   = !o_valid_q || o_fin;

  assign d_valid_o     = o_dv || k_dv;
  assign d_sqn_o       = o_valid_q ? o_sqn_q : k_sqn_q;
  assign d_fn_o        = o_valid_q ? o_fn_q : k_fn_q;
  assign d_port_o      = o_valid_q ? o_port_q : k_port_q;
  assign d_cqn_o       = o_valid_q ? o_cqn_q : k_cqn_q;
  assign d_wqe_index_o = o_valid_q ? o_wqe_index_q : k_wqe_index_q;
  assign d_signaled_o  = o_valid_q ? o_signaled_q : k_signaled_q;
  assign d_eth_o       = o_valid_q ? o_eth_q : k_eth_q;
  assign d_nsge_o      = o_valid_q ? {4'd0, 1'b1} + 5'(o_two_q) : k_nsge_q;
  assign d_total_o     = o_valid_q ? o_total_q : k_total_q[16:0];
  assign d_sge_addr_o  = o_valid_q ? o_sge[63:0] : rdata[128*out_lane +: 64];
  assign d_sge_len_o   = o_valid_q ? o_sge[95:64] : rdata[128*out_lane+64 +: 32];
  assign d_last_o      = o_valid_q ? o_last : out_last;

  // An unsignaled NOP of an SQ in ERR completes as flushed too.
  logic k_cpl, k_flush;
  assign k_flush       = !o_valid_q && sq_err_i;
  assign k_cpl         = k_q == K_CPL || (k_q == K_DONE && k_flush);
  assign c_valid_o     = !o_valid_q && k_cpl && done_ready_i;
  assign c_sqn_o       = k_sqn_q;
  assign c_port_o      = k_port_q;
  assign c_cqn_o       = k_cqn_q;
  assign c_wqe_index_o = k_dma_ci_q || k_flush ? k_ci_q : k_wqe_index_q;
  assign c_opcode_o    = k_flush ? 8'(kite_pkg::CQE_OPCODE_ERROR) : k_opcode_q;
  assign c_status_o    = k_flush ? 8'(kite_pkg::CQE_STATUS_WR_FLUSH_ERR) : k_status_q;
  assign c_syndrome_o  = k_flush ? '0 : k_syn_q;

  logic fin;   // the checker's WQE is finished this cycle
  assign fin = (k_dv && d_ready_i && out_last) || (c_valid_o && c_ready_i) ||
               (!o_valid_q && (k_q == K_DONE && !k_flush || k_q == K_REW && !k_new_q) && done_ready_i);
  assign done_valid_o = o_valid_q ? o_last && d_ready_i :
                        (k_q == K_OUT && out_last && d_ready_i) || (k_cpl && c_ready_i) ||
                        k_q == K_DONE && !k_flush || k_q == K_REW && !k_new_q;
  assign done_rew_o   = !o_valid_q && k_q == K_REW && !k_new_q;
  assign done_sqn_o   = d_sqn_o;
  assign done_ci_o    = (o_valid_q ? o_ci_q : k_ci_q) + 16'd1;
  // From state alone (no handshake): the queue manager stops picking the SQ
  // while its error waits (its ready must not depend on this one's valid).
  assign done_err_o   = !o_valid_q && k_q == K_CPL && k_dma_q && !sq_err_i;
  assign done_cqn_o   = d_cqn_o;

  // A WQE is read in up to two parts: its first 64 bytes (ctrl, eth and two
  // gather entries), then, if num_ds asks for more and is valid, the rest up
  // to (num_ds + 1) * 16 bytes. The model reads ctrl, checks num_ds, then
  // reads the segments, so a failing second read reports ctrl.wqe_index.
  logic       hdr_ds_bad, ph2_req;
  logic [9:0] ph2_len;
  assign hdr_ds_bad = ds_bad(rdata[23:16], t_lstr[k_tag_q]);
  assign ph2_req = k_q == K_HDR && !t_err[k_tag_q] && !hdr_ds_bad && rdata[23:16] > 8'd3 &&
                   !t_ph2[k_tag_q];
  assign ph2_len = {4'((13'(rdata[23:16]) * 13'd16 + 13'd15) >> 6), 6'd0};

  // The K_HDR decision chain below ending in the output register: opcode,
  // entry count, stride and verdict were worked out as the beat was written.
  assign hdr_fast = k_q == K_HDR && !t_err[k_tag_q] && rdata_fast;
  assign handoff  = hdr_fast && o_room;
  assign rel      = handoff || fin;

  always_ff @(posedge clk_i) begin
    if (handoff) begin
      o_tag_q       <= k_tag_q;
      o_sqn_q       <= t_sqn[k_tag_q];
      o_fn_q        <= t_fn[k_tag_q];
      o_port_q      <= t_port[k_tag_q];
      o_cqn_q       <= t_cqn[k_tag_q];
      o_ci_q        <= t_ci[k_tag_q];
      o_wqe_index_q <= rdata[47:32];
      o_signaled_q  <= rdata[8];
      o_eth_q       <= rdata[255:128];
      o_total_q     <= beat_sum[16:0];
      // Two entries, one of them empty, go out as one (both empty: TXE_LENGTH).
      o_two_q       <= rdata[23:16] == 8'd3 && rdata[351:320] != '0 && rdata[479:448] != '0;
      o_sge0_q      <= rdata[351:320] == '0 ? {rdata[479:448], rdata[447:384]} : {rdata[351:320], rdata[319:256]};
      o_sge1_q      <= {rdata[479:448], rdata[447:384]};
    end
  end

  // Buffer reads: beat 0 when a tag is chosen (in K_IDLE or while the
  // previous WQE finishes), beat 1 in K_HDR when entries lie beyond beat 0,
  // the next beat in K_SGE / K_OUT, beat 0 again when a WQE checked in
  // K_VERD starts going out. rdata holds its beat until the next read.
  logic sge_more, out_next, pick_next;
  assign sge_more  = k_q == K_SGE && k_beat_q != last_beat;
  assign out_next  = k_step && !out_last && out_lane == 2'd3;
  assign pick_next = (k_q == K_IDLE || fin || handoff) && chk[TW];
  always_comb begin
    buf_re = 1'b0;
    buf_ra = {chk[TW-1:0], 3'd0};
    if (pick_next) begin
      buf_re = 1'b1;
    end else if (k_q == K_HDR) begin
      buf_re = rdata[23:16] > 8'd3;
      buf_ra = {k_tag_q, 3'd1};
    end else if (sge_more || out_next) begin
      buf_re = 1'b1;
      buf_ra = {k_tag_q, k_beat_q + 3'd1};
    end else if (k_q == K_VERD) begin
      buf_re = 1'b1;
      buf_ra = {k_tag_q, 3'd0};
    end
  end

  // The tags' next states, each tag comparing the numbers written to: through
  // a variable part-select (t_st[{tag, 1'b0} +: 2] <= ...), yosys 0.23
  // checks the index against the vector's range with a 33-bit carry chain,
  // at the end of the path from the checker through the pick. Later lines
  // win, as the writes they replace did.
  logic [2*NTAG-1:0] t_st_d;
  always_comb begin
    t_st_d = t_st;
    for (int i = 0; i < NTAG; i++) begin
      if (pick_valid_i && alloc[TW-1:0] == TW'(i)) t_st_d[2*i +: 2] = T_REQ;
      if (rd_valid_o && rd_ready_i && req[TW-1:0] == TW'(i)) t_st_d[2*i +: 2] = T_WAIT;
      if (cpl_v_q && (cpl_last_q || cpl_err_q) && cpl_tag_q == TW'(i))
        t_st_d[2*i +: 2] = T_DONE;
      if (ph2_req && k_tag_q == TW'(i)) t_st_d[2*i +: 2] = T_REQ;
      if (fin && k_tag_q == TW'(i)) t_st_d[2*i +: 2] = T_FREE;
      if (o_fin && o_tag_q == TW'(i)) t_st_d[2*i +: 2] = T_FREE;
      // Held by the checker until its fin.
      if (pick_next && chk[TW-1:0] == TW'(i)) t_st_d[2*i +: 2] = T_WAIT;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      k_q       <= K_IDLE;
      o_valid_q <= 1'b0;
      o_i_q     <= 1'b0;
      req_ptr_q <= '0;
      chk_ptr_q <= '0;
      t_past    <= '0;
      t_st      <= {NTAG{T_FREE}};
      t_err     <= '0;
      t_wp      <= '0;
      lw_q      <= 1'b0;
      k_new_q   <= 1'b0;
      free_q    <= CW'(NTAG);
    end else begin
      // As t_st_d: a pick takes a free tag, fin and o_fin free two others.
      free_q <= free_q - CW'(pick_valid_i) + CW'(fin) + CW'(o_fin);
      lw_q <= pick_valid_i;
      k_new_q <= pick_next;
      // The flags tag by tag, each comparing its number: through a
      // variable index yosys 0.23 puts a range check (a carry chain) after
      // the free-tag pick (rtl.rst).
      for (int i = 0; i < NTAG; i++) begin
        if (handoff && k_tag_q == TW'(i)) t_past[i] <= 1'b1;
        if (rel && t_pred[i] == k_tag_q) t_wp[i] <= 1'b0;
        if (pick_valid_i && alloc[TW-1:0] == TW'(i)) begin
          t_err[i]  <= 1'b0;
          t_past[i] <= 1'b0;
          t_wp[i]   <= prev_live;
        end
        if (cpl_v_q && cpl_err_q && cpl_tag_q == TW'(i)) t_err[i] <= 1'b1;
      end
      if (rd_valid_o && rd_ready_i) begin
        req_ptr_q         <= req[TW-1:0];
      end

      case (k_q)
        K_IDLE: ;  // pick_next below
        K_HDR: begin
          k_wqe_index_q <= rdata[47:32];
          k_signaled_q <= rdata[8];
          k_eth_q      <= rdata[255:128];
          k_sge0_len_q <= rdata[351:320];
          k_nsge_q     <= h_nsge;
          k_lastnz_q   <= beat_lastnz;
          k_dma_q      <= t_err[k_tag_q];
          k_dma_ci_q   <= t_err[k_tag_q] && !t_ph2[k_tag_q];  // the ctrl read itself failed
          k_beat_q     <= '0;
          k_i_q        <= '0;
          k_total_q    <= beat_sum;
          k_lkey_bad_q <= beat_lkey_bad;
          k_opcode_q   <= 8'(kite_pkg::CQE_OPCODE_ERROR);
          k_status_q   <= 8'(kite_pkg::CQE_STATUS_LOC_LEN_ERR);
          k_syn_q      <= '0;
          k_q          <= K_CPL;
          if (t_err[k_tag_q]) begin
            k_status_q <= 8'(kite_pkg::CQE_STATUS_LOC_PROT_ERR);
            k_syn_q    <= TXE_DMA;
          end else if (hdr_ds_bad) begin
            k_syn_q    <= TXE_NUM_DS;
          end else if (ph2_req) begin
            k_q <= K_IDLE;      // the rest of the WQE is read first
          end else if (rdata[7:0] == 8'(kite_pkg::WQE_OPCODE_NOP)) begin
            k_opcode_q <= 8'(kite_pkg::CQE_OPCODE_ETH_TX);
            k_status_q <= 8'(kite_pkg::CQE_STATUS_SUCCESS);
            if (!rdata[8]) k_q <= K_DONE;
          end else if (rdata[7:0] != 8'(kite_pkg::WQE_OPCODE_ETH_TX)) begin
            k_status_q <= 8'(kite_pkg::CQE_STATUS_LOC_QP_OP_ERR);
            k_syn_q    <= TXE_OPCODE;
          end else if (rdata[23:16] == 8'd1 || 32'(rdata[23:16]) - 1 > 32'(kite_pkg::MAX_GATHER)) begin
            k_syn_q    <= TXE_GATHER;
          end else if (rdata[23:16] > 8'd3) begin
            k_beat_q <= 3'd1;   // beat 1 is being read
            k_q      <= K_SGE;
          end else if (v_syn != '0) begin
            k_status_q <= v_status;
            k_syn_q    <= v_syn;
          end else begin
            // hdr_fast: to the output register, or wait here for it
            // (rdata keeps beat 0: no buffer read in K_HDR for <= 2 entries).
            k_q <= o_room ? K_IDLE : K_HDR;
          end
        end
        K_SGE: begin
          k_total_q    <= k_total_q + beat_sum;
          if (beat_nz) k_lastnz_q <= beat_lastnz;
          k_lkey_bad_q <= k_lkey_bad_q || beat_lkey_bad;
          if (sge_more) k_beat_q <= k_beat_q + 3'd1;
          else k_q <= K_VERD;
        end
        K_VERD: begin
          k_beat_q   <= '0;
          k_status_q <= v_status;
          k_syn_q    <= v_syn;
          k_q        <= v_syn != '0 ? K_CPL : K_OUT;
        end
        K_OUT: begin
          if (k_step) begin
            k_i_q <= k_i_q + 5'd1;
            if (out_next) k_beat_q <= k_beat_q + 3'd1;
          end
        end
        default: ;  // K_CPL, K_DONE, K_REW: wait for fin
      endcase

      t_st <= t_st_d;
      if (fin) k_q <= K_IDLE;
      if (handoff) begin
        o_valid_q <= 1'b1;
        o_i_q     <= 1'b0;
      end else if (o_fin) begin
        o_valid_q <= 1'b0;
      end else if (o_dv && d_ready_i) begin
        o_i_q <= 1'b1;
      end
      // The next WQE starts while the previous one finishes.
      if (pick_next) begin
        k_tag_q   <= chk[TW-1:0];
        chk_ptr_q <= chk[TW-1:0];
        k_q       <= chk_rew ? K_REW : K_HDR;
      end
    end
  end

  // Tag fields, written at allocation and for a second request; the beat
  // counts too (set at allocation, before a tag is used).
  always_ff @(posedge clk_i) begin
    if (cpl_v_q) t_nb[cpl_tag_q] <= t_nb[cpl_tag_q] + 4'd1;
    if (ph2_req) begin
      t_addr[k_tag_q] <= t_addr[k_tag_q] + 64'd64;
      t_len[k_tag_q]  <= ph2_len;
      t_ph2[k_tag_q]  <= 1'b1;
    end
    if (pick_valid_i) begin
      t_sqn[alloc[TW-1:0]]  <= pick_sqn_i;
      t_fn[alloc[TW-1:0]]   <= pick_fn_i;
      t_port[alloc[TW-1:0]] <= pick_port_i;
      t_cqn[alloc[TW-1:0]]  <= pick_cqn_i;
      t_ci[alloc[TW-1:0]]   <= pick_ci_i;
      t_addr[alloc[TW-1:0]] <= pick_addr_i;
      t_len[alloc[TW-1:0]]  <= 10'd64;
      t_ph2[alloc[TW-1:0]]  <= 1'b0;
      t_lstr[alloc[TW-1:0]] <= pick_log_stride_i;
      t_nb[alloc[TW-1:0]]   <= '0;
      t_pred[alloc[TW-1:0]] <= prev;
    end
    lw_sqn_q <= pick_sqn_i;
    lw_tag_q <= alloc[TW-1:0];
    k_sqn_q  <= t_sqn[k_tag_q];
    k_fn_q   <= t_fn[k_tag_q];
    k_port_q <= t_port[k_tag_q];
    k_cqn_q  <= t_cqn[k_tag_q];
    k_ci_q   <= t_ci[k_tag_q];
    if (lw_q) last_q[lw_sqn_q] <= lw_tag_q;
  end

  // Tags held per port: taken at a pick, given back at fin / o_fin. The
  // queue manager's cap reads the count's compares with PORT_TAGS and
  // PORT_TAGS - 1, registered beside it: count + taken - given < T is
  // count < T - taken + given, so each is one of the count's compares
  // with T - 2 .. T + 2, selected by what moves it; a compare after the
  // count's adder would put the fetch's finish ahead of a carry chain.
  logic [CW-1:0]    pu_q [NPORT];
  logic [NPORT-1:0] lt_q, lt1_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int p = 0; p < NPORT; p++) pu_q[p] <= '0;
      lt_q  <= '1;
      lt1_q <= '1;
    end else begin
      for (int p = 0; p < NPORT; p++) begin
        logic       tk;
        logic [1:0] gv;
        logic [2:0] k;
        logic [4:0] below;                 // pu_q < T - 2 + i
        tk = pick_valid_i && pick_port_i == PW'(p);
        gv = 2'(fin && k_port_q == PW'(p)) + 2'(o_fin && o_port_q == PW'(p));
        k  = 3'(gv) + 3'(!tk);
        for (int i = 0; i < 5; i++) below[i] = 32'(pu_q[p]) + 32'd2 < PORT_TAGS + 32'(i);
        pu_q[p]  <= pu_q[p] + CW'(tk) - CW'(fin && k_port_q == PW'(p)) - CW'(o_fin && o_port_q == PW'(p));
        lt_q[p]  <= below[k + 3'd1];
        lt1_q[p] <= below[k];
      end
    end
  end
  assign port_lt_o  = lt_q;
  assign port_lt1_o = lt1_q;

  // ---------------------------------------------------------------- counters
  logic [NPORT*64-1:0] bad_q, dma_q;
  logic                fin_cpl;
  assign fin_cpl = c_valid_o && c_ready_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      bad_q <= '0;
      dma_q <= '0;
    end else if (fin_cpl && !k_flush && k_opcode_q == 8'(kite_pkg::CQE_OPCODE_ERROR)) begin
      for (int p = 0; p < NPORT; p++) begin
        if (k_port_q == PW'(p)) begin
          if (k_dma_q) dma_q[64*p +: 64] <= dma_q[64*p +: 64] + 64'd1;
          else bad_q[64*p +: 64] <= bad_q[64*p +: 64] + 64'd1;
        end
      end
    end
  end
  assign tx_bad_desc_o  = bad_q;
  assign tx_dma_error_o = dma_q;

endmodule
