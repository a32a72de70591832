// TX offload engine over a 512-bit AXI-Stream: IPv4 header checksum, L4
// checksum insertion (Linux CHECKSUM_PARTIAL: csum_start / csum_offset) and
// 802.1Q tag insertion, byte for byte as the model's kite::tx_l3_csum,
// kite::tx_l4_csum and kite::tx_vlan_insert (fpga/model/txp/txoffload.cpp),
// applied in that order.
//
// Input: the gathered frame (no FCS), with the WQE's Ethernet segment
// (kite_pkg::wqe_eth_t, 128 bits) on every beat, sampled on the first.
// Output: the frame to the MAC (which appends the FCS).
//
// The L4 checksum field lies before the data it covers, so the engine is
// store-and-forward: beats go into a BUF_BEATS x 512-bit block RAM while the
// ones-complement sum from csum_start runs alongside; when the last beat has
// been summed, a per-frame record (patch positions and values) is queued and
// the readout patches the fields on the way out. Reading and writing overlap,
// so the buffer sustains one beat per cycle in and out once it holds a frame.
//
// Rules (the model's):
// * L3_CSUM: the first IPv4 header after at most two 802.1Q/802.1ad tags
//   (version 4, IHL >= 5, header inside the frame) gets its checksum; other
//   frames pass unchanged.
// * L4_CSUM: if csum_start < len and csum_start + csum_offset + 2 <= len, the
//   complement of the sum from csum_start to the end (the field holds the
//   pseudo-header sum; an odd csum_start sums byte-swapped words) is stored at
//   csum_start + csum_offset; a result of 0 with csum_offset 6 (UDP) is sent
//   as 0xffff. The sum sees the IPv4 checksum already filled (the model
//   computes L3 first): its contribution is corrected arithmetically.
// * VLAN_INSERT: a tag (0x8100, vlan_tci) after the MAC addresses, last.
//
// Input it does not trust (the card's descriptor stage and kite_txp_tso
// already keep such frames out; this block must not depend on them): a
// frame longer than MAX_LEN bytes, or with a beat whose keep is empty or not
// contiguous from lane 0, or a beat before the last that is not full, is
// dropped whole and counted in drop_cnt_o. Its beats are consumed from the
// first bad one on without being stored (the ones already stored are given
// back), so a frame of any length leaves the buffer free and the next frame
// intact. MAX_LEN defaults to the model's kite::tx_max_frame.
//
// m_no_fcs_o: the frame's wqe_eth NO_FCS flag, with each of its beats.
module kite_txp #(
  parameter int unsigned DATA_W     = 512,
  parameter int unsigned BUF_BEATS  = 512,   // 32 KiB: three 9022-byte frames
  parameter int unsigned MAX_FRAMES = 32,    // frames between input and output
  parameter int unsigned MAX_LEN    = 32'(kite_pkg::MAX_MTU + 14 + 4)
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                s_valid_i,
  output logic                s_ready_o,
  input  logic [DATA_W-1:0]   s_data_i,
  input  logic [DATA_W/8-1:0] s_keep_i,      // contiguous from lane 0
  input  logic                s_last_i,
  input  logic [127:0]        s_eth_i,       // kite_pkg::wqe_eth_t

  output logic                m_valid_o,
  input  logic                m_ready_i,
  output logic [DATA_W-1:0]   m_data_o,
  output logic [DATA_W/8-1:0] m_keep_o,
  output logic                m_last_o,
  output logic                m_no_fcs_o,

  output logic [31:0]         drop_cnt_o     // frames dropped (too long, bad keep)
);

  localparam int unsigned NB  = DATA_W / 8;
  localparam int unsigned CW  = $clog2(NB) + 1;    // byte count 0..64
  localparam int unsigned AW  = $clog2(BUF_BEATS);
  localparam int unsigned FW  = $clog2(MAX_FRAMES);
  localparam int unsigned PW  = 17;
  localparam int unsigned WIN = 2 * DATA_W;

  // wqe_eth_t fields (flat: yosys 0.23 and packed structs in ports).
  // Not every wqe_eth field concerns this block (mss / hdr_len: LSO).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [127:0] eth;
  /* verilator lint_on UNUSEDSIGNAL */
  assign eth = s_eth_i;
  logic       e_l3, e_l4, e_vlan, e_nofcs;
  logic [15:0] e_start, e_off, e_tci;
  assign e_l3    = eth[0];
  assign e_l4    = eth[1];
  assign e_vlan  = eth[3];
  assign e_nofcs = eth[4];
  assign e_start = eth[47:32];
  assign e_off   = eth[63:48];
  assign e_tci   = eth[95:80];

  function automatic logic [15:0] rd16(input logic [WIN-1:0] w, input logic [6:0] p);
    rd16 = {w[8*p +: 8], w[8*p+8 +: 8]};
  endfunction

  // ================================================================ ingest
  logic              in_frame_q, bidx1_q;
  logic [PW-1:0]     base_q, len_q;
  logic [DATA_W-1:0] hdr0_q;
  logic              first, wc, take, store;
  logic [DATA_W-1:0] d;
  logic [CW-1:0]     cnt;
  logic [AW:0]       wr_ptr_q, rd_ptr_q;
  logic [FW:0]       frames_q;            // frames started and not yet read out
  logic              frame_done;          // readout finished a frame

  assign first = !in_frame_q;
  assign wc    = first ? s_last_i : bidx1_q;

  // A good keep is a run of ones from lane 0, so its count is where the run
  // ends: bit k of it is set where the run ends in the upper half of a
  // 2^(k+1)-lane block. An OR of ANDs (three LUT levels at most), not a
  // popcount tree on the path to the drop decision. A keep with a gap is
  // dropped whatever cnt says.
  logic [2*NB-1:0] keep_x;
  logic            keep_gap;
  assign keep_x   = {NB'(0), s_keep_i};
  assign keep_gap = |(s_keep_i[NB-1:1] & ~s_keep_i[NB-2:0]);
  always_comb begin
    for (int i = 0; i < NB; i++) d[8*i +: 8] = s_keep_i[i] ? s_data_i[8*i +: 8] : 8'd0;
    for (int k = 0; k < CW; k++) begin
      cnt[k] = 1'b0;
      for (int j = 0; j * (2 << k) + (1 << k) <= NB; j++)
        cnt[k] = cnt[k] || (keep_x[j * (2 << k) + (1 << k) - 1] && !keep_x[(j + 1) * (2 << k) - 1]);
    end
  end

  // A bad beat drops its frame: the rest is consumed unstored (bad_q).
  logic              bad_q, beat_bad, drop;
  logic [AW:0]       fstart_q;            // wr_ptr_q at the frame's first beat
  logic [PW-1:0]     nlen, nroom, room_q;   // room_q: MAX_LEN - len_q, kept beside it
  assign nlen     = (first ? '0 : len_q) + PW'(cnt);
  // nlen > MAX_LEN as the beat's count against the room left, which is
  // known before the beat. (len_q is over MAX_LEN only behind a bad beat,
  // where bad_q ignores beat_bad.) With keep a run from lane 0, cnt > nroom
  // is whether lane nroom is kept: a lane select, not a compare behind
  // cnt. Any other keep is bad anyway.
  assign nroom    = first ? PW'(MAX_LEN) : room_q;
  assign beat_bad = s_keep_i == '0 || keep_gap || (!s_last_i && !(&s_keep_i)) ||
                    nroom < PW'(NB) && s_keep_i[nroom[CW-2:0]];

  // Room for the beat; a new frame also needs a record slot.
  assign s_ready_o = bad_q || ((wr_ptr_q - rd_ptr_q) < (AW+1)'(BUF_BEATS) &&
                               (!first || frames_q < (FW+1)'(MAX_FRAMES)));
  assign take      = s_valid_i && s_ready_o;
  assign store     = take && !bad_q && !beat_bad;
  assign drop      = take && !bad_q && beat_bad;

  // Per-frame request, latched on the first beat.
  logic        rq_l3_q, rq_l4_q, rq_vlan_q, rq_nofcs_q;
  logic [15:0] rq_start_q, rq_off_q, rq_tci_q;
  logic        rq_l3, rq_l4, rq_vlan, rq_nofcs;
  logic [15:0] rq_start, rq_off, rq_tci;
  assign rq_l3    = first ? e_l3 : rq_l3_q;
  assign rq_l4    = first ? e_l4 : rq_l4_q;
  assign rq_vlan  = first ? e_vlan : rq_vlan_q;
  assign rq_nofcs = first ? e_nofcs : rq_nofcs_q;
  assign rq_start = first ? e_start : rq_start_q;
  assign rq_off   = first ? e_off : rq_off_q;
  assign rq_tci   = first ? e_tci : rq_tci_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_frame_q <= 1'b0;
      bidx1_q    <= 1'b0;
      bad_q      <= 1'b0;
      base_q     <= '0;
      len_q      <= '0;
      room_q     <= PW'(MAX_LEN);
      wr_ptr_q   <= '0;
      fstart_q   <= '0;
      frames_q   <= '0;
      drop_cnt_o <= '0;
    end else begin
      if (take) begin
        in_frame_q <= !s_last_i;
        bidx1_q    <= first && !s_last_i;
        bad_q      <= !s_last_i && (bad_q || beat_bad);
        base_q     <= (first ? '0 : base_q) + PW'(NB);
        len_q      <= nlen;
        room_q     <= nroom - PW'(cnt);
      end
      if (take && first) fstart_q <= wr_ptr_q;
      if (store) wr_ptr_q <= wr_ptr_q + 1'b1;
      else if (drop && !first) wr_ptr_q <= fstart_q;   // give back the frame's stored beats
      frames_q   <= frames_q + (FW+1)'(store && first) - (FW+1)'(frame_done) -
                    (FW+1)'(drop && !first);
      if (drop) drop_cnt_o <= drop_cnt_o + 32'd1;   // drop is late: an enable, not a carry-in
    end
  end

  always_ff @(posedge clk_i) begin
    if (take && first) begin
      hdr0_q     <= d;
      rq_l3_q    <= e_l3;
      rq_l4_q    <= e_l4;
      rq_vlan_q  <= e_vlan;
      rq_nofcs_q <= e_nofcs;
      rq_start_q <= e_start;
      rq_off_q   <= e_off;
      rq_tci_q   <= e_tci;
    end
  end

  // Frame buffer: data, byte count, last.
  logic [DATA_W+CW:0] buf_mem [BUF_BEATS];
  always_ff @(posedge clk_i) begin
    if (store) buf_mem[wr_ptr_q[AW-1:0]] <= {s_last_i, cnt, d};
  end

  // ---------------------------------------------------------------- I1
  logic              i1_v_q, i1_first_q, i1_last_q, i1_wc_q;
  logic [DATA_W-1:0] i1_d_q;
  logic [WIN-1:0]    i1_win_q;
  logic [PW-1:0]     i1_base_q, i1_len_q;
  logic              i1_l3_q, i1_l4_q, i1_vlan_q, i1_nofcs_q;
  logic [15:0]       i1_start_q, i1_off_q, i1_tci_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) i1_v_q <= 1'b0;
    else i1_v_q <= store;
  end

  always_ff @(posedge clk_i) begin
    i1_first_q <= first;
    i1_last_q  <= s_last_i;
    i1_wc_q    <= wc;
    i1_d_q     <= d;
    i1_win_q   <= first ? {{DATA_W{1'b0}}, d} : {d, hdr0_q};
    i1_base_q  <= first ? '0 : base_q;
    i1_len_q   <= (first ? '0 : len_q) + PW'(cnt);
    i1_l3_q    <= rq_l3;
    i1_l4_q    <= rq_l4;
    i1_vlan_q  <= rq_vlan;
    i1_nofcs_q <= rq_nofcs;
    i1_start_q <= rq_start;
    i1_off_q   <= rq_off;
    i1_tci_q   <= rq_tci;
  end

  // I1 -> I2: L4 partial sums (absolute alignment: even positions are high
  // bytes) of the bytes at or after csum_start; bytes past the end are 0.
  logic [8*18-1:0] psum;
  logic [PW-1:0]   pos;
  logic [15:0]     w16;
  always_comb begin
    psum = '0;
    for (int w = 0; w < NB / 2; w++) begin
      w16 = '0;
      for (int h = 0; h < 2; h++) begin
        pos = i1_base_q + PW'(2 * w + h);
        if (pos >= PW'(i1_start_q)) w16[8*(1-h) +: 8] = i1_d_q[8*(2*w+h) +: 8];
      end
      psum[18*(w/4) +: 18] = psum[18*(w/4) +: 18] + 18'(w16);
    end
  end

  // I1 -> I2: the IPv4 header (kite::tx_l3_csum's find_l3) from the window.
  // Every length it compares is below 128, so the window knows it exactly.
  logic          t1, t2, v4;
  logic [4:0]    l3off;
  logic [15:0]   et;
  logic [3:0]    ihl;
  logic [8*60-1:0] l3w;
  logic [20:0]   hsum;
  logic [32*21-1:0] hterm;
  function automatic logic short_of(input logic last, input logic [PW-1:0] len, input logic [6:0] t);
    short_of = last && len < PW'(t);
  endfunction

  always_comb begin
    t1    = rd16(i1_win_q, 7'd12) == 16'h8100 || rd16(i1_win_q, 7'd12) == 16'h88a8;
    t2    = t1 && (rd16(i1_win_q, 7'd16) == 16'h8100 || rd16(i1_win_q, 7'd16) == 16'h88a8);
    l3off = t2 ? 5'd22 : (t1 ? 5'd18 : 5'd14);
    et    = t2 ? rd16(i1_win_q, 7'd20) : (t1 ? rd16(i1_win_q, 7'd16) : rd16(i1_win_q, 7'd12));
    l3w   = t2 ? i1_win_q[8*22 +: 8*60] : (t1 ? i1_win_q[8*18 +: 8*60] : i1_win_q[8*14 +: 8*60]);
    ihl   = l3w[3:0];
    v4    = !short_of(i1_last_q, i1_len_q, 7'd14) &&
            !(t1 && short_of(i1_last_q, i1_len_q, 7'd18)) &&
            !(t2 && short_of(i1_last_q, i1_len_q, 7'd22)) &&
            et == 16'h0800 && !short_of(i1_last_q, i1_len_q, 7'(l3off) + 7'd20) && l3w[7:4] == 4'd4 &&
            ihl >= 4'd5 && !short_of(i1_last_q, i1_len_q, 7'(l3off) + {1'b0, ihl, 2'b00});
    // The header's words but the checksum field, as a balanced tree: an add
    // chain of 30 was 39 LUT levels deep (fpga/syn/depth.py).
    for (int w = 0; w < 32; w++)
      hterm[21*w +: 21] = w < 30 && w != 5 && 6'(w) < {1'b0, ihl, 1'b0} ?
                          21'({l3w[16*w +: 8], l3w[16*w+8 +: 8]}) : 21'd0;
    hsum  = kite_rtl_pkg::sum32x21(hterm);
  end

  // ---------------------------------------------------------------- I2
  logic              i2_v_q, i2_first_q, i2_last_q, i2_wc_q;
  logic [8*18-1:0]   i2_psum_q;
  logic [PW-1:0]     i2_len_q;
  logic              i2_l3_q, i2_l4_q, i2_vlan_q, i2_nofcs_q;
  logic [15:0]       i2_start_q, i2_off_q, i2_tci_q;
  logic              i2_v4_q;
  logic [4:0]        i2_l3off_q;
  logic [20:0]       i2_hsum_q;
  logic [15:0]       i2_hold_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) i2_v_q <= 1'b0;
    else i2_v_q <= i1_v_q;
  end

  always_ff @(posedge clk_i) begin
    i2_first_q <= i1_first_q;
    i2_last_q  <= i1_last_q;
    i2_wc_q    <= i1_wc_q;
    i2_psum_q  <= psum;
    i2_len_q   <= i1_len_q;
    i2_l3_q    <= i1_l3_q;
    i2_l4_q    <= i1_l4_q;
    i2_vlan_q  <= i1_vlan_q;
    i2_nofcs_q <= i1_nofcs_q;
    i2_start_q <= i1_start_q;
    i2_off_q   <= i1_off_q;
    i2_tci_q   <= i1_tci_q;
    i2_v4_q    <= v4;
    i2_l3off_q <= l3off;
    i2_hsum_q  <= hsum;
    i2_hold_q  <= {l3w[8*10 +: 8], l3w[8*11 +: 8]};
  end

  // I2: accumulate; the header facts of the frame (kept from its window beat).
  logic [31:0] acc_q, acc;
  logic [20:0] bsum;
  logic        ctx_v4_q, x_v4;
  logic [4:0]  ctx_l3off_q, x_l3off;
  logic [15:0] i2_hnew, ctx_hnew_q, x_hnew;
  logic [15:0] ctx_hold_q, x_hold;
  logic        x_do3, x_in0, x_in1;
  logic [15:0] x_cold, x_cnew;
  logic [17:0] x_adj;

  always_comb begin
    bsum = '0;
    for (int g = 0; g < 8; g++) bsum = bsum + 21'(i2_psum_q[18*g +: 18]);
    acc     = (i2_first_q ? 32'd0 : acc_q) + 32'(bsum);
    // The new IPv4 checksum is folded here, a stage before I3 needs it.
    i2_hnew = ~kite_rtl_pkg::oc_fold32(32'(i2_hsum_q));
    x_v4    = i2_wc_q ? i2_v4_q : ctx_v4_q;
    x_l3off = i2_wc_q ? i2_l3off_q : ctx_l3off_q;
    x_hnew  = i2_wc_q ? i2_hnew : ctx_hnew_q;
    x_hold  = i2_wc_q ? i2_hold_q : ctx_hold_q;
    // The IPv4 checksum field's share of the L4 sum, before and after (its
    // bytes at l3off + 10 and + 11, where they are at or after csum_start):
    // I3 adds the difference, so its path is one add and the fold.
    x_do3   = i2_l3_q && x_v4;
    x_in0   = x_do3 && PW'(x_l3off) + PW'(10) >= PW'(i2_start_q);
    x_in1   = x_do3 && PW'(x_l3off) + PW'(11) >= PW'(i2_start_q);
    x_cold  = {x_in0 ? x_hold[15:8] : 8'd0, x_in1 ? x_hold[7:0] : 8'd0};
    x_cnew  = {x_in0 ? x_hnew[15:8] : 8'd0, x_in1 ? x_hnew[7:0] : 8'd0};
    x_adj   = 18'(x_cnew) - 18'(x_cold);
  end

  always_ff @(posedge clk_i) begin
    if (i2_v_q) acc_q <= acc;
    if (i2_v_q && i2_wc_q) begin
      ctx_v4_q    <= i2_v4_q;
      ctx_l3off_q <= i2_l3off_q;
      ctx_hnew_q  <= i2_hnew;
      ctx_hold_q  <= i2_hold_q;
    end
  end

  // ---------------------------------------------------------------- I3: the frame's record
  logic              i3_v_q;
  logic [31:0]       i3_acc_q;
  logic [PW-1:0]     i3_len_q;
  logic              i3_l3_q, i3_l4_q, i3_vlan_q, i3_nofcs_q, i3_v4_q;
  logic [15:0]       i3_start_q, i3_off_q, i3_tci_q, i3_hnew_q;
  logic [4:0]        i3_l3off_q;
  logic [17:0]       i3_adj_q;          // c_new - c_old, two's complement

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) i3_v_q <= 1'b0;
    else i3_v_q <= i2_v_q && i2_last_q;
  end

  always_ff @(posedge clk_i) begin
    i3_acc_q   <= acc;
    i3_len_q   <= i2_len_q;
    i3_l3_q    <= i2_l3_q;
    i3_l4_q    <= i2_l4_q;
    i3_vlan_q  <= i2_vlan_q;
    i3_nofcs_q <= i2_nofcs_q;
    i3_start_q <= i2_start_q;
    i3_off_q   <= i2_off_q;
    i3_tci_q   <= i2_tci_q;
    i3_v4_q    <= x_v4;
    i3_l3off_q <= x_l3off;
    i3_hnew_q  <= x_hnew;
    i3_adj_q   <= x_adj;
  end

  logic        do3, do4;
  logic [15:0] hnew, v0, v4c, l4v;
  logic [PW-1:0] p4;
  logic [31:0] tadj;

  always_comb begin
    do3  = i3_l3_q && i3_v4_q;
    hnew = i3_hnew_q;
    tadj = i3_acc_q + {{14{i3_adj_q[17]}}, i3_adj_q};
    v0   = ~kite_rtl_pkg::oc_fold32(tadj);
    v4c  = i3_start_q[0] ? {v0[7:0], v0[15:8]} : v0;
    l4v  = (i3_off_q == 16'd6 && v4c == 16'd0) ? 16'hffff : v4c;
    p4   = PW'(i3_start_q) + PW'(i3_off_q);
    do4  = i3_l4_q && PW'(i3_start_q) < i3_len_q && p4 + PW'(2) <= i3_len_q;
  end

  // Record queue (one entry per frame, LUT RAM).
  localparam int unsigned MW = 1 + 5 + 16 + 1 + PW + 16 + 1 + 16 + 1 + PW;
  logic [MW-1:0] meta_mem [MAX_FRAMES];
  logic [FW:0]   mwr_q, mrd_q;
  logic [MW-1:0] meta;
  logic          meta_pop;

  always_ff @(posedge clk_i) begin
    if (i3_v_q) meta_mem[mwr_q[FW-1:0]] <= {do3, i3_l3off_q, hnew, do4, p4, l4v, i3_vlan_q, i3_tci_q, i3_nofcs_q,
                                            (i3_len_q + PW'(NB - 1)) >> 6};
  end
  assign meta = meta_mem[mrd_q[FW-1:0]];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mwr_q <= '0;
      mrd_q <= '0;
    end else begin
      if (i3_v_q) mwr_q <= mwr_q + 1'b1;
      if (meta_pop) mrd_q <= mrd_q + 1'b1;
    end
  end

  // ================================================================ readout
  // R: buffer read (registered RAM output) with the frame's record.
  // V: tag insertion (a 4-byte shift and, sometimes, one extra beat).
  logic               r_v_q, r_take, r_adv, r_issue;
  logic [DATA_W+CW:0] r_word_q;
  logic [MW-1:0]      r_meta_q;
  logic [PW-1:0]      rbase_q, r_base_q;
  logic               rd_last;
  // The patch offsets in the beat, made as R loads: the record's l3off and
  // p4 fields less the beat's position.
  logic [4:0]         n_l3off;
  logic [PW-1:0]      n_p4, r_d3_q, r_d4_q;
  assign n_l3off = meta[MW-2 -: 5];
  assign n_p4    = meta[MW-24 -: PW];

  // The record knows the frame's beat count: the RAM needs no second read port.
  assign rd_last = rbase_q + PW'(NB) >= meta[PW-1:0] << 6;
  assign r_adv   = !r_v_q || r_take;
  assign r_issue = r_adv && mwr_q != mrd_q;     // a whole frame is in the buffer
  assign meta_pop = r_issue && rd_last;
  assign frame_done = meta_pop;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      r_v_q    <= 1'b0;
      rd_ptr_q <= '0;
      rbase_q  <= '0;
    end else if (r_adv) begin
      r_v_q <= r_issue;
      if (r_issue) begin
        rd_ptr_q <= rd_ptr_q + 1'b1;
        rbase_q  <= rd_last ? '0 : rbase_q + PW'(NB);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (r_adv) begin
      r_word_q <= buf_mem[rd_ptr_q[AW-1:0]];
      r_meta_q <= meta;
      r_base_q <= rbase_q;
      r_d3_q   <= PW'(n_l3off) + PW'(10) - rbase_q;
      r_d4_q   <= n_p4 - rbase_q;
    end
  end

  // Patch the checksum fields of the beat in R (L4 wins where they overlap).
  logic              m_do3, m_do4, m_vlan, m_nofcs;
  logic [15:0]       m_hnew, m_l4v, m_tci;
  logic [PW-1:0]     d3, d4;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [PW-1:0]     m_nbeats;        // used at the read port
  logic [4:0]        m_l3off;         // and these as R loads (r_d3_q, r_d4_q)
  logic [PW-1:0]     m_p4;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [DATA_W-1:0] pd;
  logic [CW-1:0]     r_cnt;
  logic              r_last;

  always_comb begin
    {m_do3, m_l3off, m_hnew, m_do4, m_p4, m_l4v, m_vlan, m_tci, m_nofcs, m_nbeats} = r_meta_q;
    {r_last, r_cnt, pd} = r_word_q;
    d3 = r_d3_q;
    d4 = r_d4_q;
    for (int i = 0; i < NB; i++) begin
      if (m_do3 && d3 == PW'(i)) pd[8*i +: 8] = m_hnew[15:8];
      if (m_do3 && d3 + PW'(1) == PW'(i)) pd[8*i +: 8] = m_hnew[7:0];
      if (m_do4 && d4 == PW'(i)) pd[8*i +: 8] = m_l4v[15:8];
      if (m_do4 && d4 + PW'(1) == PW'(i)) pd[8*i +: 8] = m_l4v[7:0];
    end
  end

  // V: output register. With a tag, beat 0 becomes bytes 0..11, the tag,
  // bytes 12..59; beat k > 0 the last 4 bytes of beat k-1 and 60 of beat k.
  logic              o_en, extra_q;
  logic [31:0]       carry_q;
  logic [CW-1:0]     extra_cnt_q;
  logic              r_first;

  assign o_en   = !m_valid_o || m_ready_i;
  assign r_take = o_en && r_v_q && !extra_q;
  assign r_first = r_base_q == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      m_valid_o <= 1'b0;
      extra_q   <= 1'b0;
    end else if (o_en) begin
      if (extra_q) begin
        m_valid_o <= 1'b1;
        extra_q   <= 1'b0;
      end else begin
        m_valid_o <= r_v_q;
        extra_q   <= r_v_q && m_vlan && r_last && r_cnt > CW'(NB - 4);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (o_en) begin
      if (extra_q) begin
        m_data_o <= {{(DATA_W-32){1'b0}}, carry_q};
        m_keep_o <= (NB)'((65'd1 << extra_cnt_q) - 65'd1);
        m_last_o <= 1'b1;
      end else if (r_take) begin
        m_no_fcs_o <= m_nofcs;
        if (!m_vlan) begin
          m_data_o <= pd;
          m_keep_o <= (NB)'((65'd1 << r_cnt) - 65'd1);
          m_last_o <= r_last;
        end else begin
          if (r_first) m_data_o <= {pd[DATA_W-32-1:96], 16'(m_tci[7:0]) << 8 | 16'(m_tci[15:8]),
                                    16'h0081, pd[95:0]};
          else         m_data_o <= {pd[DATA_W-32-1:0], carry_q};
          m_keep_o <= r_last && r_cnt <= CW'(NB - 4) ? (NB)'((65'd1 << (r_cnt + CW'(4))) - 65'd1) : '1;
          m_last_o <= r_last && r_cnt <= CW'(NB - 4);
        end
        carry_q     <= pd[DATA_W-32 +: 32];
        extra_cnt_q <= r_cnt - CW'(NB - 4);
      end
    end
  end

endmodule : kite_txp
