// TX gather of one port: reads the gather entries of each checked ETH_TX
// descriptor (kite_qm_fetch d_*, one entry per transfer) over the DMA read
// interface and packs them into one frame stream for kite_txp_lso, with the
// descriptor's Ethernet segment, total length and first-entry length. A
// signaled WQE gets its ETH_TX SUCCESS CQE (byte_cnt = total, hash_type =
// the WQE opcode, as the model's TxPipeline::complete) once its last byte has
// been handed on.
//
// Responses are address-aligned (lane = address mod 64, keep marks the
// bytes); each beat is shifted down to lane 0 and appended to a two-beat
// accumulator, so entries of any length and alignment pack without gaps.
// One entry is read at a time.
//
// A failed read (rd_rsp_err_i) still ends the frame (its bytes are
// undefined) and pulses dma_err_o; the WQE's completion is then ERROR
// LOC_PROT_ERR. The model would not send the frame: see rtl.rst.
module kite_card_txg #(
  parameter int unsigned NQ   = 512,
  parameter int unsigned FN_W = 5
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  input  logic                  d_valid_i,
  output logic                  d_ready_o,
  input  logic [$clog2(NQ)-1:0] d_sqn_i,
  input  logic [FN_W-1:0]       d_fn_i,
  input  logic [15:0]           d_cqn_i,
  input  logic [15:0]           d_wqe_index_i,
  input  logic                  d_signaled_i,
  input  logic [127:0]          d_eth_i,
  input  logic [16:0]           d_total_i,
  input  logic [63:0]           d_sge_addr_i,
  input  logic [31:0]           d_sge_len_i,
  input  logic                  d_last_i,

  output logic                  rd_valid_o,
  input  logic                  rd_ready_i,
  output logic [FN_W-1:0]       rd_fn_o,
  output logic [63:0]           rd_addr_o,
  output logic [15:0]           rd_len_o,
  input  logic                  rd_rsp_valid_i,
  output logic                  rd_rsp_ready_o,
  input  logic [511:0]          rd_rsp_data_i,
  input  logic [63:0]           rd_rsp_keep_i,
  input  logic                  rd_rsp_last_i,
  input  logic                  rd_rsp_err_i,

  output logic                  m_valid_o,
  input  logic                  m_ready_i,
  output logic [511:0]          m_data_o,
  output logic [63:0]           m_keep_o,
  output logic                  m_last_o,
  output logic [127:0]          m_eth_o,
  output logic [31:0]           m_len_o,
  output logic [31:0]           m_first_len_o,

  output logic                  cqe_valid_o,
  input  logic                  cqe_ready_i,
  output logic [15:0]           cqe_cqn_o,
  output logic [255:0]          cqe_data_o,

  output logic                  dma_err_o
);
  typedef enum logic [2:0] {S_REQ, S_RSP, S_FLUSH, S_CQE} state_e;
  state_e state_q;

  logic                  first_q, last_entry_q, err_q, sig_q;
  logic [$clog2(NQ)-1:0] sqn_q;
  logic [15:0]           cqn_q, idx_q;
  logic [127:0]          eth_q;
  logic [16:0]           total_q;
  logic [31:0]           first_len_q;
  logic [1023:0]         acc_q;
  logic [6:0]            cnt_q;
  logic                  o_valid_q, o_last_q;
  logic [511:0]          o_data_q;
  logic [63:0]           o_keep_q;

  // Lanes of the response beat: the first set keep bit and how many.
  logic [5:0]    lo;
  logic [6:0]    n;
  logic [1023:0] acc_new;
  logic [7:0]    cnt_new;
  always_comb begin
    lo = '0;
    n  = '0;
    for (int i = 63; i >= 0; i--) if (rd_rsp_keep_i[i]) lo = 6'(i);
    for (int i = 0; i < 64; i++) n = n + 7'(rd_rsp_keep_i[i]);
    acc_new = acc_q | ({512'd0, rd_rsp_data_i >> {lo, 3'b000}} << {cnt_q, 3'b000});
    cnt_new = 8'(cnt_q) + 8'(n);
  end

  logic o_free, rsp_go, final_beat;
  assign o_free     = !o_valid_q || m_ready_i;
  assign rd_rsp_ready_o = state_q == S_RSP && o_free;
  assign rsp_go     = rd_rsp_valid_i && rd_rsp_ready_o;
  assign final_beat = rd_rsp_last_i && last_entry_q;

  assign d_ready_o  = state_q == S_REQ && rd_ready_i;
  assign rd_valid_o = state_q == S_REQ && d_valid_i;
  assign rd_fn_o    = d_fn_i;
  assign rd_addr_o  = d_sge_addr_i;
  assign rd_len_o   = d_sge_len_i[15:0];

  assign m_valid_o     = o_valid_q;
  assign m_data_o      = o_data_q;
  assign m_keep_o      = o_keep_q;
  assign m_last_o      = o_last_q;
  assign m_eth_o       = eth_q;
  assign m_len_o       = 32'(total_q);
  assign m_first_len_o = first_len_q;

  // kite_pkg::cqe_t as bytes (see kite_rx_dma).
  logic [255:0] cqe;
  always_comb begin
    cqe = '0;
    cqe[31:0]    = 32'(total_q);
    cqe[95:64]   = 32'(sqn_q);
    cqe[143:128] = idx_q;
    cqe[151:144] = err_q ? 8'(kite_pkg::CQE_OPCODE_ERROR) : 8'(kite_pkg::CQE_OPCODE_ETH_TX);
    cqe[159:152] = err_q ? 8'(kite_pkg::CQE_STATUS_LOC_PROT_ERR) : 8'(kite_pkg::CQE_STATUS_SUCCESS);
    cqe[175:168] = 8'(kite_pkg::WQE_OPCODE_ETH_TX);
  end
  assign cqe_valid_o = state_q == S_CQE;
  assign cqe_cqn_o   = cqn_q;
  assign cqe_data_o  = cqe;
  assign dma_err_o   = rsp_go && rd_rsp_err_i;

  function automatic logic [63:0] keep_of(input logic [7:0] c);
    keep_of = c >= 8'd64 ? '1 : (64'd1 << c) - 64'd1;
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= S_REQ;
      first_q      <= 1'b1;
      last_entry_q <= 1'b0;
      err_q        <= 1'b0;
      sig_q        <= 1'b0;
      sqn_q        <= '0;
      cqn_q        <= '0;
      idx_q        <= '0;
      eth_q        <= '0;
      total_q      <= '0;
      first_len_q  <= '0;
      acc_q        <= '0;
      cnt_q        <= '0;
      o_valid_q    <= 1'b0;
      o_last_q     <= 1'b0;
      o_data_q     <= '0;
      o_keep_q     <= '0;
    end else begin
      if (m_ready_i) o_valid_q <= 1'b0;
      unique case (state_q)
        S_REQ: if (d_valid_i && rd_ready_i) begin
          last_entry_q <= d_last_i;
          if (first_q) begin
            sqn_q       <= d_sqn_i;
            cqn_q       <= d_cqn_i;
            idx_q       <= d_wqe_index_i;
            sig_q       <= d_signaled_i;
            eth_q       <= d_eth_i;
            total_q     <= d_total_i;
            first_len_q <= d_sge_len_i;
            err_q       <= 1'b0;
          end
          first_q <= d_last_i;
          state_q <= S_RSP;
        end
        S_RSP: if (rsp_go) begin
          if (rd_rsp_err_i) err_q <= 1'b1;
          if (cnt_new >= 8'd64 || final_beat) begin
            o_valid_q <= 1'b1;
            o_data_q  <= acc_new[511:0];
            o_keep_q  <= keep_of(cnt_new);
            o_last_q  <= final_beat && cnt_new <= 8'd64;
          end
          if (cnt_new >= 8'd64) begin
            acc_q <= acc_new >> 512;
            cnt_q <= 7'(cnt_new - 8'd64);
          end else begin
            acc_q <= final_beat ? '0 : acc_new;
            cnt_q <= final_beat ? '0 : cnt_new[6:0];
          end
          if (rd_rsp_last_i) begin
            if (!last_entry_q) state_q <= S_REQ;
            else if (cnt_new > 8'd64) state_q <= S_FLUSH;
            else state_q <= sig_q || err_q || rd_rsp_err_i ? S_CQE : S_REQ;
          end
        end
        S_FLUSH: if (o_free) begin
          o_valid_q <= 1'b1;
          o_data_q  <= acc_q[511:0];
          o_keep_q  <= keep_of(8'(cnt_q));
          o_last_q  <= 1'b1;
          acc_q     <= '0;
          cnt_q     <= '0;
          state_q   <= sig_q || err_q ? S_CQE : S_REQ;
        end
        S_CQE: if (cqe_ready_i) state_q <= S_REQ;
        default: state_q <= S_REQ;
      endcase
    end
  end

endmodule : kite_card_txg
