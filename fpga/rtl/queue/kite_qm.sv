// Queue manager: SQ/RQ contexts, doorbell checks, round-robin SQ scheduling
// and the flush of a queue entering ERR, as the model's QueueEngine
// (sq_doorbell / rq_doorbell / next_sq / wq_error / wq_ctx_written,
// fpga/model/queue/queue.cpp) and the context checks of Doorbells::write.
//
// Contexts (NQ SQs and NQ RQs, queue number 0 never valid) live in on-chip
// RAM, split by writer so each RAM has one write port: static fields (written
// by the firmware context port only), producer index (doorbells), consumer
// index (descriptor fetch for SQs, the RX path for RQs). Valid, state, busy
// and "may have work" are one flop per queue.
//
// Doorbell (from kite_doorbell, one per cycle): the context and consumer
// index are read in the cycle the event arrives and checked in the next:
// owner function, page binding, state RDY and index - ci <= ring size. A
// consumer-index write or an SQ error in the checking cycle is seen by the
// check (order: completion first, then doorbell). Accepted: pi := index and
// the SQ may be picked; dropped: drop_o for the doorbell counter.
//
// Scheduler: a rotating-priority pick over SQs that are valid, RDY, may have
// work and have fewer than SQ_DEPTH WQEs in flight, and whose port holds
// fewer than PORT_TAGS fetch tags: one pick per cycle, and no SQ is picked
// twice while another stays eligible. The fetch hands a WQE on only when its
// port's descriptor queue has room, so a port whose MAC takes nothing keeps
// its WQEs in their tags; the cap leaves the other ports tags to read with. A pick reads WQE
// ci + (WQEs in flight); one that finds no WQE there (work already taken) is
// dropped and the SQ leaves the candidates until a doorbell or a finished
// WQE. The fetch finishes the WQEs of one SQ in ring order (done_*), so
// ci + in-flight is the next index to read at every cycle: a finish moves
// one from the count into ci.
//
// Firmware context port: writes a whole context. RST, or RDY from RST,
// restarts pi = ci = 0; ERR from another state flushes (model's
// wq_ctx_written). It waits until the doorbell pipeline is empty, the queue
// has no WQE in flight and no flush runs; doorbells and picks are held
// meanwhile. So that this wait is short, an SQ written with WQEs in the
// fetch has them rewound (rew_*): the fetch gives back each of them that has
// not left its checker, unread by the gather and with no CQE (done_rew_i),
// and ci stays at the first of them, so they are fetched again, flushed or
// dropped by what the write does. (The rest wait for room in their port's
// descriptor queue, which a port whose MAC takes nothing never makes.)
// A write to an SQ whose flush is parked (below) waits for the flush unless
// it resets or disables the SQ, which drops the parked flush: WQEs of a
// queue moved to RST are removed with no completion (IB's Reset state).
//
// Flush: after a fetch error (done_err_i) or a firmware ERR, every posted
// WQE ci..pi-1 completes with ERROR / WR_FLUSH_ERR on fl_*, then ci := pi.
// An SQ's flush CQEs follow the WQEs already handed to its port
// (port_h_seq_i counts them, port_r_seq_i those retired): the SQ's own are
// among them and complete first. A flush that would wait for them parks in
// its port's FIFO with the count to wait for and the engine moves on; a
// parked flush runs once its port has retired that many, so a port whose MAC
// takes nothing holds only its own SQs' flushes. The FIFOs hold every SQ
// (NQ entries each; a dropped flush's entry is skipped when it comes up).
// A fetch error with younger WQEs of the SQ still in the fetch moves the SQ
// to ERR at once; those complete as flushed (err_o tells the fetch and the
// gather) and the flush of the rest starts when the last of them finishes.
//
// Gather error (gerr_*, the card's TX gather after a failed data read, whose
// WQE has finished here already): a valid SQ not in ERR goes to ERR at once
// (no more picks, doorbells dropped); the flush follows now, or, while one
// of its WQEs is in the fetch, when that one finishes (it reaches the gather,
// which completes it with WR_FLUSH_ERR: err_sqn_i / err_o). Flushes after a
// fetch or gather error end with ev_valid_o (the model's wq_error event:
// WQ_ERROR for ev_fn_o's async EQ).
module kite_qm #(
  parameter int unsigned NQ    = 512,
  parameter int unsigned FN_W  = 5,
  parameter int unsigned NPORT = 2,
  parameter int unsigned NTAG  = 128,   // fetch tags (credit for picks)
  parameter int unsigned SQ_DEPTH = 16   // WQEs of one SQ in flight, 1..NTAG
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,

  // Firmware context write.
  input  logic                      cfg_valid_i,
  output logic                      cfg_ready_o,
  input  logic                      cfg_rq_i,
  input  logic [$clog2(NQ)-1:0]     cfg_qn_i,
  input  logic                      cfg_en_i,        // context valid
  input  logic [1:0]                cfg_state_i,     // kite_pkg::wq_state_e
  input  logic [FN_W-1:0]           cfg_fn_i,
  input  logic [7:0]                cfg_page_i,
  input  logic [3:0]                cfg_log_size_i,
  input  logic [3:0]                cfg_log_stride_i,
  input  logic [15:0]               cfg_cqn_i,
  input  logic [$clog2(NPORT)-1:0]  cfg_port_i,
  input  logic [63:0]               cfg_base_i,
  output logic                      db_stall_o,

  // Doorbells from kite_doorbell.
  input  logic                      wq_valid_i,
  input  logic                      wq_rq_i,
  input  logic [$clog2(NQ)-1:0]     wq_qn_i,
  input  logic [15:0]               wq_idx_i,
  input  logic [FN_W-1:0]           wq_fn_i,
  input  logic [7:0]                wq_page_i,
  // Verdict, two cycles after the event.
  output logic                      acc_valid_o,     // accepted: rq, qn, new pi
  output logic                      acc_rq_o,
  output logic [$clog2(NQ)-1:0]     acc_qn_o,
  output logic [15:0]               acc_pi_o,
  output logic                      drop_o,
  output logic [FN_W-1:0]           drop_fn_o,

  // RQ consumer index from the RX path.
  input  logic                      rqci_valid_i,
  output logic                      rqci_ready_o,
  input  logic [$clog2(NQ)-1:0]     rqci_qn_i,
  input  logic [15:0]               rqci_ci_i,

  // Pick to the descriptor fetch (always taken: credit from fetch_free_i).
  input  logic [$clog2(NTAG+1)-1:0] fetch_free_i,
  // Per port: it holds fewer than PORT_TAGS tags (kite_qm_fetch), fewer
  // than PORT_TAGS - 1.
  input  logic [NPORT-1:0]          fetch_port_lt_i,
  input  logic [NPORT-1:0]          fetch_port_lt1_i,
  output logic                      pick_valid_o,
  output logic [$clog2(NQ)-1:0]     pick_sqn_o,
  output logic [FN_W-1:0]           pick_fn_o,
  output logic [$clog2(NPORT)-1:0]  pick_port_o,
  output logic [15:0]               pick_cqn_o,
  output logic [15:0]               pick_ci_o,
  output logic [63:0]               pick_addr_o,
  output logic [3:0]                pick_log_stride_o,

  // WQE finished by the fetch: ci := done_ci_i; done_err_i moves the SQ to
  // ERR and flushes it. done_err_i is high from the cycle the error waits
  // (before the handshake), so no pick of the SQ starts meanwhile.
  input  logic                      done_valid_i,
  output logic                      done_ready_o,
  input  logic [$clog2(NQ)-1:0]     done_sqn_i,
  input  logic [15:0]               done_ci_i,
  input  logic                      done_err_i,
  input  logic [15:0]               done_cqn_i,
  input  logic                      done_rew_i,      // given back: ci stays
  // A firmware write waits for this SQ's WQEs in the fetch: give them back.
  output logic                      rew_valid_o,
  output logic [$clog2(NQ)-1:0]     rew_sqn_o,

  // Flush completions.
  output logic                      fl_valid_o,
  input  logic                      fl_ready_i,
  output logic                      fl_rq_o,
  output logic [$clog2(NQ)-1:0]     fl_qn_o,
  output logic [15:0]               fl_cqn_o,
  output logic [15:0]               fl_idx_o,
  output logic [$clog2(NPORT)-1:0]  fl_port_o,       // an SQ's port

  // Gather error: SQ to ERR and flush (see above).
  input  logic                      gerr_valid_i,
  output logic                      gerr_ready_o,
  input  logic [$clog2(NQ)-1:0]     gerr_sqn_i,
  // WQEs handed to each port's descriptor queue, and retired by its gather.
  input  logic [NPORT*16-1:0]       port_h_seq_i,
  input  logic [NPORT*16-1:0]       port_r_seq_i,
  // SQ err_sqn_i is in ERR.
  input  logic [$clog2(NQ)-1:0]     err_sqn_i,
  output logic                      err_o,
  output logic [NQ-1:0]             sq_err_o,        // every SQ's ERR flag
  // An SQ went to ERR by an error: pulse when its flush has ended.
  output logic                      ev_valid_o,
  output logic [$clog2(NQ)-1:0]     ev_qn_o,
  output logic [FN_W-1:0]           ev_fn_o
);

  localparam int unsigned QN_W = $clog2(NQ);
  localparam int unsigned PW   = $clog2(NPORT);
  localparam int unsigned CW   = $clog2(NTAG + 1);
  localparam int unsigned NW   = $clog2(SQ_DEPTH + 1);   // in-flight count
  localparam logic [1:0] ST_RST = 2'(kite_pkg::WQ_STATE_RST);
  localparam logic [1:0] ST_RDY = 2'(kite_pkg::WQ_STATE_RDY);
  localparam logic [1:0] ST_ERR = 2'(kite_pkg::WQ_STATE_ERR);

  // Static context for the doorbell check: {fn, page, log_size}.
  localparam int unsigned DW = FN_W + 8 + 4;
  // Static SQ context for the pick: {base, log_stride, log_size, fn, cqn, port}.
  localparam int unsigned KW = 64 + 4 + 4 + FN_W + 16 + PW;

  logic [DW-1:0] sq_db_mem [NQ];
  logic [DW-1:0] rq_db_mem [NQ];
  logic [KW-1:0] sq_pk_mem [NQ];
  logic [15:0]   sq_pi_mem [NQ];
  logic [15:0]   sq_ci_mem [NQ];
  logic [15:0]   rq_pi_mem [NQ];
  logic [15:0]   rq_ci_mem [NQ];

  // State as two flags (RST: neither): one-bit reads, decoded writes.
  logic [NQ-1:0] sq_en_q, rq_en_q, sq_busy_q, sq_act_q;
  logic [NQ-1:0] sq_rdy_q, sq_err_q, rq_rdy_q, rq_err_q;
  logic [NQ-1:0] sq_fp_q;    // flush when the last WQE in the fetch finishes
  logic [PW-1:0] sq_port_q [NQ];
  // WQEs picked and not finished (P1 and the fetch).
  logic [NW-1:0] sq_nf_q [NQ];

  // ---------------------------------------------------------------- flush FSM
  typedef enum logic [2:0] {FL_IDLE, FL_RD, FL_LAT, FL_RUN, FL_END} fl_e;
  fl_e           fl_q;
  logic          fl_rq_q;
  logic [QN_W-1:0] fl_qn_q;
  logic [15:0]   fl_cqn_q, fl_idx_q, fl_end_q;
  logic          fl_idle, fl_ev_q;
  logic [FN_W-1:0] fl_fn_q;
  logic [PW-1:0]   fl_port_q;
  logic          fl_pop_q;     // a parked flush: its port has retired enough
  logic          fl_wait_q;    // run here, waiting for the port (its FIFO full)
  logic [15:0]   fl_snap_q;
  assign fl_idle = fl_q == FL_IDLE;

  // ---------------------------------------------------------------- parked flushes
  // Per port, a FIFO of {SQ, event, port_h_seq to wait for}; an SQ's live
  // entry is named by sq_pk (flag) and pk_id_mem ({port, write pointer}).
  localparam int unsigned EW = QN_W + 1 + 16;
  logic [NQ-1:0]   sq_pk_q;
  logic [PW+QN_W-1:0] pk_id_mem [NQ];
  logic [QN_W:0]   pq_wr_q [NPORT];
  logic [QN_W:0]   pq_rd_q [NPORT];
  logic [EW-1:0]   pq_head [NPORT];
  logic [NPORT-1:0] pq_full, pq_live, pq_go, pq_pop;
  logic [PW-1:0]   pq_sel;
  logic            pop_go, park;
  logic [QN_W-1:0] pq_sel_qn;
  logic [15:0]     h_seq [NPORT];
  logic [15:0]     r_seq [NPORT];

  // Whether a port has retired every WQE counted in snap (a count behind
  // the port's by 2^15 or less, as the tags and queues bound it).
  function automatic logic seq_reached(input logic [15:0] snap, input logic [15:0] r);
    logic [15:0] left;
    begin
      left = snap - r;
      seq_reached = left == '0 || left[15];
    end
  endfunction

  // ---------------------------------------------------------------- handshakes
  logic c_valid_q;   // doorbell in the check stage
  logic cfg_go, done_go, rqci_go;
  logic cfg_restart, cfg_flush;
  logic gerr_go, gerr_set, gerr_now, done_fl;
  logic [1:0] cfg_old_st;

  assign db_stall_o = cfg_valid_i;
  assign cfg_old_st = cfg_rq_i ? {rq_err_q[cfg_qn_i], rq_rdy_q[cfg_qn_i]} :
                                 {sq_err_q[cfg_qn_i], sq_rdy_q[cfg_qn_i]};
  assign cfg_ready_o = !wq_valid_i && !c_valid_q && fl_idle && !done_valid_i && !gerr_valid_i &&
                       (cfg_rq_i || (!sq_busy_q[cfg_qn_i] &&
                                     !(sq_pk_q[cfg_qn_i] && cfg_en_i && cfg_state_i != ST_RST)));
  // Any WQE in flight: busy; this done is the SQ's last one in flight.
  logic done_last;
  logic null_done;
  assign cfg_go = cfg_valid_i && cfg_ready_o;
  // An invalid context is written as is (the model ignores it: wq_ctx_written).
  assign cfg_restart = cfg_en_i && (cfg_state_i == ST_RST || (cfg_state_i == ST_RDY && cfg_old_st == ST_RST));
  assign cfg_flush = cfg_en_i && cfg_state_i == ST_ERR && cfg_old_st != ST_ERR;

  assign gerr_ready_o = fl_idle;
  assign gerr_go  = gerr_valid_i && gerr_ready_o;
  assign gerr_set = gerr_go && sq_en_q[gerr_sqn_i] && !sq_err_q[gerr_sqn_i];
  assign done_fl  = (done_err_i || sq_fp_q[done_sqn_i]) && done_last;   // this done starts a flush
  assign done_ready_o = fl_q != FL_END && (!done_fl || (fl_idle && !gerr_go));
  assign done_go = done_valid_i && done_ready_o;
  assign err_o   = sq_err_q[err_sqn_i];
  assign sq_err_o = sq_err_q;
  assign rqci_ready_o = !cfg_valid_i && fl_q != FL_END;
  assign rqci_go = rqci_valid_i && rqci_ready_o;
  assign rew_valid_o = cfg_valid_i && !cfg_rq_i && sq_busy_q[cfg_qn_i];
  assign rew_sqn_o   = cfg_qn_i;

  // Consumer-index write ports (one writer per cycle by the handshakes above).
  logic            sq_ci_we, rq_ci_we;
  logic [QN_W-1:0] sq_ci_wa, rq_ci_wa;
  logic [15:0]     sq_ci_wd, rq_ci_wd;
  always_comb begin
    sq_ci_we = 1'b0;
    sq_ci_wa = done_sqn_i;
    sq_ci_wd = done_ci_i;
    rq_ci_we = 1'b0;
    rq_ci_wa = rqci_qn_i;
    rq_ci_wd = rqci_ci_i;
    if (cfg_go && cfg_restart) begin
      if (cfg_rq_i) begin
        rq_ci_we = 1'b1;
        rq_ci_wa = cfg_qn_i;
        rq_ci_wd = '0;
      end else begin
        sq_ci_we = 1'b1;
        sq_ci_wa = cfg_qn_i;
        sq_ci_wd = '0;
      end
    end else if (fl_q == FL_END) begin
      if (fl_rq_q) begin
        rq_ci_we = 1'b1;
        rq_ci_wa = fl_qn_q;
        rq_ci_wd = fl_end_q;
      end else begin
        sq_ci_we = 1'b1;
        sq_ci_wa = fl_qn_q;
        sq_ci_wd = fl_end_q;
      end
    end else begin
      sq_ci_we = done_go && !done_rew_i;
      rq_ci_we = rqci_go;
    end
  end

  always_ff @(posedge clk_i) begin
    if (sq_ci_we) sq_ci_mem[sq_ci_wa] <= sq_ci_wd;
    if (rq_ci_we) rq_ci_mem[rq_ci_wa] <= rq_ci_wd;
    if (cfg_go && !cfg_rq_i) begin
      sq_db_mem[cfg_qn_i] <= {cfg_fn_i, cfg_page_i, cfg_log_size_i};
      sq_pk_mem[cfg_qn_i] <= {cfg_base_i, cfg_log_stride_i, cfg_log_size_i, cfg_fn_i, cfg_cqn_i, cfg_port_i};
    end
    if (cfg_go && cfg_rq_i) rq_db_mem[cfg_qn_i] <= {cfg_fn_i, cfg_page_i, cfg_log_size_i};
  end

  // ---------------------------------------------------------------- doorbell check
  logic            c_rq_q;
  logic [QN_W-1:0] c_qn_q;
  logic [15:0]     c_idx_q;
  logic [FN_W-1:0] c_fn_q;
  logic [7:0]      c_page_q;
  logic [DW-1:0]   c_sq_db, c_rq_db;
  logic [15:0]     c_sq_ci, c_rq_ci;
  logic            c_fwd_q;       // a ci write to this queue in the read cycle
  logic [15:0]     c_fwd_ci_q;

  always_ff @(posedge clk_i) begin
    c_sq_db <= sq_db_mem[wq_qn_i];
    c_rq_db <= rq_db_mem[wq_qn_i];
    c_sq_ci <= sq_ci_mem[wq_qn_i];
    c_rq_ci <= rq_ci_mem[wq_qn_i];
    c_rq_q   <= wq_rq_i;
    c_qn_q   <= wq_qn_i;
    c_idx_q  <= wq_idx_i;
    c_fn_q   <= wq_fn_i;
    c_page_q <= wq_page_i;
    c_fwd_q  <= wq_rq_i ? (rq_ci_we && rq_ci_wa == wq_qn_i) : (sq_ci_we && sq_ci_wa == wq_qn_i);
    c_fwd_ci_q <= wq_rq_i ? rq_ci_wd : sq_ci_wd;
  end

  logic [DW-1:0]   c_db;
  logic [15:0]     c_ci;
  logic            c_en, c_own, c_rdy, c_win, c_ok, c_fwd_dn, c_fwd_rq;
  logic [1:0]      c_st;
  logic [3:0]      c_lsz;
  // pi - ci within the ring, for the ci read and for each ci that may be
  // written in this cycle. With a doorbell here no firmware write is taken
  // (cfg_ready_o), so that write is a WQE's completion, the RQ's consumer
  // index, or a flush's end: that one's queue is in ERR, where the state
  // check fails a doorbell anyway. Whether one is taken comes late (the
  // completion's handshake), so it selects between the checks, not their
  // input.
  function automatic logic in_win(logic [15:0] idx, logic [15:0] ci, logic [3:0] lsz);
    logic [15:0] diff;
    begin
      diff = idx - ci;
      in_win = {1'b0, diff} <= (17'd1 << lsz);
    end
  endfunction
  always_comb begin
    c_db = c_rq_q ? c_rq_db : c_sq_db;
    c_ci = c_rq_q ? c_rq_ci : c_sq_ci;
    if (c_fwd_q) c_ci = c_fwd_ci_q;
    c_fwd_dn  = !c_rq_q && done_go && !done_rew_i && done_sqn_i == c_qn_q;
    c_fwd_rq  = c_rq_q && rqci_go && rqci_qn_i == c_qn_q;
    c_en  = c_rq_q ? rq_en_q[c_qn_q] : sq_en_q[c_qn_q];
    c_st  = c_rq_q ? {rq_err_q[c_qn_q], rq_rdy_q[c_qn_q]} : {sq_err_q[c_qn_q], sq_rdy_q[c_qn_q]};
    c_lsz = c_db[3:0];
    c_own = c_en && c_db[DW-1 -: FN_W] == c_fn_q && c_db[4 +: 8] == c_page_q;
    c_rdy = c_st == ST_RDY && !(!c_rq_q && done_go && done_err_i && done_sqn_i == c_qn_q) &&
            !(!c_rq_q && gerr_set && gerr_sqn_i == c_qn_q);
    c_win = c_fwd_dn ? in_win(c_idx_q, done_ci_i, c_lsz) :
            c_fwd_rq ? in_win(c_idx_q, rqci_ci_i, c_lsz) : in_win(c_idx_q, c_ci, c_lsz);
    c_ok  = c_valid_q && c_own && c_rdy && c_win;
  end

  always_ff @(posedge clk_i) begin
    if (c_ok && !c_rq_q) sq_pi_mem[c_qn_q] <= c_idx_q;
    else if (cfg_go && !cfg_rq_i && cfg_restart) sq_pi_mem[cfg_qn_i] <= '0;
    if (c_ok && c_rq_q) rq_pi_mem[c_qn_q] <= c_idx_q;
    else if (cfg_go && cfg_rq_i && cfg_restart) rq_pi_mem[cfg_qn_i] <= '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      c_valid_q   <= 1'b0;
      acc_valid_o <= 1'b0;
      drop_o      <= 1'b0;
    end else begin
      c_valid_q   <= wq_valid_i;
      acc_valid_o <= c_ok;
      drop_o      <= c_valid_q && !c_ok;
    end
  end
  always_ff @(posedge clk_i) begin
    acc_rq_o  <= c_rq_q;
    acc_qn_o  <= c_qn_q;
    acc_pi_o  <= c_idx_q;
    drop_fn_o <= c_fn_q;
  end

  // ---------------------------------------------------------------- scheduler
  logic [NQ-1:0]   elig;
  logic            sel_any, sel_go;
  logic [QN_W-1:0] sel;
  (* fsm_encoding = "none" *) logic [QN_W-1:0] rr_q;  // not an FSM (yosys would extract it)
  logic            p1_valid_q;
  logic [QN_W-1:0] p1_sqn_q;
  logic [NW-1:0]   p1_nf_q;     // WQEs of the SQ in flight before this pick

  // First eligible after rr_q, else the first eligible (kite_rr_pick: trees,
  // not loops whose carried choice is a chain).
  // Ports under their tag cap, counting the pick in P1 (it takes a tag
  // next) by the bound, not by an adder before the pick: the fetch gives
  // both compares as registers (a compare of its count here was two LUTs
  // and a carry chain at the head of the pick's path).
  logic [NPORT-1:0] port_ok;
  always_comb
    for (int p = 0; p < NPORT; p++)
      port_ok[p] = p1_valid_q && pick_port_o == PW'(p) ? fetch_port_lt1_i[p] : fetch_port_lt_i[p];
  for (genvar g = 0; g < NQ; g++) begin : g_elig
    assign elig[g] = sq_act_q[g] && sq_en_q[g] && sq_rdy_q[g] && sq_nf_q[g] != NW'(SQ_DEPTH) &&
                     port_ok[sq_port_q[g]];
  end
  kite_rr_pick #(.N(NQ)) u_sched (.req_i(elig), .last_i(rr_q), .valid_o(sel_any), .idx_o(sel));

  // Pick only with a free fetch tag for it (the pick in P1 may take one),
  // never while the flush reads through the pick port or firmware writes.
  // Nor while a fetch error is reported: its SQ goes to ERR in this cycle.
  assign sel_go = sel_any && !cfg_valid_i && !gerr_valid_i && fl_q != FL_RD &&
                  !done_err_i && fetch_free_i > CW'(p1_valid_q);

  logic [KW-1:0] p1_pk;
  logic [15:0]   p1_pi, p1_ci, rq_pi_rd, rq_ci_rd;
  logic [QN_W-1:0] pk_addr;
  assign pk_addr = fl_q == FL_RD ? fl_qn_q : sel;
  always_ff @(posedge clk_i) begin
    p1_pk    <= sq_pk_mem[pk_addr];
    p1_pi    <= sq_pi_mem[pk_addr];
    p1_ci    <= sq_ci_mem[pk_addr];
    rq_pi_rd <= rq_pi_mem[fl_qn_q];
    rq_ci_rd <= rq_ci_mem[fl_qn_q];
  end

  logic            p1_fwd_q;     // doorbell wrote this SQ's pi in the read cycle
  logic [15:0]     p1_fwd_pi_q;
  always_ff @(posedge clk_i) begin
    p1_fwd_q    <= c_ok && !c_rq_q && c_qn_q == sel;
    p1_fwd_pi_q <= c_idx_q;
  end

  logic [15:0] p1_pi_eff;
  logic        p1_work;
  logic [63:0] p1_base;
  logic [3:0]  p1_lstr, p1_lsz;
  logic [15:0] p1_slot;
  assign p1_pi_eff = p1_fwd_q ? p1_fwd_pi_q : p1_pi;
  logic [15:0] p1_next;
  assign p1_next   = p1_ci + 16'(p1_nf_q);
  // A pick of an SQ whose fetch error is reported now finds no work: the SQ
  // is in ERR from this cycle (no pick follows, sel_go above).
  logic        p1_kill;
  assign p1_kill   = done_err_i && done_sqn_i == p1_sqn_q;
  assign p1_work   = p1_valid_q && !p1_kill && p1_pi_eff - p1_ci > 16'(p1_nf_q);

  // Flush now unless a WQE of the SQ is still in flight after this cycle
  // (one finishing now, or a pick of it finding no work, counts as gone).
  // The SQ's count is selected first and compared with each number that
  // can go now: the done and the null pick are late, and a subtractor per
  // SQ before the select put them at the head of the flush's path.
  logic [NW-1:0] gerr_nf, done_nf;
  logic          gerr_dn, gerr_nl, gerr_idle;
  assign gerr_nf   = sq_nf_q[gerr_sqn_i];
  assign gerr_dn   = done_go && done_sqn_i == gerr_sqn_i;
  assign gerr_nl   = p1_valid_q && !p1_work && p1_sqn_q == gerr_sqn_i;
  assign gerr_idle = (gerr_nf == NW'(0) && !gerr_dn && !gerr_nl) ||
                     (gerr_nf == NW'(1) && (gerr_dn ^ gerr_nl)) ||
                     (gerr_nf == NW'(2) && gerr_dn && gerr_nl);
  assign gerr_now  = gerr_set && gerr_idle;
  assign null_done = p1_valid_q && !p1_work && p1_sqn_q == done_sqn_i;
  assign done_nf   = sq_nf_q[done_sqn_i];
  assign done_last = null_done ? done_nf == NW'(2) : done_nf == NW'(1);
  assign {p1_base, p1_lstr, p1_lsz, pick_fn_o, pick_cqn_o, pick_port_o} = p1_pk;
  assign p1_slot = p1_next & ((16'd1 << p1_lsz) - 16'd1);

  assign pick_valid_o      = p1_work;
  assign pick_sqn_o        = p1_sqn_q;
  assign pick_ci_o         = p1_next;
  assign pick_log_stride_o = p1_lstr;
  assign pick_addr_o       = p1_base + (64'(p1_slot) << p1_lstr);

  // ---------------------------------------------------------------- queue flags
  // One small process per queue (decoded indices; a variable-index write to
  // a 512-bit vector costs a shifter per write). Clears come before sets: a
  // doorbell accepted in a null pick's cycle keeps the SQ a candidate.
  for (genvar g = 0; g < NQ; g++) begin : g_flags
    logic sq_en, rq_en, sq_act, sq_rdy, sq_err, rq_rdy, rq_err, sq_fp, sq_pk;
    logic [PW-1:0] sq_port;
    logic [NW-1:0] nf;
    logic nx_zero;
    logic cfg_sq, cfg_rq, done_q, null_q, sel_q, acc_q, gerr_q;
    assign gerr_q = gerr_set && gerr_sqn_i == QN_W'(g);
    assign cfg_sq = cfg_go && !cfg_rq_i && cfg_qn_i == QN_W'(g);
    assign cfg_rq = cfg_go && cfg_rq_i && cfg_qn_i == QN_W'(g);
    assign done_q = done_go && done_sqn_i == QN_W'(g);
    assign null_q = p1_valid_q && !p1_work && p1_sqn_q == QN_W'(g);
    assign sel_q  = sel_go && sel == QN_W'(g);
    assign acc_q  = c_ok && !c_rq_q && c_qn_q == QN_W'(g);
    // None in flight after this cycle: the count compared with what
    // leaves now (as gerr_idle), not an adder's result with 0; the done
    // and the null pick are late.
    assign nx_zero = (nf == NW'(0) && !done_q && !null_q) || (nf == NW'(1) && (done_q ^ null_q)) ||
                     (nf == NW'(2) && done_q && null_q);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        {sq_en, rq_en, sq_act, sq_rdy, sq_err, rq_rdy, rq_err, sq_fp, sq_pk} <= '0;
        sq_port <= '0;
        nf <= '0;
      end else begin
        nf <= nf - NW'(done_q) - NW'(null_q) + NW'(sel_q);
        if (null_q) sq_act <= 1'b0;
        if (done_q) begin
          sq_act <= !done_err_i;
          // The flush starts with the last WQE in flight, else waits for it.
          if (nx_zero) sq_fp <= 1'b0;
          else if (done_err_i) sq_fp <= 1'b1;
          if (done_err_i) begin
            sq_rdy <= 1'b0;
            sq_err <= 1'b1;
          end
        end
        if (gerr_q) begin
          sq_rdy <= 1'b0;
          sq_err <= 1'b1;
          sq_act <= 1'b0;
          sq_fp  <= !nx_zero;
        end
        // Parked flush: set in FL_LAT; gone when it starts or the SQ is
        // written (only a reset or disable is taken while parked).
        if (park && fl_qn_q == QN_W'(g)) sq_pk <= 1'b1;
        if (pop_go && pq_sel_qn == QN_W'(g)) sq_pk <= 1'b0;
        if (cfg_sq) begin
          sq_pk  <= 1'b0;
          sq_fp  <= 1'b0;
          sq_port <= cfg_port_i;
          sq_en  <= cfg_en_i;
          sq_rdy <= cfg_state_i == ST_RDY;
          sq_err <= cfg_state_i == ST_ERR;
          sq_act <= cfg_en_i && cfg_state_i == ST_RDY;  // may have work: the pick checks
        end
        if (cfg_rq) begin
          rq_en  <= cfg_en_i;
          rq_rdy <= cfg_state_i == ST_RDY;
          rq_err <= cfg_state_i == ST_ERR;
        end
        if (acc_q) sq_act <= 1'b1;
      end
    end
    assign sq_en_q[g]   = sq_en;
    assign rq_en_q[g]   = rq_en;
    assign sq_nf_q[g]   = nf;
    assign sq_busy_q[g] = nf != '0;
    assign sq_act_q[g]  = sq_act;
    assign sq_rdy_q[g]  = sq_rdy;
    assign sq_err_q[g]  = sq_err;
    assign sq_fp_q[g]   = sq_fp;
    assign sq_pk_q[g]   = sq_pk;
    assign sq_port_q[g] = sq_port;
    assign rq_rdy_q[g]  = rq_rdy;
    assign rq_err_q[g]  = rq_err;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rr_q       <= '0;
      p1_valid_q <= 1'b0;
      p1_sqn_q   <= '0;
    end else begin
      p1_valid_q <= sel_go;
      if (sel_go) begin
        p1_sqn_q <= sel;
        // Less the pick in P1 if it is of this SQ and finds no work now.
        p1_nf_q  <= sq_nf_q[sel] - NW'(p1_valid_q && !p1_work && p1_sqn_q == sel);
        rr_q     <= sel;
      end
    end
  end

  // ---------------------------------------------------------------- park
  // In FL_LAT an SQ's flush parks when its port has WQEs not retired yet
  // and the port's FIFO has room; a released one never parks again.
  for (genvar p = 0; p < NPORT; p++) begin : g_pq
    logic [EW-1:0] mem [NQ];
    logic [QN_W-1:0] qn;
    // The head entry is a register (what the RAM holds at pq_rd_q whenever
    // the FIFO is not empty): read from the RAM behind its pointer, its SQ's
    // park record was two RAM reads in series on the path to the flush
    // engine. A pop loads the entry after it; a dead head is skipped only
    // in a cycle without a write (the only pop a write can meet), so the
    // entry after it is in the RAM.
    logic [EW-1:0]   head_q, wd;
    logic            we;
    logic [QN_W-1:0] rd1;
    assign we  = park && pick_port_o == PW'(p);
    assign wd  = {fl_qn_q, fl_ev_q, h_seq[p]};
    assign rd1 = pq_rd_q[p][QN_W-1:0] + 1'b1;
    always_ff @(posedge clk_i) begin
      if (pq_pop[p]) head_q <= mem[rd1];
      else if (we && pq_wr_q[p] == pq_rd_q[p]) head_q <= wd;
    end
    assign h_seq[p]   = port_h_seq_i[16*p +: 16];
    assign r_seq[p]   = port_r_seq_i[16*p +: 16];
    assign pq_full[p] = pq_wr_q[p] == {~pq_rd_q[p][QN_W], pq_rd_q[p][QN_W-1:0]};
    assign pq_head[p] = head_q;
    assign qn         = pq_head[p][EW-1 -: QN_W];
    // The head is its SQ's live park (else dropped by a reset: skipped).
    assign pq_live[p] = sq_pk_q[qn] && pk_id_mem[qn] == {PW'(p), pq_rd_q[p][QN_W-1:0]};
    assign pq_go[p]   = pq_wr_q[p] != pq_rd_q[p] && pq_live[p] && seq_reached(pq_head[p][15:0], r_seq[p]);
    assign pq_pop[p]  = pq_wr_q[p] != pq_rd_q[p] && ((!pq_live[p] && !we) || (pop_go && pq_sel == PW'(p)));
    always_ff @(posedge clk_i)
      if (we) mem[pq_wr_q[p][QN_W-1:0]] <= wd;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        pq_wr_q[p] <= '0;
        pq_rd_q[p] <= '0;
      end else begin
        if (we) pq_wr_q[p] <= pq_wr_q[p] + 1'b1;
        if (pq_pop[p]) pq_rd_q[p] <= pq_rd_q[p] + 1'b1;
      end
    end
  end

  always_comb begin
    pq_sel = '0;
    for (int p = NPORT - 1; p >= 0; p--) if (pq_go[p]) pq_sel = PW'(p);
  end
  assign pq_sel_qn = pq_head[pq_sel][EW-1 -: QN_W];
  // A released flush starts when nothing else starts the engine (and no
  // firmware write is pending: it could drop the SQ's flush in this cycle).
  assign pop_go = fl_idle && |pq_go && !cfg_valid_i && !(done_go && done_fl) && !gerr_now;
  assign park   = fl_q == FL_LAT && !fl_rq_q && !fl_pop_q && h_seq[pick_port_o] != r_seq[pick_port_o] &&
                  !pq_full[pick_port_o];

  always_ff @(posedge clk_i)
    if (park) pk_id_mem[fl_qn_q] <= {pick_port_o, pq_wr_q[pick_port_o][QN_W-1:0]};

  // ---------------------------------------------------------------- flush
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fl_q     <= FL_IDLE;
      fl_ev_q  <= 1'b0;
      fl_pop_q <= 1'b0;
    end else begin
      case (fl_q)
        FL_IDLE: begin
          if (done_go && done_fl) begin
            fl_q     <= FL_RD;
            fl_rq_q  <= 1'b0;
            fl_qn_q  <= done_sqn_i;
            fl_cqn_q <= done_cqn_i;
            fl_ev_q  <= 1'b1;
          end else if (gerr_now) begin
            fl_q     <= FL_RD;
            fl_rq_q  <= 1'b0;
            fl_qn_q  <= gerr_sqn_i;
            fl_cqn_q <= '0;          // from the context in FL_LAT
            fl_ev_q  <= 1'b1;
          end else if (cfg_go && cfg_flush) begin
            fl_q     <= FL_RD;
            fl_rq_q  <= cfg_rq_i;
            fl_qn_q  <= cfg_qn_i;
            fl_cqn_q <= cfg_cqn_i;
            fl_ev_q  <= 1'b0;
          end else if (pop_go) begin
            fl_q     <= FL_RD;
            fl_rq_q  <= 1'b0;
            fl_qn_q  <= pq_sel_qn;
            fl_ev_q  <= pq_head[pq_sel][16];
          end
          fl_pop_q <= pop_go;
        end
        FL_RD: fl_q <= FL_LAT;
        FL_LAT: begin
          fl_fn_q  <= pick_fn_o;
          fl_port_q <= pick_port_o;
          if (!fl_rq_q) fl_cqn_q <= pick_cqn_o;
          fl_idx_q <= fl_rq_q ? rq_ci_rd : p1_ci;
          fl_end_q <= fl_rq_q ? rq_pi_rd : p1_pi;
          fl_snap_q <= h_seq[pick_port_o];
          fl_wait_q <= !fl_rq_q && !fl_pop_q;
          fl_q     <= park ? FL_IDLE : FL_RUN;
        end
        FL_RUN: begin
          if (fl_idx_q == fl_end_q) fl_q <= FL_END;
          else if (fl_valid_o && fl_ready_i) fl_idx_q <= fl_idx_q + 16'd1;
        end
        default: fl_q <= FL_IDLE;  // FL_END: ci := pi written this cycle
      endcase
    end
  end

  // A flush run here (not parked) waits for its port: at once when the
  // port had nothing to retire, else only when its FIFO was full.
  assign fl_valid_o = fl_q == FL_RUN && fl_idx_q != fl_end_q &&
                      (!fl_wait_q || seq_reached(fl_snap_q, r_seq[fl_port_q]));
  assign ev_valid_o = fl_q == FL_END && fl_ev_q;
  assign ev_qn_o    = fl_qn_q;
  assign ev_fn_o    = fl_fn_q;
  assign fl_rq_o    = fl_rq_q;
  assign fl_qn_o    = fl_qn_q;
  assign fl_cqn_o   = fl_cqn_q;
  assign fl_idx_o   = fl_idx_q;
  assign fl_port_o  = fl_port_q;

endmodule
