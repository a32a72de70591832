// TX gather of one port: reads the gather entries of each checked ETH_TX
// descriptor (kite_qm_fetch d_*, one entry per transfer) over the DMA read
// interface and packs them into one frame stream for kite_txp_lso, with the
// descriptor's Ethernet segment, total length and first-entry length.
//
// Completions leave in WQE order through a retire queue (RET entries): every
// WQE handed in leaves one entry, a committed frame, a failed read or a
// flush. A committed frame's entry waits for the segmenter's verdict on it
// (v_*: kite_txp_tso takes or rejects each frame, in order): taken, a
// signaled WQE gets its ETH_TX SUCCESS CQE (byte_cnt = total, hash_type = the
// WQE opcode, as the model's TxPipeline::complete) and the SQ counters see it
// (st_*); rejected (a TSO header tx_lso refuses, known only once the
// segmenter has parsed it), ERROR LOC_LEN_ERR with syndrome TXE_LSO whether
// signaled or not and lso_rej_o (tx_bad_desc), as the model's bad(). r_seq_o
// counts WQEs retired, modulo 2^16 as the port's kite_card_txq counts those
// handed on, so the queue manager can park an SQ's flush behind those still
// here.
//
// Responses are address-aligned (lane = address mod 64, keep marks the
// bytes); each beat is shifted down to lane 0 and appended to a two-beat
// accumulator, so entries of any length and alignment pack without gaps.
// One entry is read at a time, and only once the ring has room for all of
// it (rd_room), so a response is never held: the card's DMA reads share
// one in-order response stream. A 65,536-byte entry is two reads.
//
// Store and forward: the packed beats go into a SF_BEATS x 520-bit block RAM
// ring (64 KiB, one MAX_TSO_SIZE super-frame) and become visible to the
// output only when the frame's last read has completed without error; a
// frame whose read fails is dropped there (the write pointer returns to the
// last committed beat), so nothing of it reaches the MAC, as the model sends
// nothing. Writing and reading overlap, so frames stream at one beat per
// cycle; a frame's first beat leaves one beat time after its last beat was
// stored (see rtl.rst, "Card top").
//
// Failed read (rd_rsp_err_i, the model's dma_fail): the WQE's remaining
// entries are not read; ERROR LOC_PROT_ERR CQE (byte_cnt 0, syndrome
// TXE_DMA) whether signaled or not, dma_err_o (tx_dma_error), then the SQ is
// reported on gerr_* until the queue manager takes it (SQ to ERR, flush,
// WQ_ERROR event). A WQE of an SQ already in ERR (d_flush_i: handed on
// before the SQ changed state) is not read or sent: ERROR WR_FLUSH_ERR with
// wqe_index = its ring index, as the queue manager's flush.
//
// A completion entry (d_cpl_i: the queue manager's fetch finished the WQE
// itself: malformed, a signaled NOP, flushed) is not read either: it joins
// the retire queue with the CQE's opcode, status and syndrome (in d_eth_i's
// low 48 bits) and completes in its turn, so it stays behind its SQ's
// earlier WQEs here.
//
// SQ counters: st_* reports each frame sent (its WQE read without error and
// taken by the segmenter) with its SQ, total length and Ethernet segment, as
// it retires; a frame retires only while st_room_i.
//
// SQ reset (sq_rst_i: a context write that disables an SQ or sets it to
// RST): the WQEs of that SQ already read, in the retire queue, still send
// their frames but retire without a CQE, SQ counter event or ERR report. A
// WQE the port's descriptor queue marked stale (d_stale_i, reset while it
// waited there) is not read: it retires as flushed, without a CQE. Nor are
// the rest of the entries of the WQE being gathered (they may be waiting
// for room behind a held MAC): its beats so far are given back and it
// retires the same way. The card's drain ends a reset once their buffer reads
// are answered, but a frame may wait far longer for a paused MAC; after
// DESTROY_SQ or MODIFY_SQ to RST has completed, the host owns the SQ's ring
// and CQ slots again (a new SQ may reuse the number and its ring indices).
module kite_card_txg #(
  parameter int unsigned NQ       = 512,
  parameter int unsigned FN_W     = 5,
  parameter int unsigned SF_BEATS = 1024,   // 64 KiB: one MAX_TSO_SIZE super-frame
  parameter int unsigned NINFO    = 16,     // committed frames waiting to leave
  parameter int unsigned RET      = 32      // WQEs between hand-in and completion
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  input  logic                  d_valid_i,
  output logic                  d_ready_o,
  input  logic [$clog2(NQ)-1:0] d_sqn_i,
  input  logic [FN_W-1:0]       d_fn_i,
  input  logic [15:0]           d_cqn_i,
  input  logic [15:0]           d_wqe_index_i,
  input  logic [15:0]           d_ci_i,
  input  logic                  d_flush_i,
  input  logic                  d_stale_i,     // its SQ was reset since the fetch (with d_flush_i)
  input  logic                  d_cpl_i,       // a completion, not a descriptor (one entry)
  input  logic                  d_signaled_i,
  input  logic [127:0]          d_eth_i,
  input  logic [16:0]           d_total_i,
  input  logic [63:0]           d_sge_addr_i,
  input  logic [31:0]           d_sge_len_i,
  input  logic                  d_last_i,

  output logic                  rd_valid_o,
  input  logic                  rd_ready_i,
  output logic [FN_W-1:0]       rd_fn_o,
  output logic [63:0]           rd_addr_o,
  output logic [15:0]           rd_len_o,
  input  logic                  rd_rsp_valid_i,
  output logic                  rd_rsp_ready_o,
  input  logic [511:0]          rd_rsp_data_i,
  input  logic [63:0]           rd_rsp_keep_i,
  input  logic                  rd_rsp_last_i,
  input  logic                  rd_rsp_err_i,

  output logic                  m_valid_o,
  input  logic                  m_ready_i,
  output logic [511:0]          m_data_o,
  output logic [63:0]           m_keep_o,
  output logic                  m_last_o,
  output logic [127:0]          m_eth_o,
  output logic [31:0]           m_len_o,
  output logic [31:0]           m_first_len_o,

  input  logic                  sq_rst_i,      // SQ sq_rst_sqn_i reset: its WQEs here complete no more
  input  logic [$clog2(NQ)-1:0] sq_rst_sqn_i,

  input  logic                  v_valid_i,     // segmenter verdict, one per frame
  input  logic                  v_ok_i,        // 0: rejected, nothing sent

  output logic                  cqe_valid_o,
  input  logic                  cqe_ready_i,
  output logic [15:0]           cqe_cqn_o,
  output logic [255:0]          cqe_data_o,

  output logic                  gerr_valid_o,
  input  logic                  gerr_ready_i,
  output logic [$clog2(NQ)-1:0] gerr_sqn_o,

  output logic                  dma_err_o,
  output logic                  lso_rej_o,
  output logic [15:0]           r_seq_o,
  // A WQE's entries are being read (a read out, or more entries to come):
  // its SQ, for the card's drain after an SQ context write.
  output logic                  rd_act_o,
  output logic [$clog2(NQ)-1:0] rd_sqn_o,
  input  logic                  st_room_i,
  output logic                  st_valid_o,
  output logic [$clog2(NQ)-1:0] st_sqn_o,
  output logic [16:0]           st_total_o,
  output logic [127:0]          st_eth_o
);
  localparam int unsigned AW = $clog2(SF_BEATS);
  localparam int unsigned IW = $clog2(NINFO);
  localparam int unsigned RW = $clog2(RET);
  localparam logic [31:0] TXE_LSO = 32'd5;   // the model's vendor syndromes (txp.cpp)
  localparam logic [31:0] TXE_DMA = 32'd7;

  typedef enum logic [2:0] {S_REQ, S_RSP, S_FLUSH, S_END, S_PUSH, S_GERR} state_e;
  state_e state_q;

  logic                  first_q, last_entry_q, err_q, fl_q, sig_q, cp_q;
  logic                  ab_q;   // entries skipped after a reset (see above)
  logic [$clog2(NQ)-1:0] sqn_q;
  logic [15:0]           cqn_q, idx_q, ci_q;
  logic [127:0]          eth_q;
  logic [16:0]           total_q;
  logic [31:0]           first_len_q;
  logic [1023:0]         acc_q;
  logic [6:0]            cnt_q;
  logic                  o_valid_q, o_last_q, o_cm_q;
  logic [511:0]          o_data_q;
  logic [6:0]            o_cnt_q;

  // Lanes of the response beat: the first set keep bit and how many. Lanes
  // without keep are zeroed: they hold whatever the read buffer held (the
  // rest of a dword, an earlier completion), and the packing ORs them in.
  logic [5:0]    lo;
  logic [6:0]    n;
  logic [511:0]  rsp_d;
  logic [1023:0] acc_new;
  logic [7:0]    cnt_new;
  always_comb begin
    lo = '0;
    n  = '0;
    for (int i = 63; i >= 0; i--) if (rd_rsp_keep_i[i]) lo = 6'(i);
    for (int i = 0; i < 64; i++) n = n + 7'(rd_rsp_keep_i[i]);
    for (int i = 0; i < 64; i++) rsp_d[8*i +: 8] = rd_rsp_keep_i[i] ? rd_rsp_data_i[8*i +: 8] : 8'd0;
    acc_new = acc_q | ({512'd0, rsp_d >> {lo, 3'b000}} << {cnt_q, 3'b000});
    cnt_new = 8'(cnt_q) + 8'(n);
  end

  // ---------------------------------------------------------------- ring
  logic [519:0]  sf_mem [SF_BEATS];
  logic [AW:0]   wr_q, cm_q, rd_q;
  logic [IW:0]   iw_q, ir_q;
  logic          sf_room, info_full, sf_we, ret_full, ret_empty;
  assign info_full = (iw_q - ir_q) == (IW+1)'(NINFO);
  assign sf_room   = (wr_q - rd_q) != (AW+1)'(SF_BEATS) && !(o_cm_q && (info_full || ret_full));
  assign sf_we     = o_valid_q && sf_room;
  always_ff @(posedge clk_i) if (sf_we) sf_mem[wr_q[AW-1:0]] <= {o_last_q, o_cnt_q, o_data_q};

  logic [127+17+32:0] info_mem [NINFO];
  always_ff @(posedge clk_i) if (sf_we && o_cm_q) info_mem[iw_q[IW-1:0]] <= {eth_q, total_q, first_len_q};

  logic o_free, rsp_go, final_beat, skip, rsp_err_end;
  assign o_free     = !o_valid_q || sf_room;
  assign rd_rsp_ready_o = state_q == S_RSP && o_free;
  assign rsp_go     = rd_rsp_valid_i && rd_rsp_ready_o;
  assign final_beat = rd_rsp_last_i && last_entry_q;
  // A flushed WQE, a completion, or the entries after a failed one or a
  // reset of the SQ, are not read.
  logic p_stale;
  assign skip       = first_q ? d_flush_i || d_cpl_i : (fl_q || err_q || p_stale);
  assign rsp_err_end = rd_rsp_err_i || err_q;

  // A new WQE waits while the last one's committing beat (which stores its
  // eth / lengths from the registers below) has not been written.
  logic wait_cm;
  assign wait_cm    = first_q && o_valid_q && o_cm_q;

  // An entry is read only when the ring has room for every beat its
  // response can store (the accumulator's bytes, the entry's, and a beat
  // waiting in o_*), and a last entry only with an info and a retire slot
  // for its commit: nothing else writes the ring meanwhile, so the response
  // is taken at one beat per cycle. Every DMA reader shares kite_pcie_rd's
  // in-order response stream: a response held here (a MAC that takes
  // nothing, the ring full) would hold the other port's reads, the RX
  // path's WQE reads and the firmware's.
  //
  // A read request carries 16 bits of length: an entry of 65,536 bytes
  // (MAX_TSO_SIZE in one entry, the only longer one the queue manager
  // passes) is read as two 32 KiB halves, the entry taken with the second.
  logic [12:0] rd_need, sf_used;
  logic [AW:0] sf_fill;   // modulo the pointers' width, then widened
  logic        rd_room, big, half_q, d_go;
  assign big     = d_sge_len_i[16];
  assign rd_need = 13'((18'(cnt_q) + 18'(rd_len_o) + 18'd63) >> 6) + 13'(o_valid_q);
  assign sf_fill = wr_q - rd_q;
  assign sf_used = 13'(sf_fill);
  assign rd_room = sf_used + rd_need <= 13'(SF_BEATS) && !(d_last_i && (info_full || ret_full));
  assign d_ready_o  = state_q == S_REQ && !wait_cm && (skip || rd_ready_i && rd_room && (!big || half_q));
  assign rd_valid_o = state_q == S_REQ && !wait_cm && d_valid_i && !skip && rd_room;
  assign d_go       = d_valid_i && (d_ready_o || rd_valid_o && rd_ready_i);   // an entry taken, or its first half read
  assign rd_fn_o    = d_fn_i;
  assign rd_addr_o  = d_sge_addr_i + (half_q ? 64'h8000 : 64'd0);
  assign rd_len_o   = big ? 16'h8000 : d_sge_len_i[15:0];

  // ---------------------------------------------------------------- retire queue
  // Entry kinds: a committed frame (waits for its verdict), a failed read
  // (then the SQ goes to ERR), a flushed WQE, a completion from the fetch.
  localparam logic [1:0] K_FRAME = 2'd0, K_ERR = 2'd1, K_FLUSH = 2'd2, K_CPL = 2'd3;
  localparam int unsigned REW = 2 + 1 + $clog2(NQ) + 16 + 16 + 17 + 128;
  logic [REW-1:0] ret_mem [RET];
  logic [RW:0]    rw_q, rr_q, vw_q, vr_q;
  logic [RET-1:0] v_mem_q;
  logic           push_frame, push_end, r_pop, gerr_q;
  logic [15:0]    r_seq_q;   // the retire queue's pointer wraps at 2 * RET
  logic [$clog2(NQ)-1:0] gsqn_q;
  logic [1:0]     p_kind;
  assign ret_full   = (rw_q - rr_q) == (RW+1)'(RET);
  assign ret_empty  = rw_q == rr_q;
  assign push_frame = sf_we && o_cm_q;
  assign push_end   = state_q == S_PUSH && !ret_full;
  assign p_kind     = cp_q ? K_CPL : (fl_q || ab_q ? K_FLUSH : (err_q ? K_ERR : K_FRAME));
  always_ff @(posedge clk_i)
    if (push_frame || push_end)
      ret_mem[rw_q[RW-1:0]] <= {push_frame ? K_FRAME : p_kind, sig_q, sqn_q, cqn_q,
                                fl_q && !cp_q ? ci_q : idx_q, total_q, eth_q};

  // Stale entries (see SQ reset above): each entry's SQ in flip-flops, so a
  // reset marks all of that SQ's at once (entries outside the queue too;
  // a push sets its own mark). g_stale_q marks the WQE being gathered.
  logic [RET-1:0]        stale_q;
  logic [$clog2(NQ)-1:0] ret_sqn_q [RET];
  logic                  g_stale_q;
  assign p_stale = g_stale_q || (sq_rst_i && sq_rst_sqn_i == sqn_q);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stale_q   <= '0;
      g_stale_q <= 1'b0;
      for (int i = 0; i < RET; i++) ret_sqn_q[i] <= '0;
    end else begin
      // A new WQE: stale from the queue, or by a reset in this cycle.
      if (state_q == S_REQ && first_q && d_go)
        g_stale_q <= d_stale_i || (sq_rst_i && sq_rst_sqn_i == d_sqn_i);
      else if (p_stale) g_stale_q <= 1'b1;
      for (int i = 0; i < RET; i++)
        if (sq_rst_i && ret_sqn_q[i] == sq_rst_sqn_i) stale_q[i] <= 1'b1;
      if (push_frame || push_end) begin
        stale_q[rw_q[RW-1:0]]   <= p_stale;
        ret_sqn_q[rw_q[RW-1:0]] <= sqn_q;
      end
    end
  end

  logic [1:0]            h_kind;
  logic                  h_sig, h_ok, h_v, h_go;
  logic [$clog2(NQ)-1:0] h_sqn;
  logic [15:0]           h_cqn, h_idx;
  logic [16:0]           h_total;
  logic [127:0]          h_eth;
  assign {h_kind, h_sig, h_sqn, h_cqn, h_idx, h_total, h_eth} = ret_mem[rr_q[RW-1:0]];
  logic h_stale;
  assign h_stale = stale_q[rr_q[RW-1:0]];
  assign h_v  = vw_q != vr_q;
  assign h_ok = v_mem_q[vr_q[RW-1:0]];
  // A taken frame retires with its SQ counter event: it waits for room.
  assign h_go = !ret_empty && !gerr_q && (h_kind != K_FRAME || h_v && (!h_ok || h_stale || st_room_i));

  // kite_pkg::cqe_t as bytes (see kite_rx_dma).
  logic [255:0] cqe;
  always_comb begin
    cqe = '0;
    cqe[95:64]   = 32'(h_sqn);
    cqe[143:128] = h_idx;
    if (h_kind == K_FLUSH) begin
      cqe[151:144] = 8'(kite_pkg::CQE_OPCODE_ERROR);
      cqe[159:152] = 8'(kite_pkg::CQE_STATUS_WR_FLUSH_ERR);
    end else if (h_kind == K_CPL) begin
      cqe[151:144] = h_eth[7:0];
      cqe[159:152] = h_eth[15:8];
      cqe[223:192] = h_eth[47:16];
      // Flushes carry no opcode (the model's QueueEngine::flush).
      if (h_eth[15:8] != 8'(kite_pkg::CQE_STATUS_WR_FLUSH_ERR)) cqe[175:168] = 8'(kite_pkg::WQE_OPCODE_ETH_TX);
    end else begin
      cqe[175:168] = 8'(kite_pkg::WQE_OPCODE_ETH_TX);
      if (h_kind == K_ERR) begin
        cqe[151:144] = 8'(kite_pkg::CQE_OPCODE_ERROR);
        cqe[159:152] = 8'(kite_pkg::CQE_STATUS_LOC_PROT_ERR);
        cqe[223:192] = TXE_DMA;
      end else if (!h_ok) begin
        cqe[151:144] = 8'(kite_pkg::CQE_OPCODE_ERROR);
        cqe[159:152] = 8'(kite_pkg::CQE_STATUS_LOC_LEN_ERR);
        cqe[223:192] = TXE_LSO;
      end else begin
        cqe[31:0]    = 32'(h_total);
        cqe[151:144] = 8'(kite_pkg::CQE_OPCODE_ETH_TX);
        cqe[159:152] = 8'(kite_pkg::CQE_STATUS_SUCCESS);
      end
    end
  end
  // Every entry completes but a taken frame of an unsignaled WQE, and the
  // entries of a reset SQ.
  logic h_cqe;
  assign h_cqe        = !h_stale && (h_kind != K_FRAME || !h_ok || h_sig);
  assign cqe_valid_o  = h_go && h_cqe;
  assign cqe_cqn_o    = h_cqn;
  assign cqe_data_o   = cqe;
  assign r_pop        = h_go && (!h_cqe || cqe_ready_i);
  assign gerr_valid_o = gerr_q;
  assign gerr_sqn_o   = gsqn_q;
  assign dma_err_o    = state_q == S_END && err_q && !fl_q && !ab_q && !o_valid_q;
  assign lso_rej_o    = r_pop && h_kind == K_FRAME && !h_ok;
  assign st_valid_o   = r_pop && h_kind == K_FRAME && h_ok && !h_stale;
  assign st_sqn_o     = h_sqn;
  assign st_total_o   = h_total;
  assign st_eth_o     = h_eth;
  assign r_seq_o      = r_seq_q;

  assign rd_act_o = state_q == S_RSP || (state_q == S_REQ && !first_q);
  assign rd_sqn_o = sqn_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rw_q    <= '0;
      rr_q    <= '0;
      r_seq_q <= '0;
      vw_q    <= '0;
      vr_q    <= '0;
      v_mem_q <= '0;
      gerr_q  <= 1'b0;
      gsqn_q  <= '0;
    end else begin
      if (push_frame || push_end) rw_q <= rw_q + 1'b1;
      // At most RET frames wait in the queue, so verdicts never overflow.
      if (v_valid_i) begin
        v_mem_q[vw_q[RW-1:0]] <= v_ok_i;
        vw_q <= vw_q + 1'b1;
      end
      if (r_pop) begin
        rr_q <= rr_q + 1'b1;
        r_seq_q <= r_seq_q + 16'd1;
        if (h_kind == K_FRAME) vr_q <= vr_q + 1'b1;
        if (h_kind == K_ERR && !h_stale) begin
          gerr_q <= 1'b1;
          gsqn_q <= h_sqn;
        end
      end
      if (gerr_q && gerr_ready_i) gerr_q <= 1'b0;
    end
  end

  function automatic logic [6:0] cnt_of(input logic [7:0] c);
    cnt_of = c >= 8'd64 ? 7'd64 : c[6:0];
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= S_REQ;
      first_q      <= 1'b1;
      half_q       <= 1'b0;
      last_entry_q <= 1'b0;
      err_q        <= 1'b0;
      fl_q         <= 1'b0;
      cp_q         <= 1'b0;
      ab_q         <= 1'b0;
      sig_q        <= 1'b0;
      sqn_q        <= '0;
      cqn_q        <= '0;
      idx_q        <= '0;
      ci_q         <= '0;
      eth_q        <= '0;
      total_q      <= '0;
      first_len_q  <= '0;
      acc_q        <= '0;
      cnt_q        <= '0;
      o_valid_q    <= 1'b0;
      o_last_q     <= 1'b0;
      o_cm_q       <= 1'b0;
      o_data_q     <= '0;
      o_cnt_q      <= '0;
      wr_q         <= '0;
      cm_q         <= '0;
      iw_q         <= '0;
    end else begin
      if (sf_we) begin
        o_valid_q <= 1'b0;
        wr_q      <= wr_q + 1'b1;
        if (o_cm_q) begin
          cm_q <= wr_q + 1'b1;
          iw_q <= iw_q + 1'b1;
        end
      end
      unique case (state_q)
        S_REQ: if (d_go) begin
          last_entry_q <= d_last_i && d_ready_o;
          half_q       <= !d_ready_o;
          if (first_q) begin
            sqn_q       <= d_sqn_i;
            cqn_q       <= d_cqn_i;
            idx_q       <= d_wqe_index_i;
            ci_q        <= d_ci_i;
            sig_q       <= d_signaled_i;
            eth_q       <= d_eth_i;
            total_q     <= d_total_i;
            first_len_q <= d_sge_len_i;
            err_q       <= 1'b0;
            fl_q        <= d_flush_i || d_cpl_i;
            cp_q        <= d_cpl_i;
            ab_q        <= 1'b0;
          end else if (skip && !fl_q && !err_q) begin
            ab_q        <= 1'b1;
          end
          first_q <= d_last_i && d_ready_o;
          if (!skip) state_q <= S_RSP;
          else if (d_last_i) state_q <= S_END;
        end
        S_RSP: if (rsp_go) begin
          if (rd_rsp_err_i) err_q <= 1'b1;
          if (cnt_new >= 8'd64 || final_beat) begin
            o_valid_q <= 1'b1;
            o_data_q  <= acc_new[511:0];
            o_cnt_q   <= cnt_of(cnt_new);
            o_last_q  <= final_beat && cnt_new <= 8'd64;
            o_cm_q    <= final_beat && cnt_new <= 8'd64 && !rsp_err_end;
          end
          if (cnt_new >= 8'd64) begin
            acc_q <= acc_new >> 512;
            cnt_q <= 7'(cnt_new - 8'd64);
          end else begin
            acc_q <= final_beat ? '0 : acc_new;
            cnt_q <= final_beat ? '0 : cnt_new[6:0];
          end
          if (rd_rsp_last_i) begin
            if (!last_entry_q) state_q <= S_REQ;
            else if (rsp_err_end) state_q <= S_END;
            else if (cnt_new > 8'd64) state_q <= S_FLUSH;
            else state_q <= S_REQ;
          end
        end
        S_FLUSH: if (o_free) begin
          o_valid_q <= 1'b1;
          o_data_q  <= acc_q[511:0];
          o_cnt_q   <= cnt_q;
          o_last_q  <= 1'b1;
          o_cm_q    <= 1'b1;
          acc_q     <= '0;
          cnt_q     <= '0;
          state_q   <= S_REQ;
        end
        // A failed or flushed WQE: once its last beat is stored, the failed
        // frame's beats are given back.
        S_END: if (!o_valid_q) begin
          if (!fl_q) wr_q <= cm_q;
          acc_q   <= '0;
          cnt_q   <= '0;
          state_q <= S_PUSH;
        end
        // The entry joins the retire queue; after a failed read the next
        // WQE waits until the SQ is in ERR (what the queue manager hands on
        // then is flushed).
        S_PUSH: if (!ret_full) state_q <= err_q && !fl_q && !ab_q ? S_GERR : S_REQ;
        S_GERR: if (ret_empty && !gerr_q) state_q <= S_REQ;
        default: state_q <= S_REQ;
      endcase
    end
  end

  // ---------------------------------------------------------------- readout
  // Registered RAM reads into a two-entry output queue, one beat per cycle.
  logic         rv_q, rd_go, pop;
  logic [519:0] rdata_q;
  logic [1:0]   oq_n_q;
  logic [519:0] oq_q [2];
  assign pop   = m_valid_o && m_ready_i;
  assign rd_go = rd_q != cm_q && (2'(oq_n_q) + 2'(rv_q) - 2'(pop)) < 2'd2;
  always_ff @(posedge clk_i) if (rd_go) rdata_q <= sf_mem[rd_q[AW-1:0]];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q   <= '0;
      rv_q   <= 1'b0;
      oq_n_q <= '0;
      ir_q   <= '0;
      oq_q[0] <= '0;
      oq_q[1] <= '0;
    end else begin
      rv_q <= rd_go;
      if (rd_go) rd_q <= rd_q + 1'b1;
      if (pop && m_last_o) ir_q <= ir_q + 1'b1;
      // Queue: entry 0 is the head; a read lands behind what stays.
      if (pop) oq_q[0] <= oq_q[1];
      if (rv_q) begin
        if (oq_n_q - 2'(pop) == 2'd0) oq_q[0] <= rdata_q;
        else oq_q[1] <= rdata_q;
      end
      oq_n_q <= oq_n_q + 2'(rv_q) - 2'(pop);
    end
  end

  function automatic logic [63:0] keep_of(input logic [6:0] c);
    keep_of = c >= 7'd64 ? '1 : (64'd1 << c) - 64'd1;
  endfunction
  logic [127:0] i_eth;
  logic [16:0]  i_total;
  logic [31:0]  i_first;
  assign {i_eth, i_total, i_first} = info_mem[ir_q[IW-1:0]];
  assign m_valid_o     = oq_n_q != 2'd0;
  assign m_data_o      = oq_q[0][511:0];
  assign m_keep_o      = keep_of(oq_q[0][518:512]);
  assign m_last_o      = oq_q[0][519];
  assign m_eth_o       = i_eth;
  assign m_len_o       = 32'(i_total);
  assign m_first_len_o = i_first;

endmodule : kite_card_txg
