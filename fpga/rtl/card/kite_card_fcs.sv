// TX frame end for one MAC port, as the model's Mac::send: frames shorter
// than 60 bytes are zero-padded to 60, then the FCS (kite_mac_crc32) is
// appended (into the last beat, or one extra beat when it does not fit).
// Every beat but the last passes at once; the last waits for the CRC.
// A frame with s_no_fcs_i (wqe_eth NO_FCS, valid on its beats) leaves as it
// came, neither padded nor given an FCS (the model's Mac::send with no_fcs:
// the frame carries its own); it still counts, its length less 4 bytes.
module kite_card_fcs (
  input  logic         clk_i,
  input  logic         rst_ni,

  input  logic         s_valid_i,
  output logic         s_ready_o,
  input  logic [511:0] s_data_i,
  input  logic [63:0]  s_keep_i,
  input  logic         s_last_i,
  input  logic         s_no_fcs_i,

  output logic         m_valid_o,
  input  logic         m_ready_i,
  output logic [511:0] m_data_o,
  output logic [63:0]  m_keep_o,
  output logic         m_last_o,

  output logic         frame_o,      // pulse per frame sent (tx_packets)
  output logic [15:0]  frame_len_o   // its length without FCS (tx_bytes)
);
  typedef enum logic [1:0] {S_PASS, S_CRC, S_EXTRA} state_e;
  state_e state_q;

  logic         first_q, nf_q, pad;
  logic [6:0]   n, hold_n_q;
  logic [63:0]  keep_p;
  logic [511:0] data_p, hold_q;
  logic [31:0]  crc_q;
  logic         o_valid_q, o_last_q;
  logic [511:0] o_data_q;
  logic [63:0]  o_keep_q;

  always_comb begin
    n = '0;
    for (int i = 0; i < 64; i++) n = n + 7'(s_keep_i[i]);
    pad    = s_last_i && first_q && n < 7'd60 && !s_no_fcs_i;
    keep_p = pad ? {4'h0, 60'hfff_ffff_ffff_ffff} : s_keep_i;
    data_p = s_data_i;
    for (int i = 0; i < 64; i++) if (!s_keep_i[i]) data_p[8*i +: 8] = 8'h00;
  end

  logic        c_ready, c_valid, c_take, o_free, s_go;
  logic [31:0] c_crc;
  logic [15:0] c_len;
  logic        c_res;
  assign o_free    = !o_valid_q || m_ready_i;
  assign s_ready_o = state_q == S_PASS && c_ready && o_free;
  assign s_go      = s_valid_i && s_ready_o;
  assign c_take    = state_q == S_CRC && c_valid && o_free;

  kite_mac_crc32 u_crc (
    .clk_i, .rst_ni,
    .s_valid_i(s_valid_i && state_q == S_PASS && o_free),
    .s_ready_o(c_ready),
    .s_data_i(data_p),
    .s_keep_i(keep_p),
    .s_last_i(s_last_i),
    .m_valid_o(c_valid),
    .m_ready_i(c_take),
    .m_crc_o(c_crc),
    .m_len_o(c_len),
    .m_residue_ok_o(c_res)
  );
  logic unused_res;
  assign unused_res = c_res;

  logic [6:0] np;
  assign np = pad ? 7'd60 : n;

  assign m_valid_o   = o_valid_q;
  assign m_data_o    = o_data_q;
  assign m_keep_o    = o_keep_q;
  assign m_last_o    = o_last_q;
  assign frame_o     = c_take;
  assign frame_len_o = nf_q ? c_len - 16'd4 : c_len;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= S_PASS;
      first_q   <= 1'b1;
      nf_q      <= 1'b0;
      hold_n_q  <= '0;
      hold_q    <= '0;
      crc_q     <= '0;
      o_valid_q <= 1'b0;
      o_last_q  <= 1'b0;
      o_data_q  <= '0;
      o_keep_q  <= '0;
    end else begin
      if (m_ready_i) o_valid_q <= 1'b0;
      unique case (state_q)
        S_PASS: if (s_go) begin
          first_q <= s_last_i;
          if (!s_last_i) begin
            o_valid_q <= 1'b1;
            o_data_q  <= data_p;
            o_keep_q  <= keep_p;
            o_last_q  <= 1'b0;
          end else begin
            hold_q   <= data_p;
            hold_n_q <= np;
            nf_q     <= s_no_fcs_i;
            state_q  <= S_CRC;
          end
        end
        S_CRC: if (c_take) begin
          o_valid_q <= 1'b1;
          crc_q     <= c_crc;
          if (nf_q) begin
            o_data_q <= hold_q;
            o_keep_q <= hold_n_q >= 7'd64 ? '1 : (64'd1 << hold_n_q) - 64'd1;
            o_last_q <= 1'b1;
            state_q  <= S_PASS;
          end else if (hold_n_q <= 7'd60) begin
            o_data_q <= hold_q | (512'(c_crc) << {hold_n_q, 3'b000});
            o_keep_q <= (64'd1 << (hold_n_q + 7'd4)) - 64'd1;
            o_last_q <= 1'b1;
            state_q  <= S_PASS;
          end else begin
            o_data_q <= hold_q | (512'(c_crc) << {hold_n_q, 3'b000});
            o_keep_q <= '1;
            o_last_q <= 1'b0;
            state_q  <= S_EXTRA;
          end
        end
        S_EXTRA: if (o_free) begin
          o_valid_q <= 1'b1;
          o_data_q  <= {480'd0, crc_q >> {7'd64 - hold_n_q, 3'b000}};
          o_keep_q  <= (64'd1 << (hold_n_q - 7'd60)) - 64'd1;
          o_last_q  <= 1'b1;
          state_q   <= S_PASS;
        end
        default: state_q <= S_PASS;
      endcase
    end
  end

endmodule : kite_card_fcs
