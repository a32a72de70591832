// Context RAM of the CQ and EQ writers: one synchronous read per cycle (the
// entry of the request entering stage 1) and one write per cycle (stage 1's
// updated entry). A read issued in the cycle of a write to the same entry
// returns the old contents, so a one-entry bypass hands the request the
// entry just written when stage 1 names it (back-to-back requests to one
// queue).
module kite_ctx_ram #(
  parameter int unsigned DEPTH = 512,
  parameter int unsigned WIDTH = 64,
  localparam int unsigned AW   = $clog2(DEPTH)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic [AW-1:0]    rd_idx_i,   // read this cycle
  input  logic [AW-1:0]    s1_idx_i,   // the entry stage 1 works on
  output logic [WIDTH-1:0] s1_data_o,  // its contents, bypass included
  input  logic             wr_en_i,
  input  logic [AW-1:0]    wr_idx_i,
  input  logic [WIDTH-1:0] wr_data_i
);

  logic [WIDTH-1:0] ram_q [DEPTH];
  logic [WIDTH-1:0] ram_rd_q;
  always_ff @(posedge clk_i) begin
    ram_rd_q <= ram_q[rd_idx_i];
    if (wr_en_i) ram_q[wr_idx_i] <= wr_data_i;
  end

  logic             byp_q;
  logic [AW-1:0]    byp_idx_q;
  logic [WIDTH-1:0] byp_data_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      byp_q      <= 1'b0;
      byp_idx_q  <= '0;
      byp_data_q <= '0;
    end else begin
      byp_q      <= wr_en_i;
      byp_idx_q  <= wr_idx_i;
      byp_data_q <= wr_data_i;
    end
  end

  assign s1_data_o = (byp_q && byp_idx_q == s1_idx_i) ? byp_data_q : ram_rd_q;

endmodule
