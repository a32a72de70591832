// Counter array: N_CNT 64-bit counters in block RAM, incremented by N_SRC
// sources every cycle (any of them may hit the same counter in the same
// cycle: nothing is lost), read over a register-style port with optional
// clear (operation.rst, "Counters": QUERY_STATS flags.CLEAR clears after
// reading; BAR0 STATS_BASE reads do not clear).
//
// Each source owns a bank (its own RAM, read-modify-write one increment per
// cycle with a one-entry bypass), so sources never compete; a counter's value
// is the sum of its N_SRC bank entries minus the snapshot taken at its last
// clear. A bank covers only its source's window of counters (SRC_WIN): a
// source that only counts port_stats needs 64 entries (distributed RAM), one
// that only counts SQ or RQ queue_stats 4,096, so the card can give every
// increment of a frame its own source without a bank of all N_CNT each. The banks' write port is busy every cycle, so a clear never writes
// them: it stores the current sum in the snapshot RAM. Each bank has a second
// copy (same writes) that serves reads.
//
// Timing: an increment presented in cycle t is included by a read accepted in
// cycle t+1 or later; the read data arrives 4 cycles after the request (the
// banks are summed in two stages: groups of four, then the groups); a read
// is accepted every 4th cycle at most (rd_ready_o). Increments presented in the cycle of a clearing
// read count towards the new value. After reset the RAMs are zeroed for N_CNT
// cycles (busy_o); increments then are ignored.
//
// Bad input: an increment outside its source's window, or a read with an
// index >= N_CNT, is dropped (a read returns 0 with rd_err_o) and counted in
// bad_count_o.
module kite_stats #(
  parameter int unsigned N_CNT = 8256,  // 2 ports x 32 (port_stats) + 1024 queues x 8 (queue_stats)
  parameter int unsigned N_SRC = 7,
  parameter int unsigned INC_W = 32,
  parameter int unsigned IDX_W = 14,
  // Source s's window, SRC_WIN[2s +: 2]: 0 all N_CNT counters, 1 [0, LO_CNT),
  // 2 [HI_BASE, N_CNT), 3 [LO_CNT, HI_BASE). Default: sources 0-3 all, 4 the
  // port_stats, 5 the RQs' queue_stats, 6 the SQs'.
  parameter logic [2*N_SRC-1:0] SRC_WIN = (2*N_SRC)'(14'h3900),
  parameter int unsigned LO_CNT = 64,     // 2 ports x 32
  parameter int unsigned HI_BASE = 4160   // 64 + 8 x 512: RQ 0's queue_stats
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,

  input  logic [N_SRC-1:0]        inc_valid_i,
  input  logic [N_SRC*IDX_W-1:0]  inc_idx_i,   // source s: [s*IDX_W +: IDX_W]
  input  logic [N_SRC*INC_W-1:0]  inc_amt_i,

  input  logic                    rd_valid_i,
  output logic                    rd_ready_o,
  input  logic [IDX_W-1:0]        rd_idx_i,
  input  logic                    rd_clear_i,
  output logic                    rd_valid_o,
  output logic [63:0]             rd_data_o,
  output logic                    rd_err_o,

  output logic [31:0]             bad_count_o,
  output logic                    busy_o
);

  // ---------------------------------------------------------------- init
  logic             init_q;
  logic [IDX_W-1:0] init_idx_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      init_q     <= 1'b1;
      init_idx_q <= '0;
    end else if (init_q) begin
      init_idx_q <= init_idx_q + 1'b1;
      if (init_idx_q == IDX_W'(N_CNT - 1)) init_q <= 1'b0;
    end
  end
  assign busy_o = init_q;

  // ---------------------------------------------------------------- read request
  logic             rd_acc, rd_ok;
  logic [2:0]       rd_pipe_q;   // stage valid bits
  logic             rd_ok1_q, rd_ok2_q, rd_ok3_q, rd_clr1_q, rd_clr2_q, rd_clr3_q;
  logic [IDX_W-1:0] rd_idx1_q, rd_idx2_q, rd_idx3_q;

  // The next read may start once the clear's snapshot write is done.
  assign rd_ready_o = !init_q && rd_pipe_q == 3'd0;
  assign rd_acc     = rd_valid_i && rd_ready_o;
  assign rd_ok      = rd_idx_i < IDX_W'(N_CNT);

  // ---------------------------------------------------------------- banks
  logic [N_SRC*64-1:0] bank_val;   // stage 1: each bank's entry for rd_idx1_q
  logic [N_SRC-1:0]    inc_bad;

  for (genvar s = 0; s < N_SRC; s++) begin : g_bank
    localparam logic [1:0]  WIN  = SRC_WIN[2*s +: 2];
    localparam int unsigned BASE = WIN == 2'd2 ? HI_BASE : WIN == 2'd3 ? LO_CNT : 0;
    localparam int unsigned SIZE = WIN == 2'd1 ? LO_CNT : WIN == 2'd2 ? N_CNT - HI_BASE :
                                   WIN == 2'd3 ? HI_BASE - LO_CNT : N_CNT;
    localparam int unsigned AW   = $clog2(SIZE);

    // Indices relative to the window (one below BASE wraps to a large value).
    logic [IDX_W-1:0] idx;
    logic [31:0]      idx_rel, rd_rel;
    logic [AW-1:0]    a;
    logic [INC_W-1:0] amt;
    logic             ok;
    assign idx     = inc_idx_i[s*IDX_W +: IDX_W];
    assign idx_rel = 32'(idx) - 32'(BASE);
    assign rd_rel  = 32'(rd_idx_i) - 32'(BASE);
    assign a       = AW'(idx_rel);
    assign amt     = inc_amt_i[s*INC_W +: INC_W];
    assign ok      = idx_rel < 32'(SIZE);
    assign inc_bad[s] = !init_q && inc_valid_i[s] && !ok;

    logic [63:0]      rmw_q [SIZE];   // read-modify-write copy
    logic [63:0]      rdc_q [SIZE];   // read copy
    logic [63:0]      rmw_rd_q, rdc_rd_q;
    logic             s1_q;
    logic [AW-1:0]    s1_a_q;
    logic [INC_W-1:0] s1_amt_q;
    logic             we;
    logic [AW-1:0]    wa;
    logic [63:0]      wdata, cur;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        s1_q     <= 1'b0;
        s1_a_q   <= '0;
        s1_amt_q <= '0;
      end else begin
        s1_q     <= !init_q && inc_valid_i[s] && ok;
        s1_a_q   <= a;
        s1_amt_q <= amt;
      end
    end

    // One-entry bypass: the write of the previous cycle is not in the RAM read.
    logic             byp_q;
    logic [AW-1:0]    byp_a_q;
    logic [63:0]      byp_data_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        byp_q      <= 1'b0;
        byp_a_q    <= '0;
        byp_data_q <= '0;
      end else begin
        byp_q      <= we;
        byp_a_q    <= wa;
        byp_data_q <= wdata;
      end
    end

    // Initialisation runs over all N_CNT >= SIZE indices, so every entry is zeroed.
    assign cur   = (byp_q && byp_a_q == s1_a_q) ? byp_data_q : rmw_rd_q;
    assign we    = init_q || s1_q;
    assign wa    = init_q ? AW'(init_idx_q) : s1_a_q;
    assign wdata = init_q ? 64'd0 : cur + 64'(s1_amt_q);

    logic [AW-1:0] ra;
    logic          r1_in_q;
    assign ra = AW'(rd_rel);
    always_ff @(posedge clk_i) begin
      rmw_rd_q <= rmw_q[a];
      if (we) rmw_q[wa] <= wdata;
    end
    always_ff @(posedge clk_i) begin
      rdc_rd_q <= rdc_q[ra];
      if (we) rdc_q[wa] <= wdata;
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) r1_in_q <= 1'b0;
      else         r1_in_q <= rd_rel < 32'(SIZE);
    end

    assign bank_val[s*64 +: 64] = !r1_in_q ? 64'd0
                                : (byp_q && byp_a_q == AW'(rd_idx1_q - IDX_W'(BASE))) ? byp_data_q : rdc_rd_q;
  end

  // ---------------------------------------------------------------- snapshot and read pipeline
  logic [63:0] snap_q [N_CNT];
  localparam int unsigned NG = (N_SRC + 3) / 4;   // groups of four banks
  logic [63:0] snap_rd_q, sum, sum_q, snap2_q, snap3_q;
  logic [63:0] psum [NG];
  logic [63:0] psum_q [NG];
  logic        snap_we;
  logic [IDX_W-1:0] snap_widx;
  logic [63:0] snap_wdata;

  always_comb begin
    for (int g = 0; g < NG; g++) psum[g] = '0;
    for (int s = 0; s < N_SRC; s++) psum[s >> 2] = psum[s >> 2] + bank_val[s*64 +: 64];
    sum = '0;
    for (int g = 0; g < NG; g++) sum = sum + psum_q[g];
  end

  assign snap_we    = init_q || (rd_pipe_q[2] && rd_ok3_q && rd_clr3_q);
  assign snap_widx  = init_q ? init_idx_q : rd_idx3_q;
  assign snap_wdata = init_q ? 64'd0 : sum_q;

  always_ff @(posedge clk_i) begin
    snap_rd_q <= snap_q[rd_idx_i];
    if (snap_we) snap_q[snap_widx] <= snap_wdata;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_pipe_q <= '0;
      rd_ok1_q  <= 1'b0;
      rd_ok2_q  <= 1'b0;
      rd_ok3_q  <= 1'b0;
      rd_clr1_q <= 1'b0;
      rd_clr2_q <= 1'b0;
      rd_clr3_q <= 1'b0;
      rd_idx1_q <= '0;
      rd_idx2_q <= '0;
      rd_idx3_q <= '0;
      for (int g = 0; g < NG; g++) psum_q[g] <= '0;
      sum_q     <= '0;
      snap2_q   <= '0;
      snap3_q   <= '0;
      rd_valid_o <= 1'b0;
      rd_data_o  <= '0;
      rd_err_o   <= 1'b0;
    end else begin
      rd_pipe_q <= {rd_pipe_q[1:0], rd_acc};
      if (rd_acc) begin
        rd_ok1_q  <= rd_ok;
        rd_clr1_q <= rd_clear_i;
        rd_idx1_q <= rd_idx_i;
      end
      // stage 1: the banks summed in groups of four; the snapshot
      rd_ok2_q  <= rd_ok1_q;
      rd_clr2_q <= rd_clr1_q;
      rd_idx2_q <= rd_idx1_q;
      for (int g = 0; g < NG; g++) psum_q[g] <= psum[g];
      snap2_q   <= snap_rd_q;
      // stage 2: the groups summed
      rd_ok3_q  <= rd_ok2_q;
      rd_clr3_q <= rd_clr2_q;
      rd_idx3_q <= rd_idx2_q;
      sum_q     <= sum;
      snap3_q   <= snap2_q;
      // stage 3: value since the last clear
      rd_valid_o <= rd_pipe_q[2];
      rd_data_o  <= rd_ok3_q ? sum_q - snap3_q : 64'd0;
      rd_err_o   <= !rd_ok3_q;
    end
  end

  // ---------------------------------------------------------------- rejected input
  logic [$clog2(N_SRC+2)-1:0] nbad;
  always_comb begin
    nbad = '0;
    for (int s = 0; s < N_SRC; s++) nbad = nbad + $bits(nbad)'(inc_bad[s]);
    nbad = nbad + $bits(nbad)'(rd_acc && !rd_ok);
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) bad_count_o <= '0;
    else         bad_count_o <= bad_count_o + 32'(nbad);
  end

endmodule : kite_stats
