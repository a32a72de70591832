// The TX offload path after gather: TSO/USO segmentation (kite_txp_tso)
// then checksum and VLAN tag insertion (kite_txp), as the model's TX
// pipeline emits a WQE: tx_lso's segments, or the frame with tx_l3_csum /
// tx_l4_csum, then tx_vlan_insert on each frame.
//
// m_no_fcs_o: the wqe_eth NO_FCS flag of the frame on m_* (every segment of
// a super-frame keeps it, as the model's emit), for the MAC's FCS stage;
// kite_txp carries it in its per-frame record. drop_cnt_o counts the frames
// either block dropped (kite_txp drops none of kite_txp_tso's output).
module kite_txp_lso #(
  parameter int unsigned DATA_W = 512
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                s_valid_i,
  output logic                s_ready_o,
  input  logic [DATA_W-1:0]   s_data_i,
  input  logic [DATA_W/8-1:0] s_keep_i,
  input  logic                s_last_i,
  input  logic [127:0]        s_eth_i,       // kite_pkg::wqe_eth_t
  input  logic [31:0]         s_len_i,       // frame length (sum of the gather entries)
  input  logic [31:0]         s_first_len_i, // length of the first gather entry

  output logic                m_valid_o,
  input  logic                m_ready_i,
  output logic [DATA_W-1:0]   m_data_o,
  output logic [DATA_W/8-1:0] m_keep_o,
  output logic                m_last_o,
  output logic                m_no_fcs_o,

  output logic [31:0]         lso_cnt_o,
  output logic [31:0]         seg_cnt_o,
  output logic [31:0]         drop_cnt_o,    // kite_txp_tso's drops plus kite_txp's
  output logic                v_valid_o,     // kite_txp_tso's verdict per input frame
  output logic                v_ok_o
);

  logic                t_valid, t_ready, t_last;
  logic [31:0]         tso_drops, txp_drops;
  logic [DATA_W-1:0]   t_data;
  logic [DATA_W/8-1:0] t_keep;
  logic [127:0]        t_eth;

  kite_txp_tso #(.DATA_W(DATA_W)) u_tso (
    .clk_i, .rst_ni,
    .s_valid_i, .s_ready_o, .s_data_i, .s_keep_i, .s_last_i, .s_eth_i, .s_len_i, .s_first_len_i,
    .m_valid_o (t_valid), .m_ready_i (t_ready), .m_data_o (t_data), .m_keep_o (t_keep),
    .m_last_o  (t_last),  .m_eth_o   (t_eth),
    .lso_cnt_o, .seg_cnt_o, .drop_cnt_o (tso_drops), .v_valid_o, .v_ok_o
  );

  kite_txp #(.DATA_W(DATA_W)) u_txp (
    .clk_i, .rst_ni,
    .s_valid_i (t_valid), .s_ready_o (t_ready), .s_data_i (t_data), .s_keep_i (t_keep),
    .s_last_i  (t_last),  .s_eth_i   (t_eth),
    .m_valid_o, .m_ready_i, .m_data_o, .m_keep_o, .m_last_o, .m_no_fcs_o,
    .drop_cnt_o (txp_drops)
  );

  assign drop_cnt_o = tso_drops + txp_drops;

endmodule : kite_txp_lso
