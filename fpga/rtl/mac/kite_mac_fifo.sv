// Asynchronous frame FIFO for 512-bit AXI-Stream frames between two clock
// domains (the card's 250 MHz host side and a CMAC's 322 MHz side).
//
// The reader only ever sees whole frames: the write side commits a frame at
// its last beat, and only the committed pointer crosses. It jumps by a whole
// frame, so it cannot cross in Gray code; a request/acknowledge toggle pair
// (two flops each way) carries it, held stable while it is sampled. The read
// pointer moves by one and crosses back in Gray code. That is what both
// directions need: the CMAC's TX interface must not
// run dry inside a frame (it would abort it), and a frame being discarded
// must never have left.
//
// DROP_FULL = 1 (RX, written by a MAC that cannot wait): s_ready_o is always
// 1; a frame that does not fit is dropped whole and reported on s_drop_o with
// its last beat. DROP_FULL = 0 (TX): back-pressure while full; a frame longer
// than the FIFO can never fit and is dropped (s_drop_o) instead of blocking.
// Either way, s_bad_i with the last beat discards the frame (the writer
// learned late that it must not be sent); it is not counted here.
//
// The read side reads the RAM one cycle ahead into a small output buffer, so
// it delivers one beat per m_clk_i cycle.
module kite_mac_fifo #(
  parameter int unsigned DW        = 512,
  parameter int unsigned UW        = 1,    // sideband carried with every beat
  parameter int unsigned DEPTH     = 256,  // beats, power of two (256: 16 KiB)
  parameter bit          DROP_FULL = 1'b1
) (
  input  logic              s_clk_i,
  input  logic              s_rst_ni,
  input  logic              s_valid_i,
  output logic              s_ready_o,
  input  logic [DW-1:0]     s_data_i,
  input  logic [DW/8-1:0]   s_keep_i,
  input  logic              s_last_i,
  input  logic [UW-1:0]     s_user_i,
  input  logic              s_bad_i,
  output logic              s_drop_o,

  input  logic              m_clk_i,
  input  logic              m_rst_ni,
  output logic              m_valid_o,
  input  logic              m_ready_i,
  output logic [DW-1:0]     m_data_o,
  output logic [DW/8-1:0]   m_keep_o,
  output logic              m_last_o,
  output logic [UW-1:0]     m_user_o
);

  localparam int unsigned AW = $clog2(DEPTH);
  localparam int unsigned EW = DW + DW / 8 + 1 + UW;

  function automatic logic [AW:0] gray(input logic [AW:0] b);
    gray = b ^ (b >> 1);
  endfunction

  function automatic logic [AW:0] ungray(input logic [AW:0] g);
    logic [AW:0] b;
    b[AW] = g[AW];
    for (int i = AW; i > 0; i--) b[i - 1] = b[i] ^ g[i - 1];
    ungray = b;
  endfunction

  logic [EW-1:0] mem_q [DEPTH];

  logic [AW:0]   wp_q, wc_q;           // write, committed
  logic [AW:0]   wcx_q;                // committed pointer being carried across
  logic          req_q, ack_s1_q, ack_s2_q;
  logic          req_s1_q, req_s2_q, ack_q;
  logic [AW:0]   rpg_s1_q, rpg_s2_q;   // read pointer (Gray) in the s domain
  logic          drop_q;               // discarding the rest of this frame
  logic [AW:0]   rp_s;
  logic          s_fire, full, oversize, store;
  logic [AW:0]   rp_q, rpg_g_q;        // read pointer, its Gray copy
  logic [AW:0]   wc_m_q;               // committed pointer in the m domain
  logic [EW-1:0] ram_q;
  logic          ram_v_q;
  logic [EW-1:0] ob_q [4];             // output buffer
  logic [1:0]    ob_rd_q, ob_wr_q;
  logic [2:0]    ob_cnt_q;
  logic          issue, pop;

  // ------------------------------------------------------------ write side

  assign rp_s     = ungray(rpg_s2_q);
  assign full     = (wp_q - rp_s) == (AW + 1)'(DEPTH);
  // A frame filling the whole FIFO can never be committed.
  assign oversize = (wp_q - wc_q) == (AW + 1)'(DEPTH);
  assign s_ready_o = DROP_FULL ? 1'b1 : (!full || drop_q || oversize);
  assign s_fire   = s_valid_i && s_ready_o;
  assign store    = s_fire && !drop_q && !full;
  assign s_drop_o = s_fire && s_last_i && (drop_q || full);

  always_ff @(posedge s_clk_i or negedge s_rst_ni) begin
    if (!s_rst_ni) begin
      wp_q     <= '0;
      wc_q     <= '0;
      wcx_q    <= '0;
      req_q    <= 1'b0;
      ack_s1_q <= 1'b0;
      ack_s2_q <= 1'b0;
      rpg_s1_q <= '0;
      rpg_s2_q <= '0;
      drop_q   <= 1'b0;
    end else begin
      rpg_s1_q <= rpg_g_q;
      rpg_s2_q <= rpg_s1_q;
      ack_s1_q <= ack_q;
      ack_s2_q <= ack_s1_q;
      // The last transfer is acknowledged: carry the newest commit.
      if (req_q == ack_s2_q && wcx_q != wc_q) begin
        wcx_q <= wc_q;
        req_q <= !req_q;
      end
      if (s_fire) begin
        if (s_last_i) begin
          drop_q <= 1'b0;
          if (store && !s_bad_i) begin
            wp_q <= wp_q + 1'b1;
            wc_q <= wp_q + 1'b1;
          end else begin
            wp_q <= wc_q;
          end
        end else if (store) begin
          wp_q <= wp_q + 1'b1;
        end else begin
          drop_q <= 1'b1;
          wp_q   <= wc_q;
        end
      end
    end
  end

  always_ff @(posedge s_clk_i) begin
    if (store) mem_q[wp_q[AW-1:0]] <= {s_user_i, s_last_i, s_keep_i, s_data_i};
  end

  // ------------------------------------------------------------- read side
  // Room for the beat in flight from the RAM plus this one.
  assign issue = rp_q != wc_m_q && (ob_cnt_q + 3'(ram_v_q)) < 3'd3;
  assign pop   = m_valid_o && m_ready_i;

  always_ff @(posedge m_clk_i or negedge m_rst_ni) begin
    if (!m_rst_ni) begin
      rp_q     <= '0;
      rpg_g_q  <= '0;
      wc_m_q   <= '0;
      req_s1_q <= 1'b0;
      req_s2_q <= 1'b0;
      ack_q    <= 1'b0;
      ram_v_q  <= 1'b0;
      ob_rd_q  <= '0;
      ob_wr_q  <= '0;
      ob_cnt_q <= '0;
    end else begin
      req_s1_q <= req_q;
      req_s2_q <= req_s1_q;
      // wcx_q has been stable since req_q toggled, two flops ago.
      if (req_s2_q != ack_q) begin
        wc_m_q <= wcx_q;
        ack_q  <= req_s2_q;
      end
      ram_v_q  <= issue;
      if (issue) begin
        rp_q    <= rp_q + 1'b1;
        rpg_g_q <= gray(rp_q + 1'b1);
      end
      if (ram_v_q) ob_wr_q <= ob_wr_q + 1'b1;
      if (pop) ob_rd_q <= ob_rd_q + 1'b1;
      ob_cnt_q <= ob_cnt_q + 3'(ram_v_q) - 3'(pop);
    end
  end

  always_ff @(posedge m_clk_i) begin
    if (issue) ram_q <= mem_q[rp_q[AW-1:0]];
    if (ram_v_q) ob_q[ob_wr_q] <= ram_q;
  end

  assign m_valid_o = ob_cnt_q != '0;
  assign {m_user_o, m_last_o, m_keep_o, m_data_o} = ob_q[ob_rd_q];

endmodule : kite_mac_fifo
