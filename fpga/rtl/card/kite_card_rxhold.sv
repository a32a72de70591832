// Per-port receive buffer for PAUSE (model: PortState::held and
// RxPipeline::retry, fpga/model/rxp/rxp.cpp).
//
// The two ports share the RX path after the card's frame-level round robin,
// so a frame that must wait for a receive buffer cannot wait in it without
// stopping the other port. Instead each port keeps its frames here until
// kite_rx_dma has decided them (commit_i, oldest first). A frame that found
// its ring empty on a port with PAUSE_RX is parked: kite_rx_dma says so at
// dispatch (park_i) and, in frame order, when it is the oldest undecided
// frame (rewind_i). Reading then goes back to that frame's first beat, the
// frames sent after it are forgotten here (they carry the old epoch,
// m_epoch_o, so the card has kite_rx_dma discard them) and will be sent
// again, and the port sends nothing (xoff_o, the pause request to the MAC)
// until resume_i: something that could let the frame through changed (an RQ
// doorbell or RQ context of the port, the port's PAUSE setting). A resume
// between park_i and rewind_i counts, so a doorbell that raced the
// decision is not lost. A rewind waits for the end of a frame being sent,
// so frames leave whole. From the park on, no new frame starts: it would be
// sent again after the rewind anyway, and were stale frames to fill the
// buffer while one is being sent, that frame could not end (its beats find
// no room, the rewind waits for its end, and no commit comes before it).
// So the buffer never holds more than the frames the card had taken before
// the park plus one frame.
//
// Frames come packed from lane 0, every beat but the last full, so a beat
// is stored as its data, a byte count and last. DEPTH covers a port's share
// of kite_rx_dma's frame buffer plus the frames behind them, so holding
// frames until their outcome does not slow the port.
module kite_card_rxhold #(
  parameter int unsigned DEPTH = 1024,  // 64-byte beats (power of 2)
  parameter int unsigned NF    = 64     // frames sent and undecided (power of 2)
) (
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
  output logic         m_last_o,
  output logic         m_epoch_o,

  input  logic         commit_i,
  input  logic         park_i,
  input  logic         rewind_i,
  input  logic         resume_i,
  output logic         xoff_o
);
  localparam int unsigned AW = $clog2(DEPTH);
  localparam int unsigned FW = $clog2(NF);
  localparam int unsigned EW = 1 + 7 + 512;

  logic [EW-1:0] mem [DEPTH];
  logic [AW:0]   wr_q, rd_q, cm_q;         // rd_q is also the address after the beat in out_q
  logic [EW-1:0] out_q;
  logic          ov_q, mid_q, pend_q, pk_q, blk_q, seen_q, ep_q;
  logic [AW:0]   ef_mem [NF];               // end of each frame sent and undecided
  logic [FW:0]   ef_wr_q, ef_rd_q;

  logic [6:0] s_cnt;
  always_comb begin
    s_cnt = '0;
    for (int i = 0; i < 64; i++) if (s_keep_i[i]) s_cnt = 7'(i + 1);
  end

  assign s_ready_o = (wr_q - cm_q) != (AW + 1)'(DEPTH);
  always_ff @(posedge clk_i) if (s_valid_i && s_ready_o) mem[wr_q[AW-1:0]] <= {s_last_i, s_cnt, s_data_i};

  // A new frame starts only when no park waits for its rewind and its end
  // can be recorded.
  logic ef_full, hold, rd_en, m_go, do_rewind;
  assign ef_full   = (ef_wr_q - ef_rd_q) == (FW + 1)'(NF);
  assign hold      = !mid_q && (pk_q || pend_q || ef_full);
  assign m_valid_o = ov_q && !hold;
  assign m_go      = m_valid_o && m_ready_i;
  assign rd_en     = rd_q != wr_q && !blk_q && !((pk_q || pend_q) && !mid_q) && (!ov_q || m_go);
  assign do_rewind = pend_q && !mid_q;

  logic [6:0] o_cnt;
  assign {m_last_o, o_cnt} = out_q[EW-1 -: 8];
  assign m_data_o  = out_q[511:0];
  assign m_keep_o  = o_cnt[6] ? '1 : (64'd1 << o_cnt[5:0]) - 64'd1;
  assign m_epoch_o = ep_q;
  assign xoff_o    = blk_q;

  always_ff @(posedge clk_i) begin
    if (rd_en) out_q <= mem[rd_q[AW-1:0]];
    if (m_go && m_last_o) ef_mem[ef_wr_q[FW-1:0]] <= rd_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q    <= '0;
      rd_q    <= '0;
      cm_q    <= '0;
      ov_q    <= 1'b0;
      mid_q   <= 1'b0;
      pend_q  <= 1'b0;
      pk_q    <= 1'b0;
      blk_q   <= 1'b0;
      seen_q  <= 1'b0;
      ep_q    <= 1'b0;
      ef_wr_q <= '0;
      ef_rd_q <= '0;
    end else begin
      if (s_valid_i && s_ready_o) wr_q <= wr_q + 1'b1;
      if (m_go) mid_q <= !m_last_o;
      if (commit_i) begin
        cm_q    <= ef_mem[ef_rd_q[FW-1:0]];
        ef_rd_q <= ef_rd_q + 1'b1;
      end
      if (park_i) seen_q <= resume_i;
      else if (resume_i) seen_q <= 1'b1;
      if (blk_q && resume_i) blk_q <= 1'b0;
      if (park_i) pk_q <= 1'b1;
      if (rewind_i) pend_q <= 1'b1;
      if (do_rewind) begin
        // The parked frame is the oldest undecided (no commit now).
        rd_q    <= cm_q;
        ov_q    <= 1'b0;
        ep_q    <= !ep_q;
        ef_wr_q <= ef_rd_q + FW'(commit_i);
        blk_q   <= !(seen_q || resume_i);
        pend_q  <= 1'b0;
        pk_q    <= 1'b0;
      end else begin
        if (m_go && m_last_o) ef_wr_q <= ef_wr_q + 1'b1;
        if (rd_en) begin
          rd_q <= rd_q + 1'b1;
          ov_q <= 1'b1;
        end else if (m_go) begin
          ov_q <= 1'b0;
        end
      end
    end
  end
endmodule
