// One port's crossing between the card's host clock (250 MHz, PCIe user
// clock) and its CMAC's clock (322.27 MHz): a TX frame FIFO towards the MAC
// (back-pressure; the MAC never sees a frame before all of it is here) and
// an RX frame FIFO from the MAC (the MAC cannot wait: a frame that does not
// fit is dropped whole and counted). See kite_mac_fifo.
//
// RX: the CMAC flags a frame in error (bad FCS, ...) with its last beat
// (rx_axis_tuser), after the rest of it has been written; rx_s_bad_i then
// discards it whole in the FIFO, so the host never sees it. It is not
// counted on rx_drop_o, even when it did not fit either: the card counts bad
// frames from the MAC's statistics (mac_ev_i) and would count it twice.
//
// RX drops are counted in the MAC domain and the count crosses in Gray code
// (kite_mac_ev_cdc); rx_drop_o pulses once per drop in the host domain
// (drops are at most one per MAC cycle and a frame apart, so the host side
// keeps up). The MAC's statistics pulses (mac_ev_i, NEV kinds, each at most
// one per MAC cycle and per frame) cross the same way to host_ev_o, one
// host-clock pulse per event, for kite_card's mac_ev_i.
module kite_mac_cdc #(
  parameter int unsigned DW       = 512,
  parameter int unsigned TX_UW    = 1,
  parameter int unsigned RX_UW    = 1,
  parameter int unsigned TX_DEPTH = 256,   // >= the largest frame (9018 B: 141 beats)
  parameter int unsigned RX_DEPTH = 256,
  parameter int unsigned NEV      = 8      // MAC statistics event kinds
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
  input  logic              rx_s_bad_i,     // with the last beat: discard the frame
  output logic              rx_m_valid_o,
  input  logic              rx_m_ready_i,
  output logic [DW-1:0]     rx_m_data_o,
  output logic [DW/8-1:0]   rx_m_keep_o,
  output logic              rx_m_last_o,
  output logic [RX_UW-1:0]  rx_m_user_o,
  output logic              rx_drop_o,      // host domain, one pulse per dropped frame

  // MAC statistics: one-cycle pulses in, one host-clock pulse out per event
  input  logic [NEV-1:0]    mac_ev_i,
  output logic [NEV-1:0]    host_ev_o
);

  kite_mac_fifo #(.DW(DW), .UW(TX_UW), .DEPTH(TX_DEPTH), .DROP_FULL(1'b0)) u_tx (
    .s_clk_i(host_clk_i), .s_rst_ni(host_rst_ni),
    .s_valid_i(tx_s_valid_i), .s_ready_o(tx_s_ready_o), .s_data_i(tx_s_data_i), .s_keep_i(tx_s_keep_i),
    .s_last_i(tx_s_last_i), .s_user_i(tx_s_user_i), .s_bad_i(tx_s_bad_i), .s_drop_o(tx_drop_o),
    .m_clk_i(mac_clk_i), .m_rst_ni(mac_rst_ni),
    .m_valid_o(tx_m_valid_o), .m_ready_i(tx_m_ready_i), .m_data_o(tx_m_data_o), .m_keep_o(tx_m_keep_o),
    .m_last_o(tx_m_last_o), .m_user_o(tx_m_user_o)
  );

  logic rx_drop_mac, rx_drop_count;
  logic rx_s_ready_unused;

  kite_mac_fifo #(.DW(DW), .UW(RX_UW), .DEPTH(RX_DEPTH), .DROP_FULL(1'b1)) u_rx (
    .s_clk_i(mac_clk_i), .s_rst_ni(mac_rst_ni),
    .s_valid_i(rx_s_valid_i), .s_ready_o(rx_s_ready_unused), .s_data_i(rx_s_data_i),
    .s_keep_i(rx_s_keep_i), .s_last_i(rx_s_last_i), .s_user_i(rx_s_user_i), .s_bad_i(rx_s_bad_i),
    .s_drop_o(rx_drop_mac),
    .m_clk_i(host_clk_i), .m_rst_ni(host_rst_ni),
    .m_valid_o(rx_m_valid_o), .m_ready_i(rx_m_ready_i), .m_data_o(rx_m_data_o), .m_keep_o(rx_m_keep_o),
    .m_last_o(rx_m_last_o), .m_user_o(rx_m_user_o)
  );

  // The FIFO reports a frame that did not fit even when it was bad as well
  // (s_drop_o comes with the last beat, as s_bad_i): a bad frame would have
  // been discarded anyway and is counted by the MAC's statistics instead.
  assign rx_drop_count = rx_drop_mac && !rx_s_bad_i;

  kite_mac_ev_cdc #(.N(1)) u_rx_drop (
    .src_clk_i(mac_clk_i), .src_rst_ni(mac_rst_ni), .src_ev_i(rx_drop_count),
    .dst_clk_i(host_clk_i), .dst_rst_ni(host_rst_ni), .dst_ev_o(rx_drop_o)
  );

  kite_mac_ev_cdc #(.N(NEV)) u_ev (
    .src_clk_i(mac_clk_i), .src_rst_ni(mac_rst_ni), .src_ev_i(mac_ev_i),
    .dst_clk_i(host_clk_i), .dst_rst_ni(host_rst_ni), .dst_ev_o(host_ev_o)
  );

endmodule : kite_mac_cdc
