// Event queue writer: EQ contexts in on-chip RAM, EQE writes with owner bits,
// arming and MSI-X requests (operation.rst, "Event queues"); behaviour of the
// model's QueueEngine::post_eqe / post_async / eq_doorbell.
//
// Requests arrive in order from kite_cq (which forwards EQ doorbells, EQ and
// function context writes and async events behind the COMP / CQ_ERROR events
// of earlier commands, so the order is the model's). One request per cycle:
// the context is read in the accept cycle and written back one cycle later; a
// one-entry bypass covers back-to-back requests to the same EQ.
//
// Requests (req_op_i):
//   OP_POST   post EQE req_data_i[127:0] to EQ req_qn_i
//   OP_ASYNC  post it to the async EQ of function req_qn_i (none: dropped)
//   OP_DB     EQ_CI / EQ_ARM (req_arm_i) doorbell with 16-bit req_ci_i
//   OP_CTX    context write: [63:0] base, [79:64] fn, [95:80] MSI-X vector,
//             [99:96] log_size, [100] valid, [101] armed (firmware: 1)
//   OP_FN     function req_qn_i's async EQ number = req_data_i[15:0] (0: none);
//             a function or EQ number out of range changes nothing (bad_o)
// Output entries: an EQE DMA write (16 bytes, owner byte last in the entry)
// and/or an MSI-X request, in order; kite_cq issues the MSI-X only after the
// EQE's write has been accepted.
module kite_eq #(
  parameter int unsigned NUM_EQ = 128,
  parameter int unsigned MAX_FN = 17,
  parameter int unsigned FN_W   = 5
) (
  input  logic               clk_i,
  input  logic               rst_ni,

  input  logic               req_valid_i,
  output logic               req_ready_o,
  input  logic [2:0]         req_op_i,
  input  logic [15:0]        req_qn_i,
  input  logic [15:0]        req_ci_i,
  input  logic               req_arm_i,
  input  logic [127:0]       req_data_i,

  output logic               out_valid_o,
  input  logic               out_pop_i,
  output logic               out_write_o,    // EQE write in addr/data
  output logic               out_msix_o,     // MSI-X request for fn/vector
  output logic [FN_W-1:0]    out_fn_o,
  output logic [63:0]        out_addr_o,
  output logic [127:0]       out_data_o,
  output logic [15:0]        out_vector_o,

  output logic               eq_overflow_o,  // pulse: event dropped, EQ full (health EQ_OVERFLOW)
  output logic               ev_drop_o,      // pulse: event for a missing EQ / no async EQ
  output logic               bad_o,          // pulse: doorbell or context write for a bad EQ
  output logic               busy_o,         // context RAM initialisation after reset
  output logic               idle_o          // nothing accepted is still in flight
);

  localparam logic [2:0] OP_POST = 3'd0, OP_ASYNC = 3'd1, OP_DB = 3'd2, OP_CTX = 3'd3, OP_FN = 3'd4;
  localparam int unsigned EQN_W = $clog2(NUM_EQ);

  // Context layout (flat: both tools accept it).
  localparam int unsigned C_VALID = 0, C_LOG = 1, C_ARMED = 5, C_FN = 6;
  localparam int unsigned C_VEC = C_FN + FN_W, C_BASE = C_VEC + 16, C_PI = C_BASE + 64;
  localparam int unsigned C_CI = C_PI + 32, CTX_W = C_CI + 32;

  // ---------------------------------------------------------------- init
  logic             init_q;
  logic [EQN_W-1:0] init_idx_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      init_q     <= 1'b1;
      init_idx_q <= '0;
    end else if (init_q) begin
      init_idx_q <= init_idx_q + 1'b1;
      if (init_idx_q == EQN_W'(NUM_EQ - 1)) init_q <= 1'b0;
    end
  end
  assign busy_o = init_q;

  // ---------------------------------------------------------------- output FIFO
  localparam int unsigned OUT_W = 1 + 1 + FN_W + 64 + 128 + 16;
  logic             o_push;
  logic [OUT_W-1:0] o_din, o_dout;
  logic             o_empty;
  logic [3:0]       o_free;
  kite_cq_fifo #(.W(OUT_W), .DEPTH(8)) u_out (
    .clk_i, .rst_ni, .push_i(o_push), .data_i(o_din), .pop_i(out_pop_i),
    .data_o(o_dout), .empty_o(o_empty), .free_o(o_free)
  );
  assign out_valid_o = !o_empty;
  assign idle_o      = !init_q && !s1_q && o_empty;
  assign {out_write_o, out_msix_o, out_fn_o, out_addr_o, out_data_o, out_vector_o} = o_dout;

  // ---------------------------------------------------------------- accept (stage 0)
  // Room for this request and the one in stage 1.
  assign req_ready_o = !init_q && o_free >= 4'd2;
  logic accept;
  assign accept = req_valid_i && req_ready_o;

  logic [EQN_W-1:0] async_eqn_q [MAX_FN];
  logic             fn_ok;
  logic [15:0]      eqn_wide;
  assign fn_ok    = req_qn_i < 16'(MAX_FN);
  assign eqn_wide = req_op_i == OP_ASYNC ? (fn_ok ? 16'(async_eqn_q[req_qn_i[FN_W-1:0]]) : 16'd0)
                                         : req_qn_i;

  logic             s1_q;
  logic [2:0]       s1_op_q;
  logic [EQN_W-1:0] s1_eqn_q;
  logic             s1_inrange_q;
  logic             s1_fn_bad_q;     // OP_FN: function or EQ number out of range
  logic [15:0]      s1_ci_q;
  logic             s1_arm_q;
  logic [127:0]     s1_data_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_q         <= 1'b0;
      s1_op_q      <= '0;
      s1_eqn_q     <= '0;
      s1_inrange_q <= 1'b0;
      s1_fn_bad_q  <= 1'b0;
      s1_ci_q      <= '0;
      s1_arm_q     <= 1'b0;
      s1_data_q    <= '0;
    end else begin
      s1_q <= accept;
      if (accept) begin
        s1_op_q      <= req_op_i;
        s1_eqn_q     <= eqn_wide[EQN_W-1:0];
        s1_inrange_q <= eqn_wide != 16'd0 && eqn_wide < 16'(NUM_EQ);
        s1_fn_bad_q  <= !fn_ok || req_data_i[15:0] >= 16'(NUM_EQ);
        s1_ci_q      <= req_ci_i;
        s1_arm_q     <= req_arm_i;
        s1_data_q    <= req_data_i;
      end
    end
  end

  // Function table: written in stage 0 (in order with the requests that use it).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < MAX_FN; i++) async_eqn_q[i] <= '0;
    end else if (accept && req_op_i == OP_FN && fn_ok) begin
      if (req_data_i[15:0] < 16'(NUM_EQ)) async_eqn_q[req_qn_i[FN_W-1:0]] <= req_data_i[EQN_W-1:0];
    end
  end

  // ---------------------------------------------------------------- context RAM
  logic             wr_en;
  logic [EQN_W-1:0] wr_idx;
  logic [CTX_W-1:0] wr_data;
  logic [CTX_W-1:0] ctx, nctx;
  kite_ctx_ram #(.DEPTH(NUM_EQ), .WIDTH(CTX_W)) u_ctx (
    .clk_i,
    .rst_ni,
    .rd_idx_i  (eqn_wide[EQN_W-1:0]),
    .s1_idx_i  (s1_eqn_q),
    .s1_data_o (ctx),
    .wr_en_i   (wr_en),
    .wr_idx_i  (wr_idx),
    .wr_data_i (wr_data)
  );

  // ---------------------------------------------------------------- stage 1
  logic        c_valid, c_armed;
  logic [3:0]  c_log;
  logic [FN_W-1:0] c_fn;
  logic [15:0] c_vec;
  logic [63:0] c_base;
  logic [31:0] c_pi, c_ci, c_size, c_ci_ext;
  assign c_valid  = ctx[C_VALID];
  assign c_log    = ctx[C_LOG +: 4];
  assign c_armed  = ctx[C_ARMED];
  assign c_fn     = ctx[C_FN +: FN_W];
  assign c_vec    = ctx[C_VEC +: 16];
  assign c_base   = ctx[C_BASE +: 64];
  assign c_pi     = ctx[C_PI +: 32];
  assign c_ci     = ctx[C_CI +: 32];
  assign c_size   = 32'd1 << c_log;
  // The doorbell carries 16 bits; extend against the producer.
  logic [15:0] ci_delta;
  assign ci_delta = c_pi[15:0] - s1_ci_q;
  assign c_ci_ext = c_pi - {16'd0, ci_delta};

  logic [63:0]  slot_addr;
  logic [127:0] eqe;
  assign slot_addr = c_base + {28'd0, (c_pi & (c_size - 32'd1)), 4'd0};
  always_comb begin
    eqe = s1_data_q;
    eqe[127:120] = {7'd0, ~c_pi[{1'b0, c_log}]};
  end

  logic [FN_W-1:0] ctx_fn;
  assign ctx_fn = s1_data_q[64 +: FN_W];

  always_comb begin
    nctx          = ctx;
    wr_en         = 1'b0;
    o_push        = 1'b0;
    o_din         = '0;
    eq_overflow_o = 1'b0;
    ev_drop_o     = 1'b0;
    bad_o         = 1'b0;
    if (init_q) begin
      wr_en = 1'b1;
      nctx  = '0;
    end else if (s1_q) begin
      unique case (s1_op_q)
        OP_POST, OP_ASYNC: begin
          if (!s1_inrange_q || !c_valid) begin
            ev_drop_o = 1'b1;
          end else if (c_pi - c_ci >= c_size) begin
            // Never overwrite an entry the driver has not consumed.
            eq_overflow_o = 1'b1;
          end else begin
            o_push = 1'b1;
            o_din  = {1'b1, c_armed, c_fn, slot_addr, eqe, c_vec};
            nctx[C_PI +: 32] = c_pi + 32'd1;
            nctx[C_ARMED]    = 1'b0;
            wr_en = 1'b1;
          end
        end
        OP_DB: begin
          if (!s1_inrange_q || !c_valid) begin
            bad_o = 1'b1;
          end else begin
            nctx[C_CI +: 32] = c_ci_ext;
            wr_en = 1'b1;
            if (s1_arm_q) begin
              // Entries beyond the new consumer index: no lost wake-up.
              if (c_pi != c_ci_ext) begin
                nctx[C_ARMED] = 1'b0;
                o_push = 1'b1;
                o_din  = {1'b0, 1'b1, c_fn, 64'd0, 128'd0, c_vec};
              end else begin
                nctx[C_ARMED] = 1'b1;
              end
            end
          end
        end
        OP_CTX: begin
          if (!s1_inrange_q || (s1_data_q[100] && 32'(ctx_fn) >= MAX_FN)) begin
            bad_o = 1'b1;
          end else begin
            wr_en = 1'b1;
            nctx  = '0;
            nctx[C_VALID]         = s1_data_q[100];
            nctx[C_LOG +: 4]      = s1_data_q[99:96];
            nctx[C_ARMED]         = s1_data_q[101];
            nctx[C_FN +: FN_W]    = ctx_fn;
            nctx[C_VEC +: 16]     = s1_data_q[95:80];
            nctx[C_BASE +: 64]    = s1_data_q[63:0];
          end
        end
        OP_FN: bad_o = s1_fn_bad_q;  // the table itself is written in stage 0
        default: ;
      endcase
    end
  end

  assign wr_idx  = init_q ? init_idx_q : s1_eqn_q;
  assign wr_data = nctx;

  logic unused;
  assign unused = ^{s1_data_q[127:102], s1_data_q[79:64+FN_W], req_data_i[127:16]};

endmodule : kite_eq
