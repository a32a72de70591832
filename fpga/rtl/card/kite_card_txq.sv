// TX descriptor queue of one port: the checked gather entries the queue
// manager's fetch (kite_qm_fetch d_*) hands to this port, waiting for the
// port's gather (kite_card_txg). The fetch hands a WQE on only when free_o
// leaves room for all of it, so it never waits for a port: a port whose MAC
// takes nothing (PAUSE, link down) fills its own queue and holds no other
// port's descriptors (rtl.rst, "Card top").
//
// An entry is the descriptor's fields (the gather's d_* inputs) and its
// SQ, or a completion the fetch made itself (the card packs both); the
// queue is DEPTH entries of LUT RAM and an output register, which a
// push into an empty queue reaches directly. h_seq_o counts the WQEs that
// have entered (their last entry), so the card can hold the queue manager's
// CQEs of an SQ behind those still here or in the gather.
//
// SQ reset (sq_rst_i: a context write that disables an SQ or sets it to
// RST): the entries of that SQ already here are marked stale (m_stale_o).
// The gather neither reads nor sends a stale WQE and writes no CQE for it:
// once DESTROY_SQ / MODIFY_SQ to RST has returned the host owns the SQ's
// buffers again. The queue manager hands on no entry of an SQ in the cycle
// of its context write.
module kite_card_txq #(
  parameter int unsigned NQ    = 512,
  parameter int unsigned DW    = 300,   // descriptor fields, without the SQ
  parameter int unsigned DEPTH = 64
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  input  logic                  s_valid_i,
  output logic                  s_ready_o,
  input  logic [$clog2(NQ)-1:0] s_sqn_i,
  input  logic [DW-1:0]         s_data_i,
  input  logic                  s_last_i,      // the WQE's last entry
  output logic [7:0]            free_o,

  output logic                  m_valid_o,
  input  logic                  m_ready_i,
  output logic [$clog2(NQ)-1:0] m_sqn_o,
  output logic [DW-1:0]         m_data_o,
  output logic                  m_stale_o,

  input  logic                  sq_rst_i,
  input  logic [$clog2(NQ)-1:0] sq_rst_sqn_i,
  output logic [15:0]           h_seq_o
);
  localparam int unsigned AW   = $clog2(DEPTH);
  localparam int unsigned QN_W = $clog2(NQ);

  logic [DW-1:0]   mem [DEPTH];
  logic [QN_W-1:0] q_sqn [DEPTH];    // flip-flops: a reset compares them all
  logic [DEPTH-1:0] q_stale;
  logic [AW:0]     wp_q, rp_q;
  logic            o_valid_q, o_stale_q;
  logic [QN_W-1:0] o_sqn_q;
  logic [DW-1:0]   o_data_q;
  logic [15:0]     h_seq_q;

  logic empty, push, o_take, load, bypass;
  assign empty     = wp_q == rp_q;
  assign s_ready_o = (wp_q - rp_q) != (AW+1)'(DEPTH);
  assign push      = s_valid_i && s_ready_o;
  assign o_take    = !o_valid_q || m_ready_i;
  assign load      = o_take && !empty;
  assign bypass    = o_take && empty && push;
  assign free_o    = 8'(DEPTH) - 8'(wp_q - rp_q);

  always_ff @(posedge clk_i) begin
    if (push && !bypass) mem[wp_q[AW-1:0]] <= s_data_i;
    if (load) o_data_q <= mem[rp_q[AW-1:0]];
    else if (bypass) o_data_q <= s_data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wp_q      <= '0;
      rp_q      <= '0;
      o_valid_q <= 1'b0;
      o_stale_q <= 1'b0;
      o_sqn_q   <= '0;
      q_stale   <= '0;
      h_seq_q   <= '0;
      for (int i = 0; i < DEPTH; i++) q_sqn[i] <= '0;
    end else begin
      for (int i = 0; i < DEPTH; i++)
        if (sq_rst_i && q_sqn[i] == sq_rst_sqn_i) q_stale[i] <= 1'b1;
      if (push && !bypass) begin
        q_sqn[wp_q[AW-1:0]]   <= s_sqn_i;
        q_stale[wp_q[AW-1:0]] <= 1'b0;
        wp_q <= wp_q + 1'b1;
      end
      if (push && s_last_i) h_seq_q <= h_seq_q + 16'd1;
      if (load) begin
        o_valid_q <= 1'b1;
        o_sqn_q   <= q_sqn[rp_q[AW-1:0]];
        o_stale_q <= q_stale[rp_q[AW-1:0]] || (sq_rst_i && q_sqn[rp_q[AW-1:0]] == sq_rst_sqn_i);
        rp_q      <= rp_q + 1'b1;
      end else if (bypass) begin
        o_valid_q <= 1'b1;
        o_sqn_q   <= s_sqn_i;
        o_stale_q <= 1'b0;
      end else begin
        if (m_ready_i) o_valid_q <= 1'b0;
        if (sq_rst_i && o_sqn_q == sq_rst_sqn_i) o_stale_q <= 1'b1;
      end
    end
  end

  assign m_valid_o = o_valid_q;
  assign m_sqn_o   = o_sqn_q;
  assign m_data_o  = o_data_q;
  assign m_stale_o = o_stale_q;
  assign h_seq_o   = h_seq_q;

endmodule
