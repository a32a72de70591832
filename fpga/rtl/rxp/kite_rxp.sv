// RX header parser and checksum verification over a 512-bit AXI-Stream.
//
// Input: frames without FCS (the MAC has checked and removed it), packed from
// lane 0. Output: one metadata record per frame, 5 cycles after its last
// beat. Accepts one beat per cycle with no gap between frames, so a stream of
// 64-byte frames (one beat each) yields one record per cycle.
//
// Parsed: Ethernet, one 802.1Q tag, IPv4 (with options) or IPv6 (no
// extension headers), TCP/UDP ports, RoCEv2 BTH (UDP port 4791). Checked:
// IPv4 header checksum, TCP/UDP checksum with the pseudo header, and the
// ones-complement sum of the frame after its first 14 bytes (csum_syndrome).
//
// Rules (mirrored by the reference parser in fpga/tb/common):
// * l3 = IPV4 when ethertype 0x0800, version 4, IHL >= 5, 4*IHL <= total
//   length and the datagram fits in the frame; IPV6 when 0x86DD, version 6 and
//   the payload fits. An IP ethertype failing these is `malformed`, l3 NONE.
// * l4 = TCP (L4 length >= 20) or UDP (>= 8) for unfragmented datagrams.
// * l4_ok / l4_bad: checksum verified; UDP over IPv4 with checksum 0 has
//   none, so neither is set. l3_ok: IPv4 header checksum good, or IPv6.
// * Bytes beyond the frame end read as zero; the L4 sum stops at the IP
//   length, so Ethernet padding of short frames is ignored.
//
// The checksum byte masks depend only on fields of the first beat (L2 length,
// IHL, IP length), so they are known when each beat arrives: no frame buffer.
module kite_rxp #(
  parameter int unsigned DATA_W = 512,
  parameter int unsigned LEN_W  = 16
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                s_valid_i,
  output logic                s_ready_o,
  input  logic [DATA_W-1:0]   s_data_i,
  input  logic [DATA_W/8-1:0] s_keep_i,
  input  logic                s_last_i,

  output logic                m_valid_o,
  input  logic                m_ready_i,
  output logic [LEN_W-1:0]    m_len_o,
  output logic                m_vlan_o,
  output logic [15:0]         m_tci_o,
  output logic [15:0]         m_ethertype_o,    // after the VLAN tag
  output logic [1:0]          m_l3_o,           // kite_rtl_pkg::l3_type_e
  output logic [1:0]          m_l4_o,           // kite_rtl_pkg::l4_type_e
  output logic [127:0]        m_src_ip_o,       // IPv4 in [31:0], network order
  output logic [127:0]        m_dst_ip_o,
  output logic [15:0]         m_sport_o,
  output logic [15:0]         m_dport_o,
  output logic                m_frag_o,
  output logic                m_malformed_o,
  output logic                m_l3_ok_o,
  output logic                m_l4_ok_o,
  output logic                m_l4_bad_o,
  output logic [15:0]         m_csum_complete_o,
  output logic                m_roce_o,
  output logic [7:0]          m_bth_opcode_o,
  output logic [23:0]         m_bth_dqpn_o,
  output logic [23:0]         m_bth_psn_o
);

  localparam int unsigned NB   = DATA_W / 8;  // 64 bytes per beat
  localparam int unsigned NG   = 8;           // partial sums per beat in stage 1
  localparam int unsigned PW   = 17;          // byte positions (IP length + offsets)
  localparam int unsigned WIN  = 2 * DATA_W;  // header window: first 128 bytes
  localparam int unsigned L3W  = WIN - 8 * 14;
  localparam int unsigned L4B  = 20;          // bytes read at the L4 offset (UDP + BTH)
  localparam int unsigned CW   = $clog2(NB) + 1;

  logic en, out_v_q;
  assign en        = !out_v_q || m_ready_i;
  assign s_ready_o = en;

  // ================================================================ input
  logic              in_frame_q;
  logic [1:0]        bidx_q;           // beat index within the frame, saturating at 2
  logic [PW-1:0]     base_q, len_q;    // position of the next beat; bytes so far
  logic [DATA_W-1:0] hdr0_q, hdr1_q;
  logic              first;
  logic [DATA_W-1:0] d;
  logic [CW-1:0]     cnt;

  assign first = !in_frame_q;

  always_comb begin
    cnt = '0;
    for (int i = 0; i < NB; i++) begin
      d[8*i +: 8] = s_keep_i[i] ? s_data_i[8*i +: 8] : 8'd0;  // bytes past the end read 0
      cnt = cnt + CW'(s_keep_i[i]);
    end
  end

  // Frame context from the first beat: everything the byte masks need.
  logic          b0_vlan;
  logic [PW-1:0] b0_l3off, b0_l4off, b0_l3end;
  logic [15:0]   b0_et, b0_tot, b0_plen;
  logic [3:0]    b0_ihl;

  always_comb begin
    b0_vlan  = {d[8*12 +: 8], d[8*13 +: 8]} == 16'h8100;
    b0_l3off = b0_vlan ? PW'(18) : PW'(14);
    b0_et    = b0_vlan ? {d[8*16 +: 8], d[8*17 +: 8]} : {d[8*12 +: 8], d[8*13 +: 8]};
    b0_ihl   = b0_vlan ? d[8*18 +: 4] : d[8*14 +: 4];
    b0_tot   = b0_vlan ? {d[8*20 +: 8], d[8*21 +: 8]} : {d[8*16 +: 8], d[8*17 +: 8]};
    b0_plen  = b0_vlan ? {d[8*22 +: 8], d[8*23 +: 8]} : {d[8*18 +: 8], d[8*19 +: 8]};
    if (b0_et == 16'h86dd) begin
      b0_l4off = b0_l3off + PW'(40);
      b0_l3end = b0_l3off + PW'(40) + PW'(b0_plen);
    end else begin
      b0_l4off = b0_l3off + PW'({b0_ihl, 2'b00});
      b0_l3end = b0_l3off + PW'(b0_tot);
    end
  end

  logic          ctx_vlan_q;
  logic [PW-1:0] ctx_l3off_q, ctx_l4off_q, ctx_l3end_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_frame_q <= 1'b0;
      bidx_q     <= '0;
      base_q     <= '0;
      len_q      <= '0;
    end else if (en && s_valid_i) begin
      in_frame_q <= !s_last_i;
      bidx_q     <= first ? 2'd1 : (bidx_q == 2'd2 ? 2'd2 : bidx_q + 2'd1);
      base_q     <= (first ? '0 : base_q) + PW'(NB);
      len_q      <= (first ? '0 : len_q) + PW'(cnt);
    end
  end

  always_ff @(posedge clk_i) begin
    if (en && s_valid_i) begin
      if (first) begin
        hdr0_q      <= d;
        ctx_vlan_q  <= b0_vlan;
        ctx_l3off_q <= b0_l3off;
        ctx_l4off_q <= b0_l4off;
        ctx_l3end_q <= b0_l3end;
      end
      if (!first && bidx_q == 2'd1) hdr1_q <= d;
    end
  end

  // ================================================================ S1
  logic              s1_v_q, s1_last_q, s1_first_q;
  logic [DATA_W-1:0] s1_data_q;
  logic [PW-1:0]     s1_base_q, s1_len_q, s1_l3off_q, s1_l4off_q, s1_l3end_q;
  logic              s1_vlan_q;
  logic [WIN-1:0]    s1_win_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s1_v_q <= 1'b0;
    else if (en) s1_v_q <= s_valid_i;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      s1_last_q  <= s_last_i;
      s1_first_q <= first;
      s1_data_q  <= d;
      s1_base_q  <= first ? '0 : base_q;
      s1_len_q   <= (first ? '0 : len_q) + PW'(cnt);
      s1_vlan_q  <= first ? b0_vlan : ctx_vlan_q;
      s1_l3off_q <= first ? b0_l3off : ctx_l3off_q;
      s1_l4off_q <= first ? b0_l4off : ctx_l4off_q;
      s1_l3end_q <= first ? b0_l3end : ctx_l3end_q;
      // Header window as of this beat; used only on the last beat.
      if (first)                s1_win_q <= {{DATA_W{1'b0}}, d};
      else if (bidx_q == 2'd1)  s1_win_q <= {d, hdr0_q};
      else                      s1_win_q <= {hdr1_q, hdr0_q};
    end
  end

  // ---------------------------------------------------------------- S1 -> S2: checksum masks
  // Three byte ranges: after the first 14 bytes [14, end) (csum_syndrome,
  // an unstripped VLAN tag included, as operation.rst says), L4 [l4off, l3end), IPv4 header
  // [l3off, l4off). Even positions are the high byte of a 16-bit word.
  logic [NG*18-1:0] p_all, p_l4, p_l3h;

  logic [PW-1:0] pos;
  logic [7:0]    b;
  logic [15:0]   w_all, w_l4, w_l3h;

  always_comb begin
    p_all = '0;
    p_l4  = '0;
    p_l3h = '0;
    for (int w = 0; w < NB / 2; w++) begin
      w_all = '0;
      w_l4  = '0;
      w_l3h = '0;
      for (int h = 0; h < 2; h++) begin
        pos = s1_base_q + PW'(2 * w + h);
        b   = s1_data_q[8*(2*w+h) +: 8];
        if (pos >= PW'(14)) w_all[8*(1-h) +: 8] = b;
        if (pos >= s1_l4off_q && pos < s1_l3end_q) w_l4[8*(1-h) +: 8] = b;
        if (pos >= s1_l3off_q && pos < s1_l4off_q) w_l3h[8*(1-h) +: 8] = b;
      end
      p_all[18*(w/4) +: 18] = p_all[18*(w/4) +: 18] + 18'(w_all);
      p_l4[18*(w/4) +: 18]  = p_l4[18*(w/4) +: 18] + 18'(w_l4);
      p_l3h[18*(w/4) +: 18] = p_l3h[18*(w/4) +: 18] + 18'(w_l3h);
    end
  end

  // ---------------------------------------------------------------- S1 -> S2: L2/L3 parse
  logic [L3W-1:0] l3win;
  logic [15:0]    et, tci, tot, plen;
  logic [3:0]     ver, ihl, ihl_eff;
  logic [7:0]     proto;
  logic           fragbits, v4_ok, v6_ok, is_v4, is_v6;
  logic [127:0]   src, dst;
  logic [8*L4B-1:0] l4win;

  always_comb begin
    tci   = {s1_win_q[8*14 +: 8], s1_win_q[8*15 +: 8]};
    et    = s1_vlan_q ? {s1_win_q[8*16 +: 8], s1_win_q[8*17 +: 8]}
                      : {s1_win_q[8*12 +: 8], s1_win_q[8*13 +: 8]};
    l3win = s1_vlan_q ? L3W'(s1_win_q >> (8 * 18)) : L3W'(s1_win_q >> (8 * 14));
    ver   = l3win[7:4];
    ihl   = l3win[3:0];
    tot   = {l3win[8*2 +: 8], l3win[8*3 +: 8]};
    plen  = {l3win[8*4 +: 8], l3win[8*5 +: 8]};
    is_v4 = et == 16'h0800;
    is_v6 = et == 16'h86dd;
    fragbits = ({l3win[8*6 +: 8], l3win[8*7 +: 8]} & 16'h3fff) != 16'd0;
    v4_ok = is_v4 && s1_len_q >= s1_l3off_q + PW'(20) && ver == 4'd4 && ihl >= 4'd5 &&
            tot >= {10'd0, ihl, 2'b00} && s1_l3off_q + PW'(tot) <= s1_len_q;
    v6_ok = is_v6 && s1_len_q >= s1_l3off_q + PW'(40) && ver == 4'd6 &&
            s1_l3off_q + PW'(40) + PW'(plen) <= s1_len_q;
    proto = is_v6 ? l3win[8*6 +: 8] : l3win[8*9 +: 8];
    src   = '0;
    dst   = '0;
    if (is_v6) begin
      for (int i = 0; i < 16; i++) begin
        src[8*(15-i) +: 8] = l3win[8*(8+i) +: 8];
        dst[8*(15-i) +: 8] = l3win[8*(24+i) +: 8];
      end
    end else begin
      for (int i = 0; i < 4; i++) begin
        src[8*(3-i) +: 8] = l3win[8*(12+i) +: 8];
        dst[8*(3-i) +: 8] = l3win[8*(16+i) +: 8];
      end
    end
    // L4 bytes: the L3 window shifted by the header length in 32-bit words
    // (IHL, or 10 for IPv6): a 16-way mux instead of a full byte shifter.
    ihl_eff = is_v6 ? 4'd10 : ihl;
    l4win   = (8*L4B)'(l3win >> (32 * ihl_eff));
  end

  // ================================================================ S2
  logic              s2_v_q, s2_last_q, s2_first_q;
  logic [NG*18-1:0]  s2_sall_q, s2_sl4_q, s2_sl3h_q;
  logic [PW-1:0]     s2_len_q, s2_l4len_q;
  logic              s2_vlan_q, s2_frag_q, s2_malformed_q;
  logic [15:0]       s2_tci_q, s2_et_q;
  logic [1:0]        s2_l3_q;
  logic [7:0]        s2_proto_q;
  logic [127:0]      s2_src_q, s2_dst_q;
  // Not every L4/BTH byte is reported (UDP length, TCP flags, BTH pkey...).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [8*L4B-1:0]  s2_l4win_q;
  /* verilator lint_on UNUSEDSIGNAL */

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s2_v_q <= 1'b0;
    else if (en) s2_v_q <= s1_v_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      s2_last_q      <= s1_last_q;
      s2_first_q     <= s1_first_q;
      s2_sall_q       <= p_all;
      s2_sl4_q       <= p_l4;
      s2_sl3h_q       <= p_l3h;
      s2_len_q       <= s1_len_q;
      s2_l4len_q     <= s1_l3end_q - s1_l4off_q;
      s2_vlan_q      <= s1_vlan_q;
      s2_tci_q       <= s1_vlan_q ? tci : 16'd0;
      s2_et_q        <= et;
      s2_l3_q        <= v4_ok ? kite_rtl_pkg::L3_IPV4 : (v6_ok ? kite_rtl_pkg::L3_IPV6 : kite_rtl_pkg::L3_NONE);
      s2_malformed_q <= (is_v4 && !v4_ok) || (is_v6 && !v6_ok);
      s2_frag_q      <= v4_ok && fragbits;
      s2_proto_q     <= proto;
      s2_src_q       <= (v4_ok || v6_ok) ? src : 128'd0;
      s2_dst_q       <= (v4_ok || v6_ok) ? dst : 128'd0;
      s2_l4win_q     <= l4win;
    end
  end

  // ---------------------------------------------------------------- S2 -> S3
  logic [20:0] bs_all, bs_l4, bs_l3h, pseudo;
  logic [1:0]  l4;
  logic [15:0] sport, dport, udp_csum;

  always_comb begin
    bs_all = '0;
    bs_l4  = '0;
    bs_l3h = '0;
    for (int g = 0; g < NG; g++) begin
      bs_all = bs_all + 21'(s2_sall_q[18*g +: 18]);
      bs_l4  = bs_l4 + 21'(s2_sl4_q[18*g +: 18]);
      bs_l3h = bs_l3h + 21'(s2_sl3h_q[18*g +: 18]);
    end
    sport    = {s2_l4win_q[8*0 +: 8], s2_l4win_q[8*1 +: 8]};
    dport    = {s2_l4win_q[8*2 +: 8], s2_l4win_q[8*3 +: 8]};
    udp_csum = {s2_l4win_q[8*6 +: 8], s2_l4win_q[8*7 +: 8]};
    l4 = kite_rtl_pkg::L4_NONE;
    if (s2_l3_q != kite_rtl_pkg::L3_NONE && !s2_frag_q) begin
      if (s2_proto_q == 8'd6 && s2_l4len_q >= PW'(20)) l4 = kite_rtl_pkg::L4_TCP;
      if (s2_proto_q == 8'd17 && s2_l4len_q >= PW'(8)) l4 = kite_rtl_pkg::L4_UDP;
    end
    // Pseudo header: addresses, protocol, L4 length (IPv4 addresses are
    // zero-extended, so the IPv6 form covers both).
    pseudo = 21'(s2_proto_q) + 21'(s2_l4len_q[15:0]);
    for (int i = 0; i < 8; i++) begin
      pseudo = pseudo + 21'(s2_src_q[16*i +: 16]) + 21'(s2_dst_q[16*i +: 16]);
    end
  end

  // ================================================================ S3
  logic              s3_v_q, s3_last_q, s3_first_q;
  logic [20:0]       s3_sall_q, s3_sl4_q, s3_sl3h_q, s3_pseudo_q;
  logic [PW-1:0]     s3_len_q;
  logic              s3_vlan_q, s3_frag_q, s3_malformed_q, s3_roce_q, s3_udp0_q;
  logic [15:0]       s3_tci_q, s3_et_q, s3_sport_q, s3_dport_q;
  logic [1:0]        s3_l3_q, s3_l4_q;
  logic [127:0]      s3_src_q, s3_dst_q;
  logic [7:0]        s3_bth_op_q;
  logic [23:0]       s3_dqpn_q, s3_psn_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s3_v_q <= 1'b0;
    else if (en) s3_v_q <= s2_v_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      s3_last_q      <= s2_last_q;
      s3_first_q     <= s2_first_q;
      s3_sall_q       <= bs_all;
      s3_sl4_q       <= bs_l4;
      s3_sl3h_q       <= bs_l3h;
      s3_pseudo_q    <= pseudo;
      s3_len_q       <= s2_len_q;
      s3_vlan_q      <= s2_vlan_q;
      s3_tci_q       <= s2_tci_q;
      s3_et_q        <= s2_et_q;
      s3_l3_q        <= s2_l3_q;
      s3_l4_q        <= l4;
      s3_frag_q      <= s2_frag_q;
      s3_malformed_q <= s2_malformed_q;
      s3_src_q       <= s2_src_q;
      s3_dst_q       <= s2_dst_q;
      s3_sport_q     <= l4 != kite_rtl_pkg::L4_NONE ? sport : 16'd0;
      s3_dport_q     <= l4 != kite_rtl_pkg::L4_NONE ? dport : 16'd0;
      s3_udp0_q      <= l4 == kite_rtl_pkg::L4_UDP && s2_l3_q == kite_rtl_pkg::L3_IPV4 &&
                        udp_csum == 16'd0;
      s3_roce_q      <= l4 == kite_rtl_pkg::L4_UDP && dport == 16'(kite_pkg::ROCEV2_UDP_PORT) &&
                        s2_l4len_q >= PW'(20);
      s3_bth_op_q    <= s2_l4win_q[8*8 +: 8];
      s3_dqpn_q      <= {s2_l4win_q[8*13 +: 8], s2_l4win_q[8*14 +: 8], s2_l4win_q[8*15 +: 8]};
      s3_psn_q       <= {s2_l4win_q[8*17 +: 8], s2_l4win_q[8*18 +: 8], s2_l4win_q[8*19 +: 8]};
    end
  end

  // ---------------------------------------------------------------- S3 -> S4: accumulate
  logic [31:0] acc_all_q, acc_l4_q, acc_l3h_q;
  logic [31:0] sum_all, sum_l4, sum_l3h;

  assign sum_all = (s3_first_q ? 32'd0 : acc_all_q) + 32'(s3_sall_q);
  assign sum_l4  = (s3_first_q ? 32'd0 : acc_l4_q) + 32'(s3_sl4_q);
  assign sum_l3h = (s3_first_q ? 32'd0 : acc_l3h_q) + 32'(s3_sl3h_q);

  always_ff @(posedge clk_i) begin
    if (en && s3_v_q) begin
      acc_all_q <= sum_all;
      acc_l4_q  <= sum_l4;
      acc_l3h_q <= sum_l3h;
    end
  end

  // ================================================================ S4
  logic              s4_v_q;
  logic [31:0]       s4_sall_q, s4_sl4_q, s4_sl3h_q;
  logic [20:0]       s4_pseudo_q;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [PW-1:0]     s4_len_q;  // frames are < 64 KiB: bit 16 is always 0
  /* verilator lint_on UNUSEDSIGNAL */
  logic              s4_vlan_q, s4_frag_q, s4_malformed_q, s4_roce_q, s4_udp0_q;
  logic [15:0]       s4_tci_q, s4_et_q, s4_sport_q, s4_dport_q;
  logic [1:0]        s4_l3_q, s4_l4_q;
  logic [127:0]      s4_src_q, s4_dst_q;
  logic [7:0]        s4_bth_op_q;
  logic [23:0]       s4_dqpn_q, s4_psn_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s4_v_q <= 1'b0;
    else if (en) s4_v_q <= s3_v_q && s3_last_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      s4_sall_q       <= sum_all;
      s4_sl4_q       <= sum_l4;
      s4_sl3h_q       <= sum_l3h;
      s4_pseudo_q    <= s3_pseudo_q;
      s4_len_q       <= s3_len_q;
      s4_vlan_q      <= s3_vlan_q;
      s4_tci_q       <= s3_tci_q;
      s4_et_q        <= s3_et_q;
      s4_l3_q        <= s3_l3_q;
      s4_l4_q        <= s3_l4_q;
      s4_frag_q      <= s3_frag_q;
      s4_malformed_q <= s3_malformed_q;
      s4_src_q       <= s3_src_q;
      s4_dst_q       <= s3_dst_q;
      s4_sport_q     <= s3_sport_q;
      s4_dport_q     <= s3_dport_q;
      s4_udp0_q      <= s3_udp0_q;
      s4_roce_q      <= s3_roce_q;
      s4_bth_op_q    <= s3_bth_op_q;
      s4_dqpn_q      <= s3_dqpn_q;
      s4_psn_q       <= s3_psn_q;
    end
  end

  // ---------------------------------------------------------------- S4 -> out: verdicts
  logic [15:0] f_all, f_l4, f_l3h, f_ps, l4_total;
  logic        l3_ok, l4_chk;

  always_comb begin
    f_all    = kite_rtl_pkg::oc_fold32(s4_sall_q);
    f_l4     = kite_rtl_pkg::oc_fold32(s4_sl4_q);
    f_l3h    = kite_rtl_pkg::oc_fold32(s4_sl3h_q);
    f_ps     = kite_rtl_pkg::oc_fold32(32'(s4_pseudo_q));
    l4_total = kite_rtl_pkg::oc_add(f_l4, f_ps);
    l3_ok    = (s4_l3_q == kite_rtl_pkg::L3_IPV4 && f_l3h == 16'hffff) ||
               s4_l3_q == kite_rtl_pkg::L3_IPV6;
    l4_chk   = s4_l4_q != kite_rtl_pkg::L4_NONE && !s4_udp0_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) out_v_q <= 1'b0;
    else if (en) out_v_q <= s4_v_q;
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      m_len_o           <= LEN_W'(s4_len_q);
      m_vlan_o          <= s4_vlan_q;
      m_tci_o           <= s4_tci_q;
      m_ethertype_o     <= s4_et_q;
      m_l3_o            <= s4_l3_q;
      m_l4_o            <= s4_l4_q;
      m_src_ip_o        <= s4_src_q;
      m_dst_ip_o        <= s4_dst_q;
      m_sport_o         <= s4_sport_q;
      m_dport_o         <= s4_dport_q;
      m_frag_o          <= s4_frag_q;
      m_malformed_o     <= s4_malformed_q;
      m_l3_ok_o         <= l3_ok;
      m_l4_ok_o         <= l4_chk && l4_total == 16'hffff;
      m_l4_bad_o        <= l4_chk && l4_total != 16'hffff;
      m_csum_complete_o <= f_all;
      m_roce_o          <= s4_roce_q;
      m_bth_opcode_o    <= s4_roce_q ? s4_bth_op_q : 8'd0;
      m_bth_dqpn_o      <= s4_roce_q ? s4_dqpn_q : 24'd0;
      m_bth_psn_o       <= s4_roce_q ? s4_psn_q : 24'd0;
    end
  end

  assign m_valid_o = out_v_q;

endmodule : kite_rxp
