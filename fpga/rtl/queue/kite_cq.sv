// Completion writer: CQ contexts in on-chip RAM, CQE DMA writes with owner
// bits, overflow detection (CQ_ERROR async event), CQ arming with moderation
// (count and time), COMP events to the CQ's EQ through kite_eq, and MSI-X
// requests. Behaviour of the model's QueueEngine post_cqe / cq_doorbell /
// timer (operation.rst, "Completion queues" and "Event queues").
//
// One ordered command port (the card top arbitrates its producers: RX/TX
// pipelines, the doorbell decoder, the firmware's context writes); one
// command per cycle. The CQ context is read in the accept cycle and written
// back in the next (stage 1), with a one-entry bypass for back-to-back
// commands to the same CQ. EQ commands pass through stage 1 into kite_eq's
// request FIFO behind the events of earlier commands, so every effect
// happens in command order.
//
// Commands (cmd_op_i; qn = cmd_qn_i):
//   CQE     post the 32-byte CQE cmd_data_i (byte 31, owner, is replaced) to
//           CQ qn; cmd_sol_i: solicited
//   CQ_DB   CQ_CI, or CQ_ARM / CQ_ARM_SOLICITED (cmd_arm_i, cmd_sol_i) with
//           16-bit cmd_ci_i; the doorbell decoder has checked ownership
//   EQ_DB   EQ_CI / EQ_ARM (cmd_arm_i) for EQ qn
//   EVENT   async EQE cmd_data_i[127:0] for function qn (its async EQ)
//   CQ_CTX  context write: [63:0] base, [79:64] fn, [95:80] EQ number,
//           [99:96] log_size, [100] valid; the ring restarts at pi = ci = 0,
//           disarmed (CREATE_CQ; DESTROY_CQ writes valid = 0)
//   CQ_MOD  MODIFY_CQ: [127:112] mod_usec, [143:128] mod_count
//   EQ_CTX  EQ context write (kite_eq OP_CTX layout)
//   FN_CTX  function qn's async EQ = cmd_data_i[15:0]
// CQ_CTX also takes mod_usec / mod_count from [127:112] / [143:128].
//
// Time: now_us_i is the card's microsecond clock; tick_i pulses when it
// advances and starts a sweep over the CQs with a moderation deadline
// (ascending CQ number, as the model's timer), using free command slots
// (alternating with commands when both wait).
//
// DMA writes (documented in rtl.rst): one posted write per request of
// dma_wr_len_o bytes (32 for a CQE, 16 for an EQE) from dma_wr_data_o byte 0
// (bits 7:0) on, at dma_wr_addr_o, on behalf of function dma_wr_fn_o.
// Requests must reach the host in the order they are accepted, each as one
// TLP; the owner byte is the entry's last byte. A COMP EQE is issued after
// its CQE, an MSI-X request after its EQE was accepted.
module kite_cq #(
  parameter int unsigned NUM_CQ = 512,
  parameter int unsigned NUM_EQ = 128,
  parameter int unsigned MAX_FN = 17,
  parameter int unsigned FN_W   = 5
) (
  input  logic               clk_i,
  input  logic               rst_ni,

  input  logic               cmd_valid_i,
  output logic               cmd_ready_o,
  input  logic [2:0]         cmd_op_i,
  input  logic [15:0]        cmd_qn_i,
  input  logic [15:0]        cmd_ci_i,
  input  logic               cmd_arm_i,
  input  logic               cmd_sol_i,
  input  logic [255:0]       cmd_data_i,

  input  logic [31:0]        now_us_i,
  input  logic               tick_i,

  output logic               dma_wr_valid_o,
  input  logic               dma_wr_ready_i,
  output logic [FN_W-1:0]    dma_wr_fn_o,
  output logic [63:0]        dma_wr_addr_o,
  output logic [5:0]         dma_wr_len_o,
  output logic [255:0]       dma_wr_data_o,

  output logic               msix_valid_o,
  input  logic               msix_ready_i,
  output logic [FN_W-1:0]    msix_fn_o,
  output logic [15:0]        msix_vector_o,

  // Pulses for the counters / health / queue manager.
  output logic               cqe_drop_o,     // CQE not written (bad or full CQ)
  output logic               cq_overflow_o,  // CQ overflowed: its queues go to ERR
  output logic [15:0]        cq_overflow_cqn_o,
  output logic               cq_bad_o,       // CQ doorbell / context command for a bad CQ
  output logic               eq_overflow_o,  // health syndrome EQ_OVERFLOW
  output logic               ev_drop_o,      // event for a missing EQ
  output logic               eq_bad_o,
  output logic               busy_o,         // context RAMs initialising after reset
  output logic               idle_o          // no command, sweep or write in flight
);

  localparam logic [2:0] CMD_CQE = 3'd0, CMD_CQ_DB = 3'd1, CMD_EQ_DB = 3'd2, CMD_EVENT = 3'd3,
                         CMD_CQ_CTX = 3'd4, CMD_CQ_MOD = 3'd5, CMD_EQ_CTX = 3'd6, CMD_FN_CTX = 3'd7;
  // kite_eq request ops
  localparam logic [2:0] EQ_POST = 3'd0, EQ_ASYNC = 3'd1, EQ_DB = 3'd2, EQ_CTX = 3'd3, EQ_FN = 3'd4;
  localparam int unsigned CQN_W = $clog2(NUM_CQ);
  localparam int unsigned EQN_W = $clog2(NUM_EQ);

  // CQ context layout.
  localparam int unsigned C_VALID = 0, C_LOG = 1, C_ARMED = 5, C_ASOL = 6, C_ERR = 7, C_FN = 8;
  localparam int unsigned C_EQN = C_FN + FN_W, C_BASE = C_EQN + EQN_W, C_PI = C_BASE + 64;
  localparam int unsigned C_CI = C_PI + 32, C_MUS = C_CI + 32, C_MCNT = C_MUS + 16;
  localparam int unsigned C_UNREP = C_MCNT + 16, C_FIRST = C_UNREP + 32, CTX_W = C_FIRST + 32;

  // ---------------------------------------------------------------- init
  logic             init_q, eq_busy;
  logic [CQN_W-1:0] init_idx_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      init_q     <= 1'b1;
      init_idx_q <= '0;
    end else if (init_q) begin
      init_idx_q <= init_idx_q + 1'b1;
      if (init_idx_q == CQN_W'(NUM_CQ - 1)) init_q <= 1'b0;
    end
  end
  assign busy_o = init_q || eq_busy;

  // ---------------------------------------------------------------- FIFOs
  localparam int unsigned CQO_W = FN_W + 64 + 256;
  logic             cqo_push, cqo_pop, cqo_empty;
  logic [CQO_W-1:0] cqo_din, cqo_dout;
  logic [3:0]       cqo_free;
  kite_cq_fifo #(.W(CQO_W), .DEPTH(8)) u_cqo (
    .clk_i, .rst_ni, .push_i(cqo_push), .data_i(cqo_din), .pop_i(cqo_pop),
    .data_o(cqo_dout), .empty_o(cqo_empty), .free_o(cqo_free)
  );

  localparam int unsigned EQR_W = 3 + 16 + 16 + 1 + 128;
  logic             eqr_push, eqr_pop, eqr_empty;
  logic [EQR_W-1:0] eqr_din, eqr_dout;
  logic [3:0]       eqr_free;
  kite_cq_fifo #(.W(EQR_W), .DEPTH(8)) u_eqr (
    .clk_i, .rst_ni, .push_i(eqr_push), .data_i(eqr_din), .pop_i(eqr_pop),
    .data_o(eqr_dout), .empty_o(eqr_empty), .free_o(eqr_free)
  );

  // ---------------------------------------------------------------- accept
  logic [NUM_CQ-1:0] pend_q, pend_d, sweep_q;
  logic              tmr_valid, tmr_prio_q, space, acc_cmd, acc_tmr;
  logic [CQN_W-1:0]  tmr_cqn;

  // Lowest pending CQ of the sweep: a priority tree (kite_rr_pick with a
  // fixed start), not loops whose carried choice is a chain.
  kite_rr_pick #(.N(NUM_CQ)) u_sweep (.req_i(sweep_q), .last_i('1), .valid_o(tmr_valid), .idx_o(tmr_cqn));

  // Room in both FIFOs for this command and the one in stage 1.
  assign space       = !busy_o && cqo_free >= 4'd2 && eqr_free >= 4'd2;
  assign cmd_ready_o = space && !(tmr_valid && tmr_prio_q);
  assign acc_cmd     = cmd_valid_i && cmd_ready_o;
  assign acc_tmr     = space && tmr_valid && !acc_cmd;

  logic [15:0] rd_qn;
  assign rd_qn = acc_tmr ? 16'(tmr_cqn) : cmd_qn_i;

  logic             s1_q, s1_tmr_q, s1_inrange_q, s1_arm_q, s1_sol_q;
  logic [2:0]       s1_op_q;
  logic [15:0]      s1_qn_q, s1_ci_q;
  logic [CQN_W-1:0] s1_cqn_q;
  logic [255:0]     s1_data_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_q         <= 1'b0;
      s1_tmr_q     <= 1'b0;
      s1_inrange_q <= 1'b0;
      s1_arm_q     <= 1'b0;
      s1_sol_q     <= 1'b0;
      s1_op_q      <= '0;
      s1_qn_q      <= '0;
      s1_ci_q      <= '0;
      s1_cqn_q     <= '0;
      s1_data_q    <= '0;
      tmr_prio_q   <= 1'b0;
    end else begin
      s1_q     <= acc_cmd || acc_tmr;
      s1_tmr_q <= acc_tmr;
      if (acc_cmd || acc_tmr) begin
        s1_op_q      <= cmd_op_i;
        s1_qn_q      <= rd_qn;
        s1_cqn_q     <= rd_qn[CQN_W-1:0];
        s1_inrange_q <= rd_qn != 16'd0 && rd_qn < 16'(NUM_CQ);
        s1_ci_q      <= cmd_ci_i;
        s1_arm_q     <= cmd_arm_i;
        s1_sol_q     <= cmd_sol_i;
        s1_data_q    <= cmd_data_i;
      end
      if (acc_tmr) tmr_prio_q <= 1'b0;
      else if (acc_cmd && tmr_valid) tmr_prio_q <= 1'b1;
    end
  end

  // ---------------------------------------------------------------- context RAM
  logic             wr_en;
  logic [CQN_W-1:0] wr_idx;
  logic [CTX_W-1:0] wr_data;
  logic [CTX_W-1:0] ctx, nctx;
  kite_ctx_ram #(.DEPTH(NUM_CQ), .WIDTH(CTX_W)) u_ctx (
    .clk_i,
    .rst_ni,
    .rd_idx_i  (rd_qn[CQN_W-1:0]),
    .s1_idx_i  (s1_cqn_q),
    .s1_data_o (ctx),
    .wr_en_i   (wr_en),
    .wr_idx_i  (wr_idx),
    .wr_data_i (wr_data)
  );

  // ---------------------------------------------------------------- stage 1
  logic              c_valid, c_armed, c_asol, c_err;
  logic [3:0]        c_log;
  logic [FN_W-1:0]   c_fn;
  logic [EQN_W-1:0]  c_eqn;
  logic [63:0]       c_base;
  logic [31:0]       c_pi, c_ci, c_size, c_unrep, c_first, c_ci_ext, unrep_inc;
  logic [15:0]       c_mus, c_mcnt;
  assign c_valid  = ctx[C_VALID];
  assign c_log    = ctx[C_LOG +: 4];
  assign c_armed  = ctx[C_ARMED];
  assign c_asol   = ctx[C_ASOL];
  assign c_err    = ctx[C_ERR];
  assign c_fn     = ctx[C_FN +: FN_W];
  assign c_eqn    = ctx[C_EQN +: EQN_W];
  assign c_base   = ctx[C_BASE +: 64];
  assign c_pi     = ctx[C_PI +: 32];
  assign c_ci     = ctx[C_CI +: 32];
  assign c_mus    = ctx[C_MUS +: 16];
  assign c_mcnt   = ctx[C_MCNT +: 16];
  assign c_unrep  = ctx[C_UNREP +: 32];
  assign c_first  = ctx[C_FIRST +: 32];
  assign c_size   = 32'd1 << c_log;
  logic [15:0] ci_delta;
  assign ci_delta = c_pi[15:0] - s1_ci_q;
  assign c_ci_ext = c_pi - {16'd0, ci_delta};
  assign unrep_inc = c_unrep + 32'd1;

  logic [63:0]  slot_addr;
  logic [255:0] cqe;
  assign slot_addr = c_base + {27'd0, (c_pi & (c_size - 32'd1)), 5'd0};
  always_comb begin
    cqe = s1_data_q;
    cqe[255:248] = {7'd0, ~c_pi[{1'b0, c_log}]};
  end

  // Errors always wake a solicited-only arm, as in IB.
  logic want, moderated, fire_cqe, due;
  assign want      = c_armed || (c_asol && (s1_sol_q || s1_data_q[151:144] == kite_pkg::CQE_OPCODE_ERROR));
  assign moderated = c_mus != 16'd0 || c_mcnt > 16'd1;
  assign fire_cqe  = !moderated || (c_mcnt > 16'd1 && unrep_inc >= {16'd0, c_mcnt});
  assign due       = now_us_i - c_first >= {16'd0, c_mus};

  logic [127:0] ev_comp, ev_cqerr;
  assign ev_comp  = {64'd0, 16'd0, s1_qn_q, 24'd0, kite_pkg::EQE_TYPE_COMP};
  assign ev_cqerr = {64'd0, 16'd0, s1_qn_q, 24'd0, kite_pkg::EQE_TYPE_CQ_ERROR};

  logic ctx_ok;
  assign ctx_ok = !s1_data_q[100] ||
                  (s1_data_q[79:64] < 16'(MAX_FN) && s1_data_q[95:80] < 16'(NUM_EQ));

  logic pend_set, pend_clr;

  always_comb begin
    nctx          = ctx;
    wr_en         = 1'b0;
    cqo_push      = 1'b0;
    cqo_din       = {c_fn, slot_addr, cqe};
    eqr_push      = 1'b0;
    eqr_din       = {s1_op_q, s1_qn_q, s1_ci_q, s1_arm_q, s1_data_q[127:0]};
    pend_set      = 1'b0;
    pend_clr      = 1'b0;
    cqe_drop_o    = 1'b0;
    cq_overflow_o = 1'b0;
    cq_bad_o      = 1'b0;
    if (init_q) begin
      wr_en = 1'b1;
      nctx  = '0;
    end else if (s1_q && s1_tmr_q) begin
      // Moderation deadline check (model: QueueEngine::timer).
      if (pend_q[s1_cqn_q]) begin
        if (!c_valid || (!c_armed && !c_asol)) begin
          pend_clr = 1'b1;
        end else if (due) begin
          nctx[C_ARMED] = 1'b0;
          nctx[C_ASOL]  = 1'b0;
          nctx[C_UNREP +: 32] = '0;
          wr_en    = 1'b1;
          pend_clr = 1'b1;
          eqr_push = 1'b1;
          eqr_din  = {EQ_POST, 16'(c_eqn), 16'd0, 1'b0, ev_comp};
        end
      end
    end else if (s1_q) begin
      unique case (s1_op_q)
        CMD_CQE: begin
          if (!s1_inrange_q || !c_valid || c_err) begin
            cqe_drop_o = 1'b1;
          end else if (c_pi - c_ci >= c_size) begin
            cqe_drop_o    = 1'b1;
            cq_overflow_o = 1'b1;
            nctx[C_ERR]   = 1'b1;
            wr_en    = 1'b1;
            pend_clr = 1'b1;
            eqr_push = 1'b1;
            eqr_din  = {EQ_ASYNC, 16'(c_fn), 16'd0, 1'b0, ev_cqerr};
          end else begin
            cqo_push = 1'b1;
            wr_en    = 1'b1;
            nctx[C_PI +: 32]    = c_pi + 32'd1;
            nctx[C_UNREP +: 32] = unrep_inc;
            if (c_unrep == 32'd0) nctx[C_FIRST +: 32] = now_us_i;
            if (want) begin
              if (fire_cqe) begin
                nctx[C_ARMED] = 1'b0;
                nctx[C_ASOL]  = 1'b0;
                nctx[C_UNREP +: 32] = '0;
                pend_clr = 1'b1;
                eqr_push = 1'b1;
                eqr_din  = {EQ_POST, 16'(c_eqn), 16'd0, 1'b0, ev_comp};
              end else if (c_mus != 16'd0) begin
                pend_set = 1'b1;
              end
            end
          end
        end
        CMD_CQ_DB: begin
          if (!s1_inrange_q || !c_valid) begin
            cq_bad_o = 1'b1;
          end else begin
            wr_en = 1'b1;
            nctx[C_CI +: 32] = c_ci_ext;
            if (s1_arm_q) begin
              nctx[C_ARMED] = !s1_sol_q;
              nctx[C_ASOL]  = s1_sol_q;
              nctx[C_UNREP +: 32] = c_pi - c_ci_ext;
              // CQEs the driver has not seen yet: no lost wake-up.
              if (c_pi != c_ci_ext && !s1_sol_q) begin
                nctx[C_ARMED] = 1'b0;
                nctx[C_UNREP +: 32] = '0;
                pend_clr = 1'b1;
                eqr_push = 1'b1;
                eqr_din  = {EQ_POST, 16'(c_eqn), 16'd0, 1'b0, ev_comp};
              end
            end
          end
        end
        CMD_CQ_CTX: begin
          if (!s1_inrange_q || !ctx_ok) begin
            cq_bad_o = 1'b1;
          end else begin
            wr_en = 1'b1;
            nctx  = '0;
            nctx[C_VALID]         = s1_data_q[100];
            nctx[C_LOG +: 4]      = s1_data_q[99:96];
            nctx[C_FN +: FN_W]    = s1_data_q[64 +: FN_W];
            nctx[C_EQN +: EQN_W]  = s1_data_q[80 +: EQN_W];
            nctx[C_BASE +: 64]    = s1_data_q[63:0];
            nctx[C_MUS +: 16]     = s1_data_q[127:112];
            nctx[C_MCNT +: 16]    = s1_data_q[143:128];
            // The model drops a moderation deadline only when the CQ goes away.
            pend_clr = !s1_data_q[100];
          end
        end
        CMD_CQ_MOD: begin
          if (!s1_inrange_q || !c_valid) begin
            cq_bad_o = 1'b1;
          end else begin
            wr_en = 1'b1;
            nctx[C_MUS +: 16]  = s1_data_q[127:112];
            nctx[C_MCNT +: 16] = s1_data_q[143:128];
          end
        end
        CMD_EQ_DB: begin
          eqr_push = 1'b1;
          eqr_din[EQR_W-1 -: 3] = EQ_DB;
        end
        CMD_EVENT: begin
          eqr_push = 1'b1;
          eqr_din[EQR_W-1 -: 3] = EQ_ASYNC;
        end
        CMD_EQ_CTX: begin
          eqr_push = 1'b1;
          eqr_din[EQR_W-1 -: 3] = EQ_CTX;
        end
        CMD_FN_CTX: begin
          eqr_push = 1'b1;
          eqr_din[EQR_W-1 -: 3] = EQ_FN;
        end
        default: ;
      endcase
    end
  end

  assign wr_idx  = init_q ? init_idx_q : s1_cqn_q;
  assign wr_data = nctx;
  assign cq_overflow_cqn_o = s1_qn_q;

  // ---------------------------------------------------------------- moderation sweep
  always_comb begin
    pend_d = pend_q;
    if (init_q) pend_d = '0;
    else if (pend_set) pend_d[s1_cqn_q] = 1'b1;
    else if (pend_clr) pend_d[s1_cqn_q] = 1'b0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q  <= '0;
      sweep_q <= '0;
    end else begin
      pend_q <= pend_d;
      for (int i = 0; i < NUM_CQ; i++) begin
        sweep_q[i] <= (sweep_q[i] && !(acc_tmr && tmr_cqn == CQN_W'(i))) || (tick_i && pend_d[i]);
      end
    end
  end

  // ---------------------------------------------------------------- EQ writer
  logic             eq_idle;
  logic             eqo_valid, eqo_pop, eqo_write, eqo_msix, eq_req_ready;
  logic [FN_W-1:0]  eqo_fn;
  logic [63:0]      eqo_addr;
  logic [127:0]     eqo_data;
  logic [15:0]      eqo_vec;

  assign eqr_pop = !eqr_empty && eq_req_ready;

  kite_eq #(.NUM_EQ(NUM_EQ), .MAX_FN(MAX_FN), .FN_W(FN_W)) u_eq (
    .clk_i, .rst_ni,
    .req_valid_i   (!eqr_empty),
    .req_ready_o   (eq_req_ready),
    .req_op_i      (eqr_dout[EQR_W-1 -: 3]),
    .req_qn_i      (eqr_dout[EQR_W-4 -: 16]),
    .req_ci_i      (eqr_dout[EQR_W-20 -: 16]),
    .req_arm_i     (eqr_dout[128]),
    .req_data_i    (eqr_dout[127:0]),
    .out_valid_o   (eqo_valid),
    .out_pop_i     (eqo_pop),
    .out_write_o   (eqo_write),
    .out_msix_o    (eqo_msix),
    .out_fn_o      (eqo_fn),
    .out_addr_o    (eqo_addr),
    .out_data_o    (eqo_data),
    .out_vector_o  (eqo_vec),
    .eq_overflow_o,
    .ev_drop_o,
    .bad_o         (eq_bad_o),
    .busy_o        (eq_busy),
    .idle_o        (eq_idle)
  );

  // ---------------------------------------------------------------- output arbiter
  // CQEs first: an EQE is queued after the CQE that caused it, so it can
  // never overtake it.
  localparam int unsigned MX_W = FN_W + 16;
  logic            mx_push, mx_empty;
  logic [2:0]      mx_free;
  logic [MX_W-1:0] mx_dout;
  kite_cq_fifo #(.W(MX_W), .DEPTH(4)) u_msix (
    .clk_i, .rst_ni, .push_i(mx_push), .data_i({eqo_fn, eqo_vec}), .pop_i(msix_valid_o && msix_ready_i),
    .data_o(mx_dout), .empty_o(mx_empty), .free_o(mx_free)
  );
  assign msix_valid_o = !mx_empty;
  assign idle_o = !busy_o && !s1_q && !tmr_valid && cqo_empty && eqr_empty && eq_idle && mx_empty;
  assign {msix_fn_o, msix_vector_o} = mx_dout;

  logic eq_can;
  assign eq_can = eqo_valid && (!eqo_msix || mx_free != 3'd0);

  always_comb begin
    dma_wr_valid_o = 1'b0;
    dma_wr_fn_o    = cqo_dout[CQO_W-1 -: FN_W];
    dma_wr_addr_o  = cqo_dout[256 +: 64];
    dma_wr_len_o   = 6'd32;
    dma_wr_data_o  = cqo_dout[255:0];
    cqo_pop = 1'b0;
    eqo_pop = 1'b0;
    mx_push = 1'b0;
    if (!cqo_empty) begin
      dma_wr_valid_o = 1'b1;
      cqo_pop = dma_wr_ready_i;
    end else if (eq_can && eqo_write) begin
      dma_wr_valid_o = 1'b1;
      dma_wr_fn_o    = eqo_fn;
      dma_wr_addr_o  = eqo_addr;
      dma_wr_len_o   = 6'd16;
      dma_wr_data_o  = {128'd0, eqo_data};
      eqo_pop = dma_wr_ready_i;
      mx_push = dma_wr_ready_i && eqo_msix;
    end
    if (eq_can && !eqo_write) begin
      eqo_pop = 1'b1;
      mx_push = eqo_msix;
    end
  end

  logic unused;
  assign unused = ^{s1_data_q[255:144], s1_data_q[111:101], s1_data_q[95:80+EQN_W],
                    s1_data_q[79:64+FN_W]};

endmodule : kite_cq
