// Carries N kinds of one-cycle event pulses from one clock domain to another
// without losing or merging any: one dst_ev_o pulse per src_ev_i event. Used
// for a CMAC's statistics pulses (322.27 MHz) on their way to the card's
// counters (250 MHz host clock), and for kite_mac_cdc's RX drop count.
//
// Per kind, the source counts its events; the count crosses in Gray code
// through a two-flop synchronizer, and the destination counts up to it, one
// step per cycle, pulsing dst_ev_o while it is behind. A toggle or
// request/acknowledge handshake would need several cycles of both clocks
// per event; the count absorbs events in consecutive source cycles.
//
// The Gray copy is a register, not a function of the binary one: it changes
// by at most one bit per source cycle and never glitches, so a destination
// sampling it mid-change reads the old or the new count, nothing else. That
// holds while the bits' skew stays under one source period; the bound is
// set in fpga/syn/vivado/kite_mac_ev_cdc.xdc.
//
// Rate limit. Each src_ev_i bit carries at most one event per source cycle,
// and the destination emits at most one pulse per kind per cycle, so a
// faster source builds up a backlog. The counts are compared modulo 2^CW:
// a burst that leaves more than 2^CW-1 events unreported loses 2^CW of them
// (the destination sees the count wrap as no difference). On the board, events every MAC cycle would
// outrun the host clock by 322.27 vs 250 MHz (the backlog grows by 0.22 per
// MAC cycle: 255 after about 1,140 cycles, 3.5 us). MAC events come at most
// one per frame per kind, and a frame at 100 Gb/s takes at least 84 bytes
// on the wire (64 B, preamble, inter-frame gap): 6.72 ns, 148.8 M events/s
// against 250 M pulses/s. The backlog is then only the synchronizer delay
// and the few frame ends a MAC may hand over in consecutive cycles, far
// below 2^CW-1 = 255 (CW = 8).
//
// Both sides must leave reset together: each counter starts at zero, and a
// side reset alone would see the other's count jump (spurious or lost
// pulses).
module kite_mac_ev_cdc #(
  parameter int unsigned N  = 1,
  parameter int unsigned CW = 8    // backlog up to 2^CW-1 events per kind
) (
  input  logic         src_clk_i,
  input  logic         src_rst_ni,
  input  logic [N-1:0] src_ev_i,    // each bit: at most one event per cycle
  input  logic         dst_clk_i,
  input  logic         dst_rst_ni,
  output logic [N-1:0] dst_ev_o     // one pulse per source event
);

  function automatic logic [CW-1:0] gray(input logic [CW-1:0] b);
    gray = b ^ (b >> 1);
  endfunction

  function automatic logic [CW-1:0] ungray(input logic [CW-1:0] g);
    logic [CW-1:0] b;
    b[CW-1] = g[CW-1];
    for (int i = CW - 1; i > 0; i--) b[i - 1] = b[i] ^ g[i - 1];
    ungray = b;
  endfunction

  // One independent crossing per event kind.
  for (genvar i = 0; i < N; i++) begin : g_ev
    logic [CW-1:0] src_cnt_q, src_cntg_q;   // source count, its Gray copy
    logic [CW-1:0] dst_s1_q, dst_s2_q;      // synchronizer (Gray)
    logic [CW-1:0] dst_cnt_q, dst_seen;     // events reported, events known

    always_ff @(posedge src_clk_i or negedge src_rst_ni) begin
      if (!src_rst_ni) begin
        src_cnt_q  <= '0;
        src_cntg_q <= '0;
      end else if (src_ev_i[i]) begin
        src_cnt_q  <= src_cnt_q + 1'b1;
        src_cntg_q <= gray(src_cnt_q + 1'b1);
      end
    end

    assign dst_seen    = ungray(dst_s2_q);
    assign dst_ev_o[i] = dst_cnt_q != dst_seen;

    always_ff @(posedge dst_clk_i or negedge dst_rst_ni) begin
      if (!dst_rst_ni) begin
        dst_s1_q  <= '0;
        dst_s2_q  <= '0;
        dst_cnt_q <= '0;
      end else begin
        dst_s1_q <= src_cntg_q;
        dst_s2_q <= dst_s1_q;
        if (dst_ev_o[i]) dst_cnt_q <= dst_cnt_q + 1'b1;
      end
    end
  end

endmodule : kite_mac_ev_cdc
