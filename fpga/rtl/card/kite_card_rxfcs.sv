// RX FCS removal for the parser: the MAC passes each frame with its 4 FCS
// bytes (CMAC ctl_rx_delete_fcs = 0, so kite_rx_dma can deliver them to RQs
// with RX_FCS); kite_rxp must see the frame without them. One beat is held
// until the next shows where the frame ends: a last beat of 4 bytes or less
// is all FCS and is dropped, trimming the held beat. One beat per cycle;
// beats are packed from lane 0, all but a frame's last full (the MAC's
// AXI-Stream). A frame of 4 bytes or less (the MAC drops runts) leaves as
// one byte, so every frame still gives kite_rxp one record.
module kite_card_rxfcs (
  input  logic         clk_i,
  input  logic         rst_ni,

  input  logic         s_valid_i,
  output logic         s_ready_o,
  input  logic [511:0] s_data_i,
  input  logic [63:0]  s_keep_i,
  input  logic         s_last_i,

  output logic         m_valid_o,
  input  logic         m_ready_i,
  output logic [511:0] m_data_o,
  output logic [63:0]  m_keep_o,
  output logic         m_last_o
);

  logic         hv_q, hl_q;  // a beat held; it ends its frame (FCS already trimmed)
  logic [511:0] hd_q;
  logic [63:0]  hk_q;
  logic         short_last;  // input beat is last and FCS only (lane 4 not kept)
  logic         take;

  assign short_last = s_last_i && !s_keep_i[4];
  assign s_ready_o  = !hv_q || m_ready_i;
  assign take       = s_valid_i && s_ready_o;

  // A held beat that does not end its frame leaves with the next beat:
  // as last, its top lanes trimmed, when that one is FCS only.
  assign m_valid_o = hv_q && (hl_q || s_valid_i);
  assign m_data_o  = hd_q;
  assign m_last_o  = hl_q || short_last;
  assign m_keep_o  = hl_q ? hk_q : (short_last ? hk_q & {s_keep_i[3:0], {60{1'b1}}} : hk_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hv_q <= 1'b0;
      hl_q <= 1'b0;
    end else if (take) begin
      // Held beat (if any) leaves now; the input replaces it unless it was
      // the FCS tail of the held beat's frame.
      hv_q <= !(short_last && hv_q && !hl_q);
      hl_q <= s_last_i;
    end else if (m_valid_o && m_ready_i) begin
      hv_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (take) begin
      hd_q <= s_data_i;
      if (!s_last_i) hk_q <= s_keep_i;
      else if (short_last) hk_q <= 64'h1;      // a frame of 4 bytes or less
      else hk_q <= {4'h0, s_keep_i[63:4]};     // its last 4 lanes are FCS
    end
  end

endmodule : kite_card_rxfcs
