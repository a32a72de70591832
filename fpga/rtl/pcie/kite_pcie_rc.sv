// Requester completion (RC) stream of the UltraScale+ PCIe core (PG213,
// 512-bit, DWORD-aligned) to completion pieces for kite_pcie_rd: per cycle
// one TLP's 12-byte descriptor (its first piece) and the next 64 bytes of
// its payload, the first piece's lane 0 being the payload's first DW.
//
// Why: with 64-byte completions (a host's RCB; common), a TLP is 76 bytes.
// Without straddle each takes two beats, half the interface. With the core's
// 4-TLP straddle (AXISTEN_IF_EXT_512_RC_4TLP_STRADDLE) TLPs follow each other
// at 16-byte boundaries: 80 bytes each, 51.2 payload bytes per beat. The
// pieces are payload-aligned, so such a TLP is one piece, and the engine
// behind keeps up with the beats.
//
// TLPs are delimited by tuser only (tlast and tkeep are 0 / all ones in
// straddle mode): is_sop[i] with is_sopi_ptr (128-bit lane of the i-th TLP
// starting in the beat), is_eop[i] with is_eopi_ptr (last DW of the i-th TLP
// ending in it). The same fields describe a stream without straddle
// (is_sop[0] at lane 0), so one path serves the core configured either way.
//
// Beats wait in a 4-entry FIFO; the piece of a TLP that starts at lane q of
// the head beat H is bytes [16q + 12, 16q + 76) of {next beat N, H}: N is
// needed only when the TLP does not end in H. A TLP ends at the first end
// mark at or after its own DW 2 (TLPs do not overlap). Per cycle one piece
// leaves or a beat with nothing left to start is freed (the end of a TLP
// whose next one starts a beat later: with 64-byte completions one beat in
// five, so the pieces still keep pace with the beats). A beat of several
// short TLPs (payload under 64
// bytes each) takes a cycle per TLP: rc_tready_o then drops while the FIFO
// is full (the core holds completions in its own buffer meanwhile).
// Latency: 2 cycles (FIFO, piece register).
//
// Not used: byte_en (DWORD-aligned payloads are whole from the descriptor's
// lower address and byte count), discontinue (an error in the core's
// completion RAM; the completion is taken as it came), parity.
module kite_pcie_rc (
  input  logic          clk_i,
  input  logic          rst_ni,

  input  logic [511:0]  rc_tdata_i,
  input  logic [160:0]  rc_tuser_i,
  input  logic          rc_tvalid_i,
  output logic          rc_tready_o,

  output logic          pc_valid_o,
  output logic          pc_sop_o,     // piece carries the descriptor
  output logic          pc_eop_o,     // last piece of its TLP
  output logic [95:0]   pc_desc_o,    // valid with pc_sop_o
  output logic [511:0]  pc_data_o     // payload bytes [64k, 64k + 64) of piece k
);

  // PG213 512-bit m_axis_rc_tuser: [67:64] is_sop, [75:68] is_sop0..3_ptr
  // (2 bits each), [79:76] is_eop, [95:80] is_eop0..3_ptr (4 bits each).
  logic [3:0]  in_sopm;    // lanes where a TLP starts
  logic [15:0] in_eopm;    // DWs where a TLP ends
  always_comb begin
    in_sopm = '0;
    in_eopm = '0;
    for (int unsigned i = 0; i < 4; i++) begin
      if (rc_tuser_i[64 + i]) in_sopm[rc_tuser_i[68 + 2*i +: 2]] = 1'b1;
      if (rc_tuser_i[76 + i]) in_eopm[rc_tuser_i[80 + 4*i +: 4]] = 1'b1;
    end
  end

  function automatic logic [1:0] low4(input logic [2:0] m);   // 3 when m is 0
    low4 = m[0] ? 2'd0 : m[1] ? 2'd1 : m[2] ? 2'd2 : 2'd3;
  endfunction
  function automatic logic [1:0] lane12(input logic [11:0] m);   // lane of the lowest bit (3: none)
    lane12 = low4({|m[11:8], |m[7:4], |m[3:0]});
  endfunction
  function automatic logic [3:0] low16(input logic [15:0] m);
    low16 = 4'd15;
    for (int i = 15; i >= 0; i--) if (m[i]) low16 = 4'(i);
  endfunction

  // Where a TLP ends, worked out per start lane q as the beat comes in
  // (the emitter only picks by q): behind the FIFO's read, the search for
  // the end mark after q and for the next start after it led the emitter.
  // For a TLP starting at lane q of the beat (its own DW 2 is 4q + 2):
  // in_eh[q] it ends in the beat, in_nm[q] its end lane + 1 (the next TLP
  // starts at or after it) and in_rs[q] one starts there. For a TLP that
  // goes on into the beat: in_nle[q] it ends by DW 4q + 2 (a TLP from lane
  // q of the beat before ends here; the first end mark is its), in_nmn its
  // end lane + 1.
  logic [3:0]  in_eh, in_rs, in_nle;
  logic [11:0] in_nm;
  logic [2:0]  in_nmn;
  logic [3:0]  in_e;
  always_comb begin
    in_e   = low16(in_eopm);
    in_nmn = {1'b0, in_e[3:2]} + 3'd1;
    for (int unsigned q = 0; q < 4; q++) begin
      in_eh[q]        = (in_eopm & (16'hffff << (4*q + 2))) != '0;
      in_nm[3*q +: 3] = {1'b0, lane12(in_eopm[11:0] & (12'hfff << (4*q + 2)))} + 3'd1;
      in_rs[q]        = (in_sopm & (4'hf << in_nm[3*q +: 3])) != '0;
      in_nle[q]       = {1'b0, in_e} <= 5'(4*q + 2);
    end
  end

  // ------------------------------------------------------------- beat FIFO
  logic [511:0] f_data_q [4];
  logic [3:0]   f_sopm_q [4];
  logic [3:0]   f_eh_q   [4];
  logic [11:0]  f_nm_q   [4];
  logic [3:0]   f_rs_q   [4];
  logic [3:0]   f_nle_q  [4];
  logic [2:0]   f_nmn_q  [4];
  logic [1:0]   wp_q, rp_q, rp1;
  logic [2:0]   cnt_q;
  logic         push;
  logic         pop;

  assign rc_tready_o = cnt_q != 3'd4;
  assign push = rc_tvalid_i && rc_tready_o;
  assign rp1  = rp_q + 2'd1;

  always_ff @(posedge clk_i) begin
    if (push) begin
      f_data_q[wp_q] <= rc_tdata_i;
      f_sopm_q[wp_q] <= in_sopm;
      f_eh_q[wp_q]   <= in_eh;
      f_nm_q[wp_q]   <= in_nm;
      f_rs_q[wp_q]   <= in_rs;
      f_nle_q[wp_q]  <= in_nle;
      f_nmn_q[wp_q]  <= in_nmn;
    end
  end

  // --------------------------------------------------------------- emitter
  logic         act_q;     // a TLP continues at lane q_q of H
  logic [1:0]   q_q;
  logic [2:0]   smin_q;    // the next TLP of H starts at lane >= smin_q
  logic         hv, nv;
  logic [3:0]   h_sopm, avail;
  logic [1:0]   q_new, q;
  logic         start_ok, end_h, end_n, emit, rest;
  logic [2:0]   nxt_min;

  assign hv     = cnt_q != 3'd0;
  assign nv     = cnt_q > 3'd1;
  assign h_sopm = f_sopm_q[rp_q];
  assign avail  = h_sopm & (4'hf << smin_q);

  assign q_new    = low4(avail[2:0]);
  assign q        = act_q ? q_q : q_new;
  assign start_ok = act_q || avail != '0;
  assign end_h    = f_eh_q[rp_q][q];
  assign end_n    = !end_h && nv && f_nle_q[rp1][q];
  assign emit     = hv && start_ok && (end_h || nv);
  assign nxt_min  = end_h ? f_nm_q[rp_q][3*q +: 3] : f_nmn_q[rp1];
  assign rest     = f_rs_q[rp_q][q];   // used with end_h only
  // H is done: nothing (more) starts in it, or the TLP goes on past it.
  assign pop      = hv && (!start_ok || (emit && !(end_h && rest)));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wp_q   <= '0;
      rp_q   <= '0;
      cnt_q  <= '0;
      act_q  <= 1'b0;
      q_q    <= '0;
      smin_q <= '0;
      pc_valid_o <= 1'b0;
    end else begin
      if (push) wp_q <= wp_q + 2'd1;
      rp_q  <= rp_q + {1'b0, pop};
      cnt_q <= cnt_q + {2'b00, push} - {2'b00, pop};
      pc_valid_o <= emit;
      if (hv && !start_ok) smin_q <= '0;
      else if (emit) begin
        act_q <= !(end_h || end_n);
        q_q   <= q;
        smin_q <= (end_h && rest) || end_n ? nxt_min : 3'd0;
      end
    end
  end

  logic [1023:0] win2;
  assign win2 = {f_data_q[rp1], f_data_q[rp_q]};

  always_ff @(posedge clk_i) begin
    if (emit) begin
      pc_sop_o  <= !act_q;
      pc_eop_o  <= end_h || end_n;
      pc_desc_o <= f_data_q[rp_q][128*q +: 96];
      pc_data_o <= win2[128*q + 96 +: 512];
    end
  end

  logic unused_rc;
  assign unused_rc = ^{rc_tuser_i[160:96], rc_tuser_i[63:0]};

endmodule : kite_pcie_rc
