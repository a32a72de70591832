// One port's crossing between the card's host clock (250 MHz, PCIe user
// clock) and its CMAC's clock (322.27 MHz): a TX frame FIFO towards the MAC
// (back-pressure; the MAC never sees a frame before all of it is here) and
// an RX frame FIFO from the MAC (the MAC cannot wait: a frame that does not
// fit is dropped whole and counted). See kite_mac_fifo.
//
// RX drops are counted in the MAC domain and the count crosses in Gray code;
// rx_drop_o pulses once per drop in the host domain (drops are at most one
// per MAC cycle and a frame apart, so the host side keeps up).
module kite_mac_cdc #(
  parameter int unsigned DW       = 512,
  parameter int unsigned TX_UW    = 1,
  parameter int unsigned RX_UW    = 1,
  parameter int unsigned TX_DEPTH = 256,   // >= the largest frame (9018 B: 141 beats)
  parameter int unsigned RX_DEPTH = 256
) (
  input  logic              host_clk_i,
  input  logic              host_rst_ni,
  input  logic              mac_clk_i,
  input  logic              mac_rst_ni,

  // TX: host side in, MAC side out
  input  logic              tx_s_valid_i,
  output logic              tx_s_ready_o,
  input  logic [DW-1:0]     tx_s_data_i,
  input  logic [DW/8-1:0]   tx_s_keep_i,
  input  logic              tx_s_last_i,
  input  logic [TX_UW-1:0]  tx_s_user_i,
  input  logic              tx_s_bad_i,
  output logic              tx_drop_o,      // host domain: a frame over TX_DEPTH beats
  output logic              tx_m_valid_o,
  input  logic              tx_m_ready_i,
  output logic [DW-1:0]     tx_m_data_o,
  output logic [DW/8-1:0]   tx_m_keep_o,
  output logic              tx_m_last_o,
  output logic [TX_UW-1:0]  tx_m_user_o,

  // RX: MAC side in (no back-pressure), host side out
  input  logic              rx_s_valid_i,
  input  logic [DW-1:0]     rx_s_data_i,
  input  logic [DW/8-1:0]   rx_s_keep_i,
  input  logic              rx_s_last_i,
  input  logic [RX_UW-1:0]  rx_s_user_i,
  output logic              rx_m_valid_o,
  input  logic              rx_m_ready_i,
  output logic [DW-1:0]     rx_m_data_o,
  output logic [DW/8-1:0]   rx_m_keep_o,
  output logic              rx_m_last_o,
  output logic [RX_UW-1:0]  rx_m_user_o,
  output logic              rx_drop_o       // host domain, one pulse per dropped frame
);

  kite_mac_fifo #(.DW(DW), .UW(TX_UW), .DEPTH(TX_DEPTH), .DROP_FULL(1'b0)) u_tx (
    .s_clk_i(host_clk_i), .s_rst_ni(host_rst_ni),
    .s_valid_i(tx_s_valid_i), .s_ready_o(tx_s_ready_o), .s_data_i(tx_s_data_i), .s_keep_i(tx_s_keep_i),
    .s_last_i(tx_s_last_i), .s_user_i(tx_s_user_i), .s_bad_i(tx_s_bad_i), .s_drop_o(tx_drop_o),
    .m_clk_i(mac_clk_i), .m_rst_ni(mac_rst_ni),
    .m_valid_o(tx_m_valid_o), .m_ready_i(tx_m_ready_i), .m_data_o(tx_m_data_o), .m_keep_o(tx_m_keep_o),
    .m_last_o(tx_m_last_o), .m_user_o(tx_m_user_o)
  );

  logic rx_drop_mac;
  logic rx_s_ready_unused;

  kite_mac_fifo #(.DW(DW), .UW(RX_UW), .DEPTH(RX_DEPTH), .DROP_FULL(1'b1)) u_rx (
    .s_clk_i(mac_clk_i), .s_rst_ni(mac_rst_ni),
    .s_valid_i(rx_s_valid_i), .s_ready_o(rx_s_ready_unused), .s_data_i(rx_s_data_i),
    .s_keep_i(rx_s_keep_i), .s_last_i(rx_s_last_i), .s_user_i(rx_s_user_i), .s_bad_i(1'b0),
    .s_drop_o(rx_drop_mac),
    .m_clk_i(host_clk_i), .m_rst_ni(host_rst_ni),
    .m_valid_o(rx_m_valid_o), .m_ready_i(rx_m_ready_i), .m_data_o(rx_m_data_o), .m_keep_o(rx_m_keep_o),
    .m_last_o(rx_m_last_o), .m_user_o(rx_m_user_o)
  );

  // RX drop count: MAC domain counter, Gray across, host domain catches up.
  logic [7:0] dcnt_q, dcntg_q, dg_s1_q, dg_s2_q, hcnt_q, d_host;

  always_ff @(posedge mac_clk_i or negedge mac_rst_ni) begin
    if (!mac_rst_ni) begin
      dcnt_q  <= '0;
      dcntg_q <= '0;
    end else if (rx_drop_mac) begin
      dcnt_q  <= dcnt_q + 1'b1;
      dcntg_q <= (dcnt_q + 1'b1) ^ ((dcnt_q + 1'b1) >> 1);
    end
  end

  function automatic logic [7:0] ungray8(input logic [7:0] g);
    logic [7:0] b;
    b[7] = g[7];
    for (int i = 6; i >= 0; i--) b[i] = b[i + 1] ^ g[i];
    ungray8 = b;
  endfunction

  assign d_host = ungray8(dg_s2_q);

  always_ff @(posedge host_clk_i or negedge host_rst_ni) begin
    if (!host_rst_ni) begin
      dg_s1_q <= '0;
      dg_s2_q <= '0;
      hcnt_q  <= '0;
    end else begin
      dg_s1_q <= dcntg_q;
      dg_s2_q <= dg_s1_q;
      if (hcnt_q != d_host) hcnt_q <= hcnt_q + 1'b1;
    end
  end

  assign rx_drop_o = hcnt_q != d_host;

endmodule : kite_mac_cdc
